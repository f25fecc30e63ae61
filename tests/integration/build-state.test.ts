// When `npm start` and the browser tests rebuild (scripts/build-state.mjs): a missing build, a
// source newer than the build, and the development build `npm run dev` leaves in build/.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { buildStaleness } from "../../scripts/build-state.mjs";

let root = "";
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A project with app/, db/ and a production build, the build newer than the sources. */
function project(): string {
  root = mkdtempSync(path.join(os.tmpdir(), "build-state-"));
  for (const dir of ["app/routes", "db", "build", "public/build"]) mkdirSync(path.join(root, dir), { recursive: true });
  writeFileSync(path.join(root, "app/routes/page.tsx"), "export default 1;\n");
  writeFileSync(path.join(root, "db/schema.ts"), "export {};\n");
  writeFileSync(path.join(root, "package.json"), "{}\n");
  const old = new Date(Date.now() - 60_000);
  for (const file of ["app/routes/page.tsx", "db/schema.ts", "package.json"])
    utimesSync(path.join(root, file), old, old);
  writeFileSync(path.join(root, "build/index.js"), 'const mode = "production";\n');
  return root;
}

describe("buildStaleness", () => {
  test("a current production build needs nothing", () => {
    expect(buildStaleness(project())).toBeNull();
  });

  test("no build, or only the server half", () => {
    const dir = project();
    rmSync(path.join(dir, "public/build"), { recursive: true });
    expect(buildStaleness(dir)).toBe("no build");
    rmSync(path.join(dir, "build"), { recursive: true });
    expect(buildStaleness(dir)).toBe("no build");
  });

  test("a source file deep in app/ newer than the build", () => {
    const dir = project();
    const later = new Date(Date.now() + 60_000);
    utimesSync(path.join(dir, "app/routes/page.tsx"), later, later);
    expect(buildStaleness(dir)).toBe("the build is older than the sources");
  });

  test("the development build npm run dev leaves behind", () => {
    const dir = project();
    writeFileSync(path.join(dir, "build/index.js"), 'const mode = "development";\n');
    expect(buildStaleness(dir)).toBe("build/ holds a development build");
  });
});
