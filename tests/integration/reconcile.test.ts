// The exchange reconciled (issue 11), on both dialects: the reconciliation pass finds each kind
// of drift (a position the app does not know, a quantity that differs, a position closed
// outside the app) on the simulator and on the fake Coinbase, alarms only after two passes,
// clears by itself when the books agree again, and a trader resolves each by adopt or close
// through POST /api/drifts/{id}/resolve; a viewer may not.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { Big, D } from "#app/core/decimal.ts";
import { CoinbaseAdapter } from "#exchange/coinbase/adapter.ts";
import { AdvancedTradeClient } from "#exchange/coinbase/advanced-trade.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import type { ExchangeAdapter } from "#app/core/exchange/types.ts";
import { positionRowToPosition } from "#db/queries/positions.ts";
import { type CoinbaseServer, startCoinbaseServer } from "#tests/fakes/coinbase-server.ts";
import { makeCdpKey } from "#tests/msw/coinbase.ts";
import {
  type TestApp,
  createTestApp,
  registerVia,
  sendSignal,
  sendSignalExecuted,
  waitFor,
  webhookSecret,
} from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { reconcileOnce } from "#worker/monitor/reconcile.ts";
import { type Runner, startRunner } from "#worker/runner.ts";

const cdpKey = makeCdpKey("ec");

interface DriftJson {
  id: string;
  symbol: string;
  kind: string;
  appSide: string | null;
  appQuantity: string;
  exchangeSide: string | null;
  exchangeQuantity: string;
  status: string;
}

describe.each(testDialects())("reconciliation on %s", (dialect) => {
  let app: TestApp;
  let admin: string;
  let trader: string;
  let viewer: string;
  let secret: string;
  let runner: Runner | null = null;
  let fake: CoinbaseServer;
  const db = () => app.database.db;
  const sim = () => new SimulatorAdapter(db());

  const drifts = async () => (await (await app.fetch("/api/drifts", { cookie: viewer })).json()) as DriftJson[];
  const resolve = (id: string, action: string, cookie = trader) =>
    app.fetch(`/api/drifts/${id}/resolve`, { method: "POST", cookie, json: { action } });
  const openPosition = async (symbol: string) =>
    (await db()
      .selectFrom("positions")
      .selectAll()
      .where("symbol", "=", symbol)
      .where("status", "=", "open")
      .executeTakeFirst()) ?? null;
  const switchExchange = async (exchange: ExchangeAdapter) => {
    await runner?.stop();
    runner = startRunner({ db: db(), exchange, workerId: "w1", pollMs: 3 });
  };
  const webhook = async (action: string, symbol: string, quantity: string) => {
    expect(
      (await sendSignal(app, secret, { action, symbol, quantity, order_type: "market", id: `r-${Math.random()}` }))
        .status,
    ).toBe(200);
    await waitFor(`${symbol} open`, () => openPosition(symbol), 15_000, 10);
  };
  /** A profile row of the simulator's book changed outside the app. */
  const setSimPosition = async (symbol: string, side: "long" | "short" | "flat", quantity: string, entry = "100") => {
    const profileId = await sim().ensureAccount();
    await db().deleteFrom("sim_positions").where("profile_id", "=", profileId).where("symbol", "=", symbol).execute();
    await db()
      .insertInto("sim_positions")
      .values({
        profile_id: profileId,
        symbol,
        side,
        quantity,
        entry_price: entry,
        margin: "0",
        leverage: 1,
        margin_type: "cross",
        realized_pnl: "0",
        updated_at: Date.now(),
      })
      .execute();
  };

  beforeAll(async () => {
    fake = await startCoinbaseServer({ cdpKeys: [cdpKey] });
    app = await createTestApp(dialect, {}, { file: true });
    admin = (await registerVia(app, "rec_admin")).cookie;
    trader = (await registerVia(app, "rec_trader", "secret123", "trader")).cookie;
    viewer = (await registerVia(app, "rec_viewer", "secret123", "viewer")).cookie;
    secret = await webhookSecret(app, admin);
    await sim().ensureAccount();
  });
  afterAll(async () => {
    await runner?.stop();
    await app?.cleanup();
    await fake?.stop();
  });
  beforeEach(async () => {
    await runner?.stop();
    runner = null;
    for (const table of ["trades", "jobs", "positions", "sim_orders", "signals", "sim_positions", "drifts"] as const)
      await db().deleteFrom(table).execute();
    await db().updateTable("balances").set({ available: "100000", hold: "0" }).execute();
    for (const [symbol, price] of [
      ["ETH-PERP", "3000"],
      ["BTC-PERP", "100000"],
      ["SOL-PERP", "150"],
      ["XRP-PERP", "2"],
    ] as const)
      await setPrice(db(), symbol, price, "test");
  });

  test("simulator: each drift kind found after two passes, resolved by adopt and close; a viewer may not", async () => {
    await switchExchange(sim());
    await webhook("buy", "ETH-PERP", "1");
    await webhook("buy", "BTC-PERP", "0.01");
    const streak = new Map<string, number>();
    expect((await reconcileOnce(db(), sim(), { streak })).findings).toEqual([]); // the books agree

    // Outside the app: ETH grew to 1.5, BTC was closed, a SOL short of 3 and an XRP long of 100 appeared.
    await setSimPosition("ETH-PERP", "long", "1.5", "3001.5");
    await setSimPosition("BTC-PERP", "flat", "0");
    await setSimPosition("SOL-PERP", "short", "3", "152");
    await setSimPosition("XRP-PERP", "long", "100", "2.1");
    const first = await reconcileOnce(db(), sim(), { streak });
    expect(first.findings).toHaveLength(4);
    expect(first.opened).toBe(0); // one pass may fall between a fill and its booking
    expect(await drifts()).toEqual([]);
    expect((await reconcileOnce(db(), sim(), { streak })).opened).toBe(4);
    const found = await drifts();
    expect(found.map((d) => [d.symbol, d.kind, d.appSide, d.appQuantity, d.exchangeSide, d.exchangeQuantity])).toEqual([
      ["BTC-PERP", "missing_on_exchange", "long", "0.01", null, "0"],
      ["ETH-PERP", "quantity_mismatch", "long", "1", "long", "1.5"],
      ["SOL-PERP", "unknown_position", null, "0", "short", "3"],
      ["XRP-PERP", "unknown_position", null, "0", "long", "100"],
    ]);
    // The same drift on the next pass: no second alarm.
    expect((await reconcileOnce(db(), sim(), { streak })).opened).toBe(0);
    const logs = (
      await db()
        .selectFrom("activity_logs")
        .select("message")
        .where("message", "like", "Drift on simulator:%")
        .execute()
    ).map((r) => r.message);
    expect(logs).toContain(
      "Drift on simulator: Position on the exchange the app does not know: SOL-PERP is short 3 on the exchange, flat in the app",
    );
    expect(logs).toHaveLength(4);
    const id = (symbol: string) => found.find((d) => d.symbol === symbol)!.id;

    // A viewer reads, may not resolve; a bad action is a 400.
    expect((await resolve(id("SOL-PERP"), "adopt", viewer)).status).toBe(403);
    expect((await resolve(id("SOL-PERP"), "keep")).status).toBe(400);

    // Adopt the unknown short: booked at the exchange's entry, no fee, source reconcile.
    const adopted = await resolve(id("SOL-PERP"), "adopt");
    expect(adopted.status).toBe(200);
    expect(((await adopted.json()) as { drift: DriftJson }).drift.status).toBe("resolved");
    const sol = positionRowToPosition((await openPosition("SOL-PERP"))!);
    expect(sol).toMatchObject({ side: "short", remainingQuantity: "3", entryPrice: "152" });
    const solTrade = await db()
      .selectFrom("trades")
      .selectAll()
      .where("symbol", "=", "SOL-PERP")
      .executeTakeFirstOrThrow();
    expect([solTrade.source, solTrade.side, D(solTrade.fee).toString(), solTrade.status]).toEqual([
      "reconcile",
      "sell",
      "0",
      "executed",
    ]);
    expect((await resolve(id("SOL-PERP"), "adopt")).status).toBe(409); // already resolved

    // Adopt the larger ETH: the app's position becomes 1.5 (0.5 booked at the mark, 3000).
    expect((await resolve(id("ETH-PERP"), "adopt")).status).toBe(200);
    expect(positionRowToPosition((await openPosition("ETH-PERP"))!).remainingQuantity).toBe("1.5");

    // BTC closed outside: adopting closes the app's position at the mark.
    expect((await resolve(id("BTC-PERP"), "adopt")).status).toBe(200);
    expect(await openPosition("BTC-PERP")).toBeNull();

    // Close the unknown XRP long: adopted, then closed at market on the exchange.
    expect((await resolve(id("XRP-PERP"), "close")).status).toBe(200);
    await waitFor("XRP closed", async () => (await openPosition("XRP-PERP")) === null, 15_000, 10);
    expect((await sim().getPositions()).map((p) => p.symbol)).toEqual(["ETH-PERP", "SOL-PERP"]);

    // The books agree now: nothing found, nothing open.
    expect((await reconcileOnce(db(), sim(), { streak })).findings).toEqual([]);
    expect(await drifts()).toEqual([]);
  });

  test("simulator: a drift clears by itself when the books agree again", async () => {
    await switchExchange(sim());
    await webhook("buy", "ETH-PERP", "1");
    const streak = new Map<string, number>();
    await setSimPosition("ETH-PERP", "long", "2", "3001.5");
    await reconcileOnce(db(), sim(), { streak });
    await reconcileOnce(db(), sim(), { streak });
    expect((await drifts()).map((d) => d.kind)).toEqual(["quantity_mismatch"]);
    // The alarm is on the dashboard's and Positions' server render, with its Adopt and Close forms.
    const page = await (await app.fetch("/positions", { cookie: trader })).text();
    expect(page).toContain("The exchange and the app disagree");
    expect(page).toContain("Quantity differs from the exchange: ETH-PERP is long 2 on the exchange, long 1 in the app");
    expect(page).toContain('value="drift-adopt"');
    expect(await (await app.fetch("/dashboard", { cookie: viewer })).text()).toContain(
      "The exchange and the app disagree",
    );
    expect(await (await app.fetch("/dashboard", { cookie: viewer })).text()).not.toContain('value="drift-adopt"'); // a viewer reads only
    await setSimPosition("ETH-PERP", "long", "1", "3001.5");
    expect((await reconcileOnce(db(), sim(), { streak })).cleared).toBe(1);
    expect(await drifts()).toEqual([]);
    const row = await db().selectFrom("drifts").select(["status", "resolution"]).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: "cleared", resolution: "The exchange and the app agree again" });
  });

  test("the Positions page's Adopt form without JavaScript: a redirect with the toast, the drift resolved", async () => {
    await switchExchange(sim());
    await setSimPosition("SOL-PERP", "long", "2", "150");
    const streak = new Map<string, number>();
    await reconcileOnce(db(), sim(), { streak });
    await reconcileOnce(db(), sim(), { streak });
    const [drift] = await drifts();
    const denied = await app.fetch("/positions", {
      method: "POST",
      cookie: viewer,
      form: { intent: "drift-adopt", id: drift!.id },
    });
    expect(denied.status).toBe(403);
    const posted = await app.fetch("/positions", {
      method: "POST",
      cookie: trader,
      form: { intent: "drift-adopt", id: drift!.id },
    });
    expect(posted.status).toBe(302);
    expect(posted.headers.get("location")).toBe("/positions");
    const after = await (await app.fetch("/positions", { cookie: trader })).text();
    expect(after).not.toContain("The exchange and the app disagree");
    expect(positionRowToPosition((await openPosition("SOL-PERP"))!)).toMatchObject({
      side: "long",
      remainingQuantity: "2",
      entryPrice: "150",
    });
  });

  test("fake Coinbase: each drift kind; an unknown short closed on Coinbase, a mismatch and an outside close adopted", async () => {
    const client = new AdvancedTradeClient({
      keys: cdpKey,
      baseUrl: fake.url,
      publicBaseUrl: fake.url,
      readTimeoutMs: 2000,
      writeTimeoutMs: 2000,
    });
    const coinbase = new CoinbaseAdapter({ client, fillPollMs: 5 });
    await switchExchange(coinbase);
    // 2 SOL contracts of 5 = a short of 10 SOL, opened in Coinbase's own app.
    fake.coinbase.state.positions.set("SLP-20DEC30-CDE", { contracts: new Big("-2"), entry: new Big("181") });
    const streak = new Map<string, number>();
    await reconcileOnce(db(), coinbase, { streak });
    expect((await reconcileOnce(db(), coinbase, { streak })).opened).toBe(1);
    const [drift] = await drifts();
    expect(drift).toMatchObject({
      symbol: "SOL-PERP",
      kind: "unknown_position",
      exchangeSide: "short",
      exchangeQuantity: "10",
    });

    expect((await resolve(drift!.id, "close")).status).toBe(200);
    await waitFor("SOL closed", async () => (await openPosition("SOL-PERP")) === null, 15_000, 10);
    // One close of the SOL position went to Coinbase (its close_position call); Coinbase is flat.
    const closes = fake.coinbase
      .requestsTo("/orders/close_position", "POST")
      .map((r) => r.body as { product_id: string });
    expect(closes.map((c) => c.product_id)).toEqual(["SLP-20DEC30-CDE"]);
    expect(fake.coinbase.requestsTo(/^\/orders$/, "POST")).toEqual([]);
    expect(fake.coinbase.state.positions.size).toBe(0);
    expect((await reconcileOnce(db(), coinbase, { streak })).findings).toEqual([]);
    const trades = await db()
      .selectFrom("trades")
      .select(["source", "side", "status"])
      .where("symbol", "=", "SOL-PERP")
      .orderBy("created_at")
      .execute();
    expect(trades).toEqual([
      { source: "reconcile", side: "sell", status: "executed" },
      { source: "manual", side: "buy", status: "executed" },
    ]);
    // Short 10 adopted at Coinbase's entry 181, bought back at 180 with a 0.54 fee: +9.46 net.
    const realized = await db()
      .selectFrom("trades")
      .select("realized_pnl")
      .where("symbol", "=", "SOL-PERP")
      .where("side", "=", "buy")
      .executeTakeFirstOrThrow();
    expect(D(realized.realized_pnl!).toString()).toBe("9.46");

    // A quantity mismatch and a position closed outside the app, on Coinbase too.
    await sendSignalExecuted(app, secret, {
      action: "buy",
      symbol: "ETH-PERP",
      quantity: "0.3",
      order_type: "market",
      id: "cb-eth",
    });
    fake.coinbase.state.positions.set("ETP-20DEC30-CDE", { contracts: new Big("5"), entry: new Big("3400") }); // 0.5 ETH: 0.2 more, bought elsewhere
    await reconcileOnce(db(), coinbase, { streak });
    expect((await reconcileOnce(db(), coinbase, { streak })).opened).toBe(1);
    const [mismatch] = await drifts();
    expect(mismatch).toMatchObject({
      symbol: "ETH-PERP",
      kind: "quantity_mismatch",
      appQuantity: "0.3",
      exchangeQuantity: "0.5",
    });
    expect((await resolve(mismatch!.id, "adopt")).status).toBe(200);
    expect(positionRowToPosition((await openPosition("ETH-PERP"))!).remainingQuantity).toBe("0.5");
    expect((await reconcileOnce(db(), coinbase, { streak })).findings).toEqual([]); // agreed: the streak starts again
    fake.coinbase.state.positions.delete("ETP-20DEC30-CDE"); // closed on Coinbase's own site
    await reconcileOnce(db(), coinbase, { streak });
    expect((await reconcileOnce(db(), coinbase, { streak })).opened).toBe(1);
    const [missing] = await drifts();
    expect(missing).toMatchObject({
      symbol: "ETH-PERP",
      kind: "missing_on_exchange",
      appQuantity: "0.5",
      exchangeSide: null,
    });
    expect((await resolve(missing!.id, "adopt")).status).toBe(200);
    expect(await openPosition("ETH-PERP")).toBeNull();
    expect((await reconcileOnce(db(), coinbase, { streak })).findings).toEqual([]);
    expect(fake.coinbase.requestsTo(/^\/orders$/, "POST")).toHaveLength(1); // only the ETH entry: adopting sends nothing
  });
});
