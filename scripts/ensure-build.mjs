// `npm start` builds first when the build is missing, older than the source, or a development
// build (`npm run dev` writes one into build/; it needs React's development runtime).
import { execSync } from "node:child_process";
import { buildStaleness } from "./build-state.mjs";

const reason = buildStaleness(process.cwd());
if (reason) {
  console.log(`[start] building the app (${reason})...`);
  execSync("npx remix build", { stdio: "inherit" });
}
