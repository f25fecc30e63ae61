// Makes a frozen copy of the app to benchmark several times (pass it as --app-dir):
//
//   bun bench/prepare.ts            # working tree sources + the existing build (built in the copy if missing)
//   bun bench/prepare.ts --head     # `git archive HEAD`, built inside the copy
//   bun bench/prepare.ts --rebuild  # working tree, built inside the copy
//
// Prints the directory. Remove it yourself when done (`bun bench/prepare.ts --remove DIR`).
import { existsSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { SOURCE_MARKER, parseArgs, prepareApp } from "./lib.ts";

const args = parseArgs();
if (typeof args.remove === "string") {
  const dir = path.resolve(args.remove);
  if (!dir.startsWith(path.join(os.tmpdir(), "perpdesk-bench-app-")) || !existsSync(path.join(dir, SOURCE_MARKER))) {
    console.error(`not a bench app copy: ${dir}`);
    process.exit(1);
  }
  rmSync(path.join(dir, "node_modules"), { force: true }); // the symlink, never its target
  rmSync(dir, { recursive: true, force: true });
  console.log(`removed ${dir}`);
  process.exit(0);
}
const copy = prepareApp({ head: Boolean(args.head), rebuild: Boolean(args.rebuild) });
writeFileSync(path.join(copy.dir, SOURCE_MARKER), `${copy.source}\n`);
console.log(copy.dir);
