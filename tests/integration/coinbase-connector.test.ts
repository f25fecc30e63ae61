// The connector in the app, on both dialects, with Coinbase played by the MSW fake:
// credentials saved -> the worker switches to Coinbase without a restart; webhook -> job ->
// worker -> one Coinbase order of the right contract count with our client order id; an
// ambiguous timeout reconciled by client order id (never a second order); sandbox on ->
// paper trading; /api/health's coinbase_api; Test Connection; profiles/reports providers.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { DEFAULT_PRODUCT_MAP, getProductMap, setProductMap } from "#exchange/coinbase/config.ts";
import { CoinbaseExchangeClient } from "#exchange/coinbase/exchange-client.ts";
import { AuthError } from "#app/core/exchange/errors.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import {
  addExchangeConnection as saveConnection,
  updateExchangeFlags,
} from "#app/services/exchange-connections.server.ts";
import {
  LAST_CALL_SETTING,
  type SwitchingExchange,
  createExchange,
  getExchange,
  getProfilesProvider,
  getRemoteReportsProvider,
  testCoinbaseConnection,
} from "#exchange/factory.ts";
import { checkExchange } from "#app/services/health.server.ts";
import { renewCredentialsVersion } from "#db/queries/exchanges.ts";
import { deleteSetting } from "#db/queries/settings.ts";
import { makeCdpKey, makeExchangeKey } from "#tests/msw/coinbase.ts";
import { useCoinbaseFake } from "#tests/msw/server.ts";
import {
  freshApp,
  registeredAccounts,
  restingTrade,
  sendSignal,
  signalTrade,
  waitFor,
  webhookSecret,
} from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { syncExchangeOrders } from "#worker/monitor/order-sync.ts";
import { startRunner } from "#worker/runner.ts";

const key = makeCdpKey("ec");
const exchangeKey = makeExchangeKey();
const msw = useCoinbaseFake({ cdpKeys: [key], exchangeKeys: [exchangeKey] });
const FAST = { readTimeoutMs: 400, writeTimeoutMs: 400, backoffMs: 1 };

describe.each(testDialects())("Coinbase connector on %s", (dialect) => {
  const app = freshApp(dialect, {}, { file: true });
  const cookies = registeredAccounts(app, { admin: "cb_admin" });
  let secret: string;
  let exchange: SwitchingExchange;
  let connectionId: string;
  const db = () => app.database.db;
  const webhook = (body: Record<string, unknown>) => sendSignal(app, secret, body);
  const executed = (signalId: string) => signalTrade(app, signalId);

  beforeAll(async () => {
    secret = await webhookSecret(app, cookies.admin);
    const simulator = new SimulatorAdapter(db());
    await simulator.ensureAccount();
    exchange = createExchange(db(), {
      simulator,
      config: app.config,
      checkMs: 50,
      clientOptions: FAST,
      adapterOptions: { fillWaitMs: 500, fillPollMs: 5 },
    });
  });
  afterAll(async () => {
    exchange?.stop();
  });
  beforeEach(async () => {
    msw.reset();
    for (const table of ["jobs", "trades", "positions", "signals", "exchanges"] as const)
      await db().deleteFrom(table).execute();
    await deleteSetting(db(), LAST_CALL_SETTING);
    await renewCredentialsVersion(db()); // the rows went behind the repository's back
    await waitFor("back on the simulator", async () => exchange.mode === "simulator", 5000);
  });

  const connectLive = async (sandbox = false) => {
    const view = await saveConnection(
      db(),
      app.config,
      {
        exchangeName: "COINBASE",
        accountName: "Main",
        apiKey: key.apiKey,
        apiSecret: key.apiSecret,
        passphrase: null,
        sandbox,
        isEnabled: true,
      } as never,
      "cb_admin",
    );
    connectionId = view.id;
    // The background refresh (every checkMs, as in the worker) notices the new credentials.
    await waitFor(
      "exchange switched",
      async () => exchange.mode === (sandbox ? "coinbase-sandbox" : "coinbase-live"),
      5000,
    );
    // Saving live credentials reads the account's value for the Exchanges table with the
    // app's secret (exchange-connections.server.ts refreshLiveValue): balance reads, never an
    // order. What a test checks next starts from here.
    for (const r of msw.fake.state.requests)
      expect(`${r.method} ${r.path}`).toMatch(/^GET \/(accounts|cfm\/balance_summary)$/);
    msw.fake.state.requests.length = 0;
  };

  test("no credentials: the simulator; saved live credentials switch to Coinbase without a restart; sandbox on goes back to paper", async () => {
    expect((await exchange.resolve()).mode).toBe("simulator");
    expect(exchange.name).toBe("simulator");
    await connectLive(false);
    expect((await exchange.resolve()).mode).toBe("coinbase-live");
    expect(exchange.name).toBe("coinbase");
    expect(exchange.label).toBe("Coinbase (live trading)");
    await updateExchangeFlags(db(), connectionId, { sandbox: true }, "cb_admin");
    await waitFor("sandbox mode", async () => (await exchange.resolve()).mode === "coinbase-sandbox", 5000);
    expect(exchange.name).toBe("simulator");
    expect(exchange.label).toBe("Coinbase sandbox: paper trading on the simulator at Coinbase prices");
    expect(msw.fake.state.requests).toEqual([]); // choosing never calls Coinbase
  });

  test("webhook -> job -> worker -> one Coinbase order: whole contracts, client order id pd-<uuid>, booked in base units", async () => {
    await connectLive(false);
    const runner = startRunner({ db: db(), exchange, workerId: "cb-w1", pollMs: 5 });
    try {
      const response = await webhook({ action: "buy", symbol: "BTC-PERP", quantity: "0.057", order_type: "market" });
      const { signalId } = (await response.json()) as { signalId: string };
      const trade = await executed(signalId);
      expect(trade.client_order_id).toMatch(/^pd-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      const sent = msw.fake.requestsTo("/orders", "POST");
      expect(sent).toHaveLength(1);
      expect(sent[0]!.body).toMatchObject({
        client_order_id: trade.client_order_id,
        product_id: "BIP-20DEC30-CDE",
        side: "BUY",
        order_configuration: { market_market_ioc: { base_size: "5" } },
        margin_type: "CROSS",
      });
      expect(trade).toMatchObject({ exchange: "coinbase", symbol: "BTC-PERP", side: "buy" });
      expect(Number(trade.executed_quantity)).toBe(0.05);
      expect(Number(trade.executed_price)).toBe(95000);
      expect(Number(trade.fee)).toBeCloseTo(1.43, 8);
      const position = await db()
        .selectFrom("positions")
        .selectAll()
        .where("status", "=", "open")
        .executeTakeFirstOrThrow();
      expect(position).toMatchObject({ symbol: "BTC-PERP", side: "long", entry_trade_id: trade.id });
      expect(Number(position.quantity)).toBe(0.05);
      const log = await db()
        .selectFrom("activity_logs")
        .select("message")
        .where("message", "like", "Order filled on coinbase%")
        .executeTakeFirst();
      expect(log?.message).toBe("Order filled on coinbase: BUY 0.05 BTC-PERP @ 95000 (fee 1.43)");
    } finally {
      await runner.stop();
    }
  });

  test("an order Coinbase took but never answered (timeout) is found by client order id on the retry: one order, booked once", async () => {
    await connectLive(false);
    msw.fake.fail({ method: "POST", path: "/orders", afterProcessing: true, hang: true });
    const runner = startRunner({ db: db(), exchange, workerId: "cb-w2", pollMs: 5 });
    try {
      const response = await webhook({ action: "sell", symbol: "ETH-PERP", quantity: "0.25", order_type: "market" });
      const { signalId } = (await response.json()) as { signalId: string };
      const trade = await executed(signalId);
      expect(msw.fake.requestsTo("/orders", "POST")).toHaveLength(1);
      expect(msw.fake.ordersFor(trade.client_order_id)).toHaveLength(1);
      expect(msw.fake.requestsTo("/orders/historical/batch", "GET").length).toBeGreaterThanOrEqual(1);
      // The trade is booked in its own transaction; the job is marked done right after it.
      const job = await waitFor("the job's end", () =>
        db()
          .selectFrom("jobs")
          .select(["attempts", "status"])
          .where("id", "=", trade.job_id!)
          .where("status", "!=", "active")
          .executeTakeFirst(),
      );
      expect(job).toMatchObject({ status: "completed" });
      expect(Number(job.attempts)).toBe(2);
      const retried = await db()
        .selectFrom("activity_logs")
        .select("message")
        .where("message", "like", `Job execute-signal #${trade.job_id} will retry%`)
        .executeTakeFirstOrThrow();
      expect(retried.message).toContain(
        "did not answer POST /api/v3/brokerage/orders within 400 ms: the outcome is unknown",
      );
      expect(Number(trade.executed_quantity)).toBe(0.2); // 2 contracts of 0.1 ETH
      const positions = await db().selectFrom("positions").selectAll().execute();
      expect(positions).toHaveLength(1);
    } finally {
      await runner.stop();
    }
  });

  test("a Coinbase refusal (HTTP 200, success:false) fails the trade with Coinbase's reason, no retry", async () => {
    await connectLive(false);
    msw.fake.fail({
      method: "POST",
      path: "/orders",
      status: 200,
      body: {
        success: false,
        error_response: {
          error: "INSUFFICIENT_FUND",
          message: "Insufficient balance",
          new_order_failure_reason: "INSUFFICIENT_FUND",
        },
      },
    });
    const runner = startRunner({ db: db(), exchange, workerId: "cb-w3", pollMs: 5 });
    try {
      const { signalId } = (await (
        await webhook({ action: "buy", symbol: "SOL-PERP", quantity: "10", order_type: "market" })
      ).json()) as { signalId: string };
      const trade = await signalTrade(app, signalId, "failed");
      expect(trade.error_message).toBe(
        "Coinbase refused the SLP-20DEC30-CDE order: INSUFFICIENT_FUND (Insufficient balance)",
      );
      expect(msw.fake.requestsTo("/orders", "POST")).toHaveLength(1);
    } finally {
      await runner.stop();
    }
  });

  test("Close (a reduce-only market order) goes to /orders/close_position with the position's contracts and closes it", async () => {
    await connectLive(false);
    const runner = startRunner({ db: db(), exchange, workerId: "cb-w5", pollMs: 5 });
    try {
      const { signalId } = (await (
        await webhook({ action: "buy", symbol: "SOL-PERP", quantity: "15", order_type: "market" })
      ).json()) as { signalId: string };
      await executed(signalId);
      msw.fake.setPrice("SLP-20DEC30-CDE", "190");
      const close = await app.fetch("/api/positions/SOL-PERP/close", { method: "POST", cookie: cookies.admin });
      expect(close.status).toBe(200);
      const closed = await waitFor("position closed", async () =>
        db()
          .selectFrom("positions")
          .selectAll()
          .where("symbol", "=", "SOL-PERP")
          .where("status", "=", "closed")
          .executeTakeFirst(),
      );
      expect(msw.fake.requestsTo("/orders/close_position", "POST").map((r) => r.body)).toEqual([
        { client_order_id: expect.stringMatching(/^pd-[0-9a-f-]{36}$/), product_id: "SLP-20DEC30-CDE", size: "3" },
      ]);
      // (190 − 180) × 15 SOL = 150 gross, less the fake's fees 0.81 (entry) and 0.86 (exit): 148.33 net (docs/pnl.md).
      expect(Number(closed.realized_pnl)).toBe(148.33);
      expect(msw.fake.state.positions.size).toBe(0);
      const trades = await db()
        .selectFrom("trades")
        .select(["exchange", "reduce_only", "status"])
        .where("symbol", "=", "SOL-PERP")
        .orderBy("created_at")
        .execute();
      expect(trades.map((t) => `${t.exchange} ${Number(t.reduce_only)} ${t.status}`)).toEqual([
        "coinbase 0 executed",
        "coinbase 1 executed",
      ]);
    } finally {
      await runner.stop();
    }
  });

  test("a limit order resting on Coinbase is booked by the order sync once Coinbase fills it", async () => {
    await connectLive(false);
    const runner = startRunner({ db: db(), exchange, workerId: "cb-w4", pollMs: 5 });
    try {
      const { signalId } = (await (
        await webhook({ action: "buy", symbol: "ETH-PERP", quantity: "0.3", order_type: "limit", price: "3300.2" })
      ).json()) as { signalId: string };
      const resting = await restingTrade(app, signalId);
      expect(resting.status).toBe("pending");
      expect(msw.fake.requestsTo("/orders", "POST")[0]!.body).toMatchObject({
        order_configuration: { limit_limit_gtc: { base_size: "3", limit_price: "3300" } },
      });
      expect(await syncExchangeOrders(db(), exchange)).toBe(0); // still open: nothing to book
      msw.fake.fillOrder(resting.order_id!);
      expect(await syncExchangeOrders(db(), exchange)).toBe(1);
      const trade = await executed(signalId);
      expect(Number(trade.executed_price)).toBe(3300);
      expect(Number(trade.executed_quantity)).toBe(0.3);
      expect(await syncExchangeOrders(db(), exchange)).toBe(0); // booked once
      expect(await db().selectFrom("positions").selectAll().execute()).toHaveLength(1);
    } finally {
      await runner.stop();
    }
  });

  test("stored secrets that cannot be decrypted (APP_SECRET changed) stop trading with a clear reason instead of falling back to paper", async () => {
    await connectLive(false);
    const other = { ...app.config, appSecret: "another-app-secret-0123456789abcdef0123456789" };
    const stranded = createExchange(db(), { config: other, watch: false });
    expect((await stranded.resolve()).mode).toBe("unavailable");
    const error = await stranded
      .placeOrder({ clientOrderId: "x", symbol: "BTC-PERP", side: "buy", type: "market", quantity: "1" })
      .catch((e) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect(error.message).toMatch(/^Stored Coinbase credentials cannot be used \(.+\): re-enter them in API Settings$/);
    expect(error.message).not.toContain(key.apiSecret.slice(40, 80));
    expect((await stranded.testConnection()).success).toBe(false);
    const health = await checkExchange({ db: db(), config: other });
    expect(health.status).toBe("error");
    expect(msw.fake.state.requests).toEqual([]);
  });

  test("the exchange the services share reads the saved connection with its app's APP_SECRET, not the process's", async () => {
    // This app's secret is not the process's (tests/setup/app.ts): createApp bound it to the database.
    expect(app.config.appSecret).not.toBe(process.env.APP_SECRET);
    await connectLive(false);
    expect((await getExchange(db()).resolve()).mode).toBe("coinbase-live");
    expect(getExchange(db())).toBe(getExchange(db(), app.config)); // one per database and secret
    const other = { ...app.config, appSecret: "another-app-secret-0123456789abcdef0123456789" };
    expect((await getExchange(db(), other).resolve()).mode).toBe("unavailable");
    expect(msw.fake.state.requests).toEqual([]);
  });

  test("coinbase_api health: the mode, and whether the last Coinbase call worked", async () => {
    const context = { db: db(), config: app.config };
    expect((await checkExchange(context)).message).toMatch(/^Simulator \(paper trading\)/);
    await connectLive(false);
    expect(await checkExchange(context)).toEqual({
      component: "coinbase_api",
      status: "warning",
      message: "Coinbase (live trading): no Coinbase call yet",
    });
    msw.fake.fail({ path: "/accounts", status: 500, times: 3 });
    await expect(exchange.getBalances()).rejects.toThrow("Coinbase is unavailable (HTTP 500)");
    const failing = await waitFor("failure recorded", async () => {
      const entry = await checkExchange(context);
      return entry.status === "error" ? entry : null;
    });
    expect(failing.message).toMatch(
      /^Coinbase \(live trading\): last Coinbase call GET \/api\/v3\/brokerage\/accounts \d+ s ago failed: Coinbase is unavailable \(HTTP 500\)/,
    );
    await exchange.getBalances();
    const working = await waitFor("success recorded", async () => {
      const entry = await checkExchange(context);
      return entry.status === "online" ? entry : null;
    });
    expect(working.message).toMatch(
      /^Coinbase \(live trading\): last Coinbase call GET \/api\/v3\/brokerage\/\S+ \d+ s ago worked$/,
    );

    await updateExchangeFlags(db(), connectionId, { sandbox: true }, "cb_admin");
    await setPrice(db(), "BTC-PERP", "95000", "coinbase");
    const sandbox = await checkExchange(context);
    expect(sandbox.message).toMatch(
      /^Coinbase sandbox: paper trading on the simulator at Coinbase prices \(Coinbase public spot prices\); last Coinbase call/,
    );
  });

  test("Test Connection: read-only; sandbox keys are verified on production and the message says orders stay on paper; failures say why", async () => {
    const ok = await testCoinbaseConnection(
      { apiKey: key.apiKey, apiSecret: key.apiSecret, passphrase: null, sandbox: true },
      { clientOptions: FAST },
    );
    expect(ok).toEqual({
      success: true,
      message:
        "Connected to Coinbase Advanced Trade (production): the API key works, 1 account visible. Sandbox mode is on: orders are paper-traded by the simulator at Coinbase prices (Coinbase's sandbox never fills)",
    });
    expect(msw.fake.state.requests.map((r) => `${r.method} ${r.host}${r.path}`)).toEqual([
      "GET api.coinbase.com/accounts",
    ]);
    const stranger = makeCdpKey("ed25519");
    const refused = await testCoinbaseConnection(
      { apiKey: stranger.apiKey, apiSecret: stranger.apiSecret, passphrase: null, sandbox: false },
      { clientOptions: FAST },
    );
    expect(refused.success).toBe(false);
    expect(refused.message).toMatch(/^Coinbase rejected the API key \(401 Unauthorized\)/);
    const garbage = await testCoinbaseConnection({
      apiKey: "k",
      apiSecret: "not-a-key",
      passphrase: null,
      sandbox: false,
    });
    expect(garbage).toEqual({
      success: false,
      message: "The Coinbase API secret is neither an EC private key PEM nor a base64 Ed25519 key (64 bytes)",
    });
    const viaExchange = await testCoinbaseConnection({ ...exchangeKey, sandbox: false }, { clientOptions: FAST });
    expect(viaExchange).toEqual({
      success: true,
      message: "Connected to Coinbase Exchange (production): 1 profile visible",
    });
  });

  test("profiles and reports: Coinbase Exchange only with a passphrase, else null (the simulator's)", async () => {
    expect(await getProfilesProvider(db(), { config: app.config })).toBeNull();
    await connectLive(false);
    expect(await getRemoteReportsProvider(db(), { config: app.config })).toBeNull();
    const withPassphrase = {
      resolveCredentials: async () => ({
        ...exchangeKey,
        sandbox: false,
        source: "settings" as const,
        connectionId: null,
      }),
    };
    const provider = await getProfilesProvider(db(), withPassphrase);
    expect(provider).toBeInstanceOf(CoinbaseExchangeClient);
    expect((await provider!.listProfiles()).map((p) => p.name)).toEqual(["default"]);
    expect(await getRemoteReportsProvider(db(), withPassphrase)).toBeInstanceOf(CoinbaseExchangeClient);
  });

  test("the symbol map: defaults, a stored override the exchange picks up, and validation", async () => {
    expect(await getProductMap(db())).toEqual(DEFAULT_PRODUCT_MAP);
    await expect(setProductMap(db(), { "DOGE-PERP": "DOG-20DEC30-CDE" })).rejects.toThrow("Unknown symbol DOGE-PERP");
    await expect(setProductMap(db(), { "BTC-PERP": "not an id" })).rejects.toThrow("not a Coinbase product id");
    await connectLive(false);
    try {
      await setProductMap(db(), { "BTC-PERP": "bip-20dec30-cde" });
      expect((await getProductMap(db()))["BTC-PERP"]).toBe("BIP-20DEC30-CDE");
      await setProductMap(db(), { "BTC-PERP": "BIT-28NOV26-CDE" });
      await Bun.sleep(120); // the next check (every checkMs) sees the new map
      const error = await exchange
        .placeOrder({ clientOrderId: "map-1", symbol: "BTC-PERP", side: "buy", type: "market", quantity: "0.05" })
        .catch((e) => e);
      expect(error.message).toBe(
        "Coinbase has no product BIT-28NOV26-CDE (mapped to BTC-PERP): check the symbol map in settings",
      );
    } finally {
      await setProductMap(db(), { "BTC-PERP": "BIP-20DEC30-CDE" });
    }
  });
});
