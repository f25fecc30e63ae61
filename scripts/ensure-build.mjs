// `npm start` builds first when the build is missing, older than the source, or a development
// build (`npm run dev` writes one into build/; it needs React's development runtime).
import { execSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
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
const developmentBuild = () => readFileSync(BUILD, "utf8").includes('mode = "development"');
if (!existsSync(BUILD) || statSync(BUILD).mtimeMs < sourceTime || !existsSync("public/build") || developmentBuild()) {
  console.log("[start] building the app...");
  execSync("npx remix build", { stdio: "inherit" });
}
