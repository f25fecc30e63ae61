// An app trading live on the fake Coinbase (tests/msw/coinbase.ts): its paper account made,
// a Coinbase connection saved with sandbox off (as an admin would on Exchanges), and a
// switching exchange, tuned for tests (short timeouts, fast polls), that has resolved to it.
import type { Kysely } from "kysely";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { LIVE_PRICE_SOURCE } from "#app/core/price-source.ts";
import { type RuleState, parseRuleState } from "#app/core/rules/index.ts";
import type { TradingConfig } from "#app/core/schemas/trading-config.ts";
import { saveTradingConfig } from "#db/queries/trading-state.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { tradingProductsFor } from "#exchange/trading-product.ts";
import type { useCoinbaseFake } from "#tests/msw/server.ts";
import { processPriceTicks } from "#worker/monitor/price-loop.ts";
import { createRulesMonitor } from "#worker/monitor/rules-monitor.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { addExchangeConnection as saveConnection } from "#app/services/exchange-connections.server.ts";
import { type SwitchingExchange, createExchange } from "#exchange/factory.ts";
import type { Dialect } from "#db/client.ts";
import type { DB } from "#db/schema.ts";
import type { makeCdpKey } from "#tests/msw/coinbase.ts";
import { type Runner, startRunner } from "#worker/runner.ts";
import {
  type TestApp,
  freshApp,
  jobsIdle,
  openPositionOn,
  registerVia,
  sendSignal,
  waitFor,
  webhookSecret,
} from "./app.ts";

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

/**
 * Position rules on BTC-PERP (BIP-20DEC30-CDE) live on the fake Coinbase: before each test the
 * fake is reset and the trades, jobs, positions, signals and log lines are gone, `config` saved.
 * `tick` moves Coinbase's price and runs the monitor's closes at it; `open` opens a long by webhook.
 */
export function liveBtcRules(live: LiveCoinbaseSuite, msw: ReturnType<typeof useCoinbaseFake>, config: TradingConfig) {
  const { app, db } = live;
  beforeEach(async () => {
    msw.reset(); // the fake is shared by both dialects' runs
    for (const table of ["trades", "jobs", "positions", "signals", "activity_logs"] as const)
      await db().deleteFrom(table).execute();
    await saveTradingConfig(db(), config);
  });
  const position = (id: string) =>
    db().selectFrom("positions").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  const ruleState = async (id: string): Promise<RuleState> =>
    parseRuleState(JSON.parse(String((await position(id)).rule_state)));
  return {
    /** A live tick: Coinbase's price moves, the monitor evaluates at it, its closes run. */
    async tick(monitor: ReturnType<typeof createRulesMonitor>, price: string) {
      msw.fake.setPrice("BIP-20DEC30-CDE", price);
      const at = Date.now();
      await setPrice(db(), "BTC-PERP", price, LIVE_PRICE_SOURCE, { at });
      await processPriceTicks(db(), [{ symbol: "BTC-PERP", price, source: LIVE_PRICE_SOURCE, at }], monitor, {
        exchangeName: "coinbase",
      });
      await jobsIdle(app);
    },
    /** The monitor as the live worker makes it (Coinbase's contracts). */
    liveMonitor: () =>
      createRulesMonitor(db(), { exchange: live.exchange, products: tradingProductsFor(db(), live.exchange) }),
    /** A long of `quantity` BTC opened by a market alert, once the worker has booked it. */
    async open(quantity: string) {
      const response = await sendSignal(app, live.secret, {
        action: "buy",
        symbol: "BTC-PERP",
        quantity,
        order_type: "market",
        id: `rules-${Math.random()}`,
      });
      expect(response.status).toBe(200);
      return openPositionOn(app, "BTC-PERP");
    },
    position,
    ruleState,
    /** The back-off over (as if its time had passed): the trigger may be requested again. */
    async endHolds(id: string) {
      await db()
        .updateTable("positions")
        .set({ rule_state: JSON.stringify({ ...(await ruleState(id)), holdUntil: {} }) })
        .where("id", "=", id)
        .execute();
    },
    /** The sizes of the closes Coinbase was sent, in order. */
    closeSizes: () =>
      msw.fake.requestsTo("/orders/close_position", "POST").map((r) => (r.body as { size?: string }).size),
    /** The next `times` closes answered as Coinbase refuses an order (HTTP 200, success false). */
    refuseCloses(errorResponse: Record<string, string>, times = 1) {
      msw.fake.fail({
        method: "POST",
        path: "/orders/close_position",
        status: 200,
        body: { success: false, error_response: errorResponse },
        times,
      });
    },
  };
}
