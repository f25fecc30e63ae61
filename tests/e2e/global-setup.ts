// Vitest globalSetup for the browser suite: build if needed, freeze a private copy of the
// build (see snapshotApp), start the app from it on a free port over a fresh SQLite
// database (a new DATA_DIR), hand its URL to the tests, and at the end stop the whole
// process group (start.ts, the web server, the worker) and remove the temporary files.
import type { TestProject } from "vitest/node";
import {
  type FakePrices,
  type RunningApp,
  ensureBuild,
  freePort,
  snapshotApp,
  startApp,
  startFakePrices,
} from "./utils.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The SQLite instance every spec shares. */
    baseUrl: string;
    /** The frozen copy of the project to start more instances from (mysql.e2e.ts). */
    appDir: string;
  }
}

export default async function setup(project: TestProject) {
  ensureBuild();
  const snapshot = snapshotApp();
  let app: RunningApp | undefined;
  // Prices that hold still: a random walk could trip a take-profit or stop of a position a
  // later test still expects to be open.
  let prices: FakePrices | undefined;
  try {
    prices = await startFakePrices(await freePort(Number(process.env.E2E_PRICES_PORT ?? 5301)));
    const port = await freePort(Number(process.env.E2E_PORT ?? 5101));
    app = await startApp({ port, label: "sqlite", cwd: snapshot.dir, env: { COINBASE_API_URL: prices.url } });
  } catch (error) {
    await prices?.close();
    snapshot.remove();
    throw error;
  }
  console.log(`[e2e] app (SQLite) listening at ${app.baseUrl}, DATA_DIR ${app.dataDir}`);
  project.provide("baseUrl", app.baseUrl);
  project.provide("appDir", snapshot.dir);
  return async () => {
    if (process.env.E2E_PRINT_SERVER_LOG) console.log(app.log());
    await app.stop();
    await prices?.close();
    snapshot.remove();
  };
}
