// `npm start` builds first when the build is missing or older than the source.
import { execSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

const BUILD = "build/index.js";

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const mtime = entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs;
    if (mtime > newest) newest = mtime;
  }
  return newest;
}

const sources = ["app", "db", "remix.config.js", "package.json"];
const sourceTime = Math.max(...sources.map((s) => (statSync(s).isDirectory() ? newestMtime(s) : statSync(s).mtimeMs)));
if (!existsSync(BUILD) || statSync(BUILD).mtimeMs < sourceTime || !existsSync("public/build")) {
  console.log("[start] building the app...");
  execSync("npx remix build", { stdio: "inherit" });
}
