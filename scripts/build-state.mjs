// Whether the Remix build needs making again: shared by `npm start` (scripts/ensure-build.mjs)
// and the browser tests (ensureBuild in tests/e2e/utils.ts), so both rebuild in the same cases.
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

/** What the build is made from: a change in any of them makes the build stale. */
const SOURCES = ["app", "db", "remix.config.js", "package.json"];

/** @param {string} entry @returns {number} */
function newestMtime(entry) {
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const child of readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, child)));
  return newest;
}

/**
 * Why the build in `root` must be made again, or null when it is current: missing (server or
 * browser half), older than a source, or the development build `npm run dev` leaves in build/
 * (it needs React's development runtime, which the production server does not load).
 * @param {string} root
 * @returns {string | null}
 */
export function buildStaleness(root) {
  const serverBuild = path.join(root, "build/index.js");
  if (!existsSync(serverBuild) || !existsSync(path.join(root, "public/build"))) return "no build";
  const sourceTime = Math.max(
    ...SOURCES.map((s) => path.join(root, s))
      .filter(existsSync)
      .map(newestMtime),
  );
  if (statSync(serverBuild).mtimeMs < sourceTime) return "the build is older than the sources";
  if (readFileSync(serverBuild, "utf8").includes('mode = "development"')) return "build/ holds a development build";
  return null;
}
