// An app trading live on the fake Coinbase (tests/msw/coinbase.ts): its paper account made,
// a Coinbase connection saved with sandbox off (as an admin would on Exchanges), and a
// switching exchange, tuned for tests (short timeouts, fast polls), that has resolved to it.
import type { Kysely } from "kysely";
import { afterAll, beforeAll } from "vitest";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { addExchangeConnection as saveConnection } from "#app/services/exchange-connections.server.ts";
import { type SwitchingExchange, createExchange } from "#exchange/factory.ts";
import type { Dialect } from "#db/client.ts";
import type { DB } from "#db/schema.ts";
import type { makeCdpKey } from "#tests/msw/coinbase.ts";
import { type Runner, startRunner } from "#worker/runner.ts";
import { type TestApp, freshApp, registerVia, waitFor, webhookSecret } from "./app.ts";

export async function goLiveOnFakeCoinbase(
  app: TestApp,
  key: ReturnType<typeof makeCdpKey>,
  by: string,
): Promise<SwitchingExchange> {
  const db = app.database.db;
  const simulator = new SimulatorAdapter(db);
  await simulator.ensureAccount();
  const exchange = createExchange(db, {
    simulator,
    config: app.config,
    checkMs: 50,
    clientOptions: { readTimeoutMs: 400, writeTimeoutMs: 400, backoffMs: 1 },
    adapterOptions: { fillWaitMs: 500, fillPollMs: 5 },
  });
  await saveConnection(
    db,
    app.config,
    {
      exchangeName: "COINBASE",
      accountName: "Main",
      apiKey: key.apiKey,
      apiSecret: key.apiSecret,
      passphrase: null,
      sandbox: false,
      isEnabled: true,
    } as never,
    by,
  );
  await waitFor("live on Coinbase", async () => (await exchange.resolve()).mode === "coinbase-live", 5000);
  return exchange;
}

export interface LiveCoinbaseSuite {
  app: TestApp;
  db(): Kysely<DB>;
  /** The admin's session cookie. */
  admin: string;
  secret: string;
  exchange: SwitchingExchange;
  /** The worker: stopped after the block; a test that restarts it sets it here. */
  runner: Runner | null;
  /** Stops the worker (it drains its running jobs first). */
  stopWorker(): Promise<void>;
  /** Starts the worker `workerId` again on the live exchange (stopping the one running), polling every 5 ms. */
  startWorker(workerId: string, options?: { concurrency?: number }): Promise<void>;
}

/**
 * A describe block's app live on the fake Coinbase: before its tests a fresh app (this process's
 * APP_SECRET, SQLite in a file the worker shares) with `<name>_admin` registered, its webhook
 * secret, the live exchange and, unless `worker: false`, a runner `<name>-w1`; all stopped after.
 */
export function liveCoinbaseSuite(
  dialect: Dialect,
  key: ReturnType<typeof makeCdpKey>,
  name: string,
  options: { worker?: boolean } = {},
): LiveCoinbaseSuite {
  const app = freshApp(dialect, { APP_SECRET: process.env.APP_SECRET! }, { file: true });
  const live = {
    app,
    db: () => app.database.db,
    runner: null,
    async stopWorker() {
      await live.runner?.stop();
      live.runner = null;
    },
    async startWorker(workerId: string, runnerOptions: { concurrency?: number } = {}) {
      await live.stopWorker();
      live.runner = startRunner({
        db: app.database.db,
        exchange: live.exchange,
        workerId,
        pollMs: 5,
        ...runnerOptions,
      });
    },
  } as LiveCoinbaseSuite;
  beforeAll(async () => {
    live.admin = (await registerVia(live.app, `${name}_admin`)).cookie;
    live.secret = await webhookSecret(live.app, live.admin);
    live.exchange = await goLiveOnFakeCoinbase(live.app, key, `${name}_admin`);
    if (options.worker !== false)
      live.runner = startRunner({
        db: live.app.database.db,
        exchange: live.exchange,
        workerId: `${name}-w1`,
        pollMs: 5,
      });
  });
  afterAll(async () => {
    await live.runner?.stop();
    live.exchange?.stop();
  });
  return live;
}
