// Vitest globalSetup for the browser suite: build if needed, start the app on a free
// port over a fresh SQLite database (a new DATA_DIR), hand its URL to the tests, and
// stop the whole process group (start.ts, the web server, the worker) afterwards.
import type { TestProject } from "vitest/node";
import { type RunningApp, ensureBuild, freePort, startApp } from "./utils.ts";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
  }
}

let app: RunningApp | undefined;

export default async function setup(project: TestProject) {
  ensureBuild();
  const port = await freePort(Number(process.env.E2E_PORT ?? 5101));
  app = await startApp({ port, label: "sqlite" });
  console.log(`[e2e] app (SQLite) listening at ${app.baseUrl}, DATA_DIR ${app.dataDir}`);
  project.provide("baseUrl", app.baseUrl);
  return async () => {
    if (process.env.E2E_PRINT_SERVER_LOG) console.log(app?.log());
    await app?.stop();
    app = undefined;
  };
}
