// Paper margin (docs/decisions/024-paper-margin.md), on both dialects: orders go through the
// worker's executeTrade to the simulator (slippage 0 so entries are the prices set; taker fee
// 0.0006), prices are driven with setPrice + processPriceTicks (the price loop's tick).
//
// Liquidation figures (maintenance 0.5 % for BTC and ETH; app/core/orders/liquidation.ts):
// - isolated BTC long 0.1 @ 95,000, 10x: margin 950, fee 5.7. Liq (9500 − 950) / (0.1 × 0.995)
//   = 85,929.648… → 85,929.7 (tick 0.1, towards the entry). Closed there: P&L −907.03, fee
//   5.155782, margin back 950 − 907.03 − 5.155782 = 37.814218; available 10000 − 955.7 +
//   37.814218 = 9082.114218; the trade's FIFO net −907.03 − 5.7 − 5.155782 = −917.885782.
// - isolated ETH short 2 @ 3,000, 10x: (6000 + 600) / (2 × 1.005) = 3283.582… → 3283.58;
//   P&L −567.16, fee 3.940296; available 10000 − 603.6 + 28.899704 = 9425.299704.
// - cross ETH long 2 @ 3,000, 10x on a 1,000 account: free 396.4 after margin 600 and fee 3.6;
//   cushion 996.4: (6000 − 996.4) / 1.99 = 2514.3718… → 2514.38; P&L −971.24, fee 3.017256;
//   available 396.4 + 600 − 971.24 − 3.017256 = 22.142744 = 1000 − 977.857256 (the FIFO net).
// - cross BTC short 0.1 @ 95,000, 10x on a 2,000 account: free 1044.3; cushion 1994.3:
//   11494.3 / 0.1005 = 114371.144… → 114371.1; P&L −1937.11, fee 6.862266; available 50.327734.
import { beforeAll, beforeEach, describe, expect, test } from "vitest";
import { D } from "#app/core/decimal.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import type { MarginType, OrderSide } from "#app/core/exchange/types.ts";
import { DEFAULT_TRADING_CONFIG } from "#app/core/schemas/trading-config.ts";
import { listPositionViews } from "#app/services/positions.server.ts";
import { positionRowToPosition } from "#db/queries/positions.ts";
import { getTrade, insertTrade } from "#db/queries/trades.ts";
import { saveTradingConfig } from "#db/queries/trading-state.ts";
import { newId } from "#db/queries/util.ts";
import { testDialects } from "#tests/setup/db.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";
import { executeTrade } from "#worker/execution.ts";
import { processPriceTicks } from "#worker/monitor/price-loop.ts";
import {
  applyPaperMargin,
  bookFunding,
  bookMissedLiquidations,
  fundingSettings,
} from "#worker/monitor/paper-margin.ts";
import { applyFunding, fundingBoundary } from "#exchange/simulator/funding.ts";
import { liquidateAccounts } from "#exchange/simulator/liquidation.ts";
import { getClosedTradesPnl, getNetPnlSince, getPerformanceStats } from "#app/services/statistics.server.ts";
import { getPortfolioSummary, resetStatistics } from "#app/services/positions.server.ts";
import { buildLedger } from "#reports/ledger.ts";

describe.each(testDialects())("paper margin on %s", (dialect) => {
  const fresh = freshDatabase(dialect);
  const db = () => fresh.db;
  const sim = () => new SimulatorAdapter(db(), { slippage: "0" });
  let profileId: string;

  const order = async (
    symbol: string,
    side: OrderSide,
    quantity: string,
    options: {
      leverage?: number;
      marginType?: MarginType;
      reduceOnly?: boolean;
      type?: "market" | "limit";
      price?: string;
    } = {},
  ) => {
    const id = newId();
    await insertTrade(db(), {
      id,
      symbol,
      side,
      orderType: options.type ?? "market",
      quantity,
      price: options.price ?? null,
      source: "manual",
      clientOrderId: `pm-${id}`,
      exchange: "simulator",
      leverage: options.leverage ?? 10,
      marginType: options.marginType ?? "isolated",
      reduceOnly: options.reduceOnly ?? false,
    });
    const status = await executeTrade({ db: db(), exchange: sim(), workerId: "w1", attempt: 1 }, id);
    return { status, trade: (await getTrade(db(), id))! };
  };
  const tick = async (symbol: string, price: string) => {
    await setPrice(db(), symbol, price, "test");
    return processPriceTicks(db(), [{ symbol, price }]);
  };
  const balance = async () => {
    const row = await db()
      .selectFrom("balances")
      .selectAll()
      .where("profile_id", "=", profileId)
      .executeTakeFirstOrThrow();
    return { available: D(row.available).toString(), hold: D(row.hold).toString() };
  };
  const setBalance = (available: string) =>
    db().updateTable("balances").set({ available, hold: "0" }).where("profile_id", "=", profileId).execute();
  const appPositions = async (symbol: string) =>
    (await db().selectFrom("positions").selectAll().where("symbol", "=", symbol).orderBy("created_at").execute()).map(
      positionRowToPosition,
    );
  const liquidationTrades = async () =>
    db().selectFrom("trades").selectAll().where("source", "=", "liquidation").execute();
  const simLiquidations = async () =>
    db().selectFrom("sim_orders").selectAll().where("client_order_id", "like", "liq-%").execute();

  /** Everything a liquidation must leave, the same on the simulator and in the app. */
  const expectLiquidated = async (
    symbol: string,
    expected: { side: OrderSide; quantity: string; price: string; fee: string; tradePnl: string; available: string },
  ) => {
    const [simOrder] = await simLiquidations();
    expect(simOrder).toBeDefined();
    expect(simOrder!.client_order_id).toMatch(/^liq-[0-9a-f-]{36}$/);
    expect([
      simOrder!.status,
      simOrder!.side,
      D(simOrder!.filled_quantity).toString(),
      D(simOrder!.average_price!).toString(),
      D(simOrder!.fee).toString(),
      simOrder!.reduce_only,
    ]).toEqual(["filled", expected.side, expected.quantity, expected.price, expected.fee, 1]);
    const simPosition = await db()
      .selectFrom("sim_positions")
      .selectAll()
      .where("profile_id", "=", profileId)
      .where("symbol", "=", symbol)
      .executeTakeFirstOrThrow();
    expect([simPosition.side, D(simPosition.quantity).toString(), D(simPosition.margin).toString()]).toEqual([
      "flat",
      "0",
      "0",
    ]);

    const [trade] = await liquidationTrades();
    expect(trade).toBeDefined();
    expect([
      trade!.status,
      trade!.client_order_id,
      trade!.side,
      trade!.reduce_only,
      D(trade!.executed_price!).toString(),
      D(trade!.fee).toString(),
      D(trade!.realized_pnl!).toString(),
    ]).toEqual([
      "executed",
      simOrder!.client_order_id,
      expected.side,
      1,
      expected.price,
      expected.fee,
      expected.tradePnl,
    ]);
    const [position] = await appPositions(symbol);
    expect([position!.status, D(position!.remainingQuantity).toString(), D(position!.realizedPnl).toString()]).toEqual([
      "closed",
      "0",
      expected.tradePnl,
    ]);
    expect(trade!.position_id).toBe(position!.id);
    // The paper balance: what it started with plus the round trip's net P&L, nothing held.
    expect(await balance()).toEqual({ available: expected.available, hold: "0" });

    const logs = await db()
      .selectFrom("activity_logs")
      .selectAll()
      .where("message", "like", "Position liquidated:%")
      .execute();
    expect(logs).toHaveLength(1);
    expect(logs[0]!.level).toBe("error");
    expect(logs[0]!.message).toContain(`${symbol}`);
    expect(logs[0]!.message).toContain(expected.price);
    const events = await db()
      .selectFrom("events")
      .select(["type", "data"])
      .where("type", "in", ["trade_update", "dashboard_update"])
      .where("data", "like", "%liquidation%")
      .execute();
    expect(events.map((e) => e.type).sort()).toEqual(["dashboard_update", "trade_update"]);

    // The next tick finds nothing more to do.
    await tick(symbol, expected.price);
    expect(await simLiquidations()).toHaveLength(1);
    expect(await liquidationTrades()).toHaveLength(1);
  };

  beforeAll(async () => {
    profileId = await sim().ensureAccount();
    // No protection rules: only the margin acts on these positions.
    const off = Object.fromEntries(
      Object.keys(DEFAULT_TRADING_CONFIG)
        .filter((k) => k.startsWith("apply"))
        .map((k) => [k, false]),
    );
    await saveTradingConfig(db(), { ...DEFAULT_TRADING_CONFIG, ...off });
  });
  beforeEach(async () => {
    for (const table of [
      "trades",
      "positions",
      "sim_orders",
      "sim_positions",
      "sim_funding",
      "funding_payments",
      "activity_logs",
      "events",
      "jobs",
    ] as const)
      await db().deleteFrom(table).execute();
    await setBalance("10000");
    for (const [symbol, price] of [
      ["ETH-PERP", "3000"],
      ["BTC-PERP", "95000"],
      ["SOL-PERP", "180"],
    ] as const)
      await setPrice(db(), symbol, price, "test");
  });

  test("isolated long: shown liquidation price, nothing before it, closed at it when the mark gaps through", async () => {
    expect((await order("BTC-PERP", "buy", "0.1")).status).toBe("executed");
    expect(await balance()).toEqual({ available: "9044.3", hold: "950" });
    const [shown] = await sim().getPositions();
    expect(shown!.liquidationPrice).toBe("85929.7");
    // The Positions screen shows the simulator's figure (one rule for both).
    expect((await listPositionViews(db())).map((p) => [p.symbol, p.liquidationPrice])).toEqual([
      ["BTC-PERP", "85929.7"],
    ]);

    await tick("BTC-PERP", "85929.8"); // one tick above: nothing
    expect(await simLiquidations()).toHaveLength(0);
    expect((await appPositions("BTC-PERP"))[0]!.status).toBe("open");

    await tick("BTC-PERP", "85000");
    await expectLiquidated("BTC-PERP", {
      side: "sell",
      quantity: "0.1",
      price: "85929.7",
      fee: "5.155782",
      tradePnl: "-917.885782",
      available: "9082.114218",
    });
  });

  // One position each, the mark then moved to (or through) its liquidation price. The trade's net
  // of the isolated short: −567.16 − 3.6 (opening fee) − 3.940296.
  test.each([
    {
      name: "isolated short: liquidated at its price when the mark reaches it exactly",
      balance: "10000",
      open: ["ETH-PERP", "sell", "2", {}],
      liquidationPrice: "3283.58",
      notYet: "3283.57",
      mark: "3283.58",
      expected: {
        side: "buy",
        quantity: "2",
        price: "3283.58",
        fee: "3.940296",
        tradePnl: "-574.700296",
        available: "9425.299704",
      },
    },
    {
      name: "cross long: the free collateral backs it; liquidated when the account's equity is down to maintenance",
      balance: "1000",
      open: ["ETH-PERP", "buy", "2", { marginType: "cross" }],
      liquidationPrice: "2514.38",
      notYet: "2600",
      mark: "2400",
      expected: {
        side: "sell",
        quantity: "2",
        price: "2514.38",
        fee: "3.017256",
        tradePnl: "-977.857256",
        available: "22.142744",
      },
    },
    {
      name: "cross short",
      balance: "2000",
      open: ["BTC-PERP", "sell", "0.1", { marginType: "cross" }],
      liquidationPrice: "114371.1",
      notYet: null,
      mark: "120000",
      expected: {
        side: "buy",
        quantity: "0.1",
        price: "114371.1",
        fee: "6.862266",
        tradePnl: "-1949.672266",
        available: "50.327734",
      },
    },
  ] as const)("$name", async ({ balance, open, liquidationPrice, notYet, mark, expected }) => {
    const [symbol, side, quantity, options] = open;
    await setBalance(balance);
    expect((await order(symbol, side, quantity, options)).status).toBe("executed");
    expect((await sim().getPositions())[0]!.liquidationPrice).toBe(liquidationPrice);
    if (notYet) {
      await tick(symbol, notYet);
      expect(await simLiquidations()).toHaveLength(0);
    }
    await tick(symbol, mark);
    await expectLiquidated(symbol, expected);
  });

  test("cross account: one position's loss brings the other's liquidation closer; both close together", async () => {
    await setBalance("1000");
    expect((await order("ETH-PERP", "buy", "2", { marginType: "cross" })).status).toBe("executed"); // free 396.4
    expect((await order("SOL-PERP", "buy", "10", { marginType: "cross", leverage: 5 })).status).toBe("executed"); // margin 360, fee 1.08: free 35.32
    // SOL at 180 adds 360 − 18 (maintenance 1 %) = 342: ETH's cushion 600 + 35.32 + 342 = 977.32 → (6000 − 977.32) / 1.99 = 2523.96…
    const before = new Map((await sim().getPositions()).map((p) => [p.symbol, p.liquidationPrice]));
    expect(before.get("ETH-PERP")).toBe("2523.96");
    // SOL falls to 150 (−300): ETH's cushion loses 300 less 3 of maintenance: (6000 − 680.32) / 1.99 = 2673.20…
    await tick("SOL-PERP", "150");
    const after = new Map((await sim().getPositions()).map((p) => [p.symbol, p.liquidationPrice]));
    expect(after.get("ETH-PERP")).toBe("2673.21");
    expect(await simLiquidations()).toHaveLength(0);
    await tick("ETH-PERP", "2673.2");
    const orders = await simLiquidations();
    expect(orders.map((o) => [o.symbol, D(o.average_price!).toString()]).sort()).toEqual([
      ["ETH-PERP", "2673.21"],
      // The account's condition is one: at ETH's price SOL's own figure is reached too
      // (its cushion now carries ETH's loss): 360 + 35.32 + (600 − 653.6 − 26.732) = 314.988,
      // (1800 − 314.988) / 9.9 = 150.0012… → 150.002 ≥ the mark 150.
      ["SOL-PERP", "150.002"],
    ]);
    expect((await liquidationTrades()).map((t) => t.status)).toEqual(["executed", "executed"]);
    for (const symbol of ["ETH-PERP", "SOL-PERP"]) expect((await appPositions(symbol))[0]!.status).toBe("closed");
    // The paper balance is the account's whole net: 1000 + the sum of every trade's realized P&L.
    const net = (
      await db().selectFrom("trades").select("realized_pnl").where("status", "=", "executed").execute()
    ).reduce((s, t) => s.plus(t.realized_pnl ?? "0"), D(0));
    expect((await balance()).available).toBe(D(1000).plus(net).toString());
    expect((await balance()).hold).toBe("0");
  });

  test("a new order is refused when the free margin less the unrealized loss cannot carry it; a reduce-only close goes through", async () => {
    expect((await order("ETH-PERP", "buy", "2", { leverage: 1, marginType: "cross" })).status).toBe("executed"); // margin 6000, fee 3.6
    expect(await balance()).toEqual({ available: "3996.4", hold: "6000" });
    await tick("ETH-PERP", "2000"); // −2000 unrealized; a 1x long is never liquidated
    expect(await simLiquidations()).toHaveLength(0);

    // BTC 0.25 at 10x needs 2375 + 14.25 = 2389.25: within 3996.4, not within 3996.4 − 2000.
    const refused = await order("BTC-PERP", "buy", "0.25");
    expect(refused.status).toBe("failed");
    expect(refused.trade.errorMessage).toBe(
      "Insufficient margin: order needs 2389.25 USDC, available 1996.40 USDC (unrealized losses of open positions 2000.00 USDC counted)",
    );
    // A resting limit is held to the same rule.
    const limit = await order("BTC-PERP", "buy", "0.25", { type: "limit", price: "90000" });
    expect(limit.status).toBe("failed");
    expect(limit.trade.errorMessage).toContain("unrealized losses of open positions 2000.00 USDC counted");
    // What fits does go through: 0.2 needs 1900 + 11.4 = 1911.4.
    expect((await order("BTC-PERP", "buy", "0.2")).status).toBe("executed");

    // Reduce-only closes are never refused for margin, even with nothing free.
    await setBalance("0");
    const close = await order("ETH-PERP", "sell", "2", { leverage: 1, marginType: "cross", reduceOnly: true });
    expect(close.status).toBe("executed");
    expect((await appPositions("ETH-PERP"))[0]!.status).toBe("closed");
  });

  test("a liquidation the worker did not book before it stopped is booked once when it comes back", async () => {
    expect((await order("ETH-PERP", "buy", "2")).status).toBe("executed"); // isolated 10x: liq 2713.57
    await setPrice(db(), "ETH-PERP", "2700", "test");
    // The simulator's half alone (the worker died before the app's half).
    const [liquidation] = await liquidateAccounts(db(), { symbols: ["ETH-PERP"] });
    expect([liquidation!.liquidationPrice, liquidation!.markPrice]).toEqual(["2713.57", "2700"]);
    expect(await liquidationTrades()).toHaveLength(0);
    expect((await appPositions("ETH-PERP"))[0]!.status).toBe("open");
    // Nothing left for the simulator to do; the app catches up, once.
    expect(await liquidateAccounts(db(), { symbols: ["ETH-PERP"] })).toEqual([]);
    expect(await bookMissedLiquidations(db(), profileId)).toEqual([liquidation!.order.clientOrderId]);
    expect(await bookMissedLiquidations(db(), profileId)).toEqual([]);
    // (2713.57 − 3000) × 2 = −572.86, fees 3.6 and 3.256284.
    await expectLiquidated("ETH-PERP", {
      side: "sell",
      quantity: "2",
      price: "2713.57",
      fee: "3.256284",
      tradePnl: "-579.716284",
      available: "9420.283716",
    });
  });

  test("funding: charged once per interval at the boundary, on the balance and in the positions' realized P&L and every total", async () => {
    const H = 3_600_000;
    const funding = { fundingRate: "0.0001", fundingIntervalMs: H };
    expect((await order("ETH-PERP", "buy", "2")).status).toBe("executed"); // isolated long: margin 600, fee 3.6
    expect((await order("BTC-PERP", "sell", "0.1", { marginType: "cross" })).status).toBe("executed"); // margin 950, fee 5.7
    expect(await balance()).toEqual({ available: "8440.7", hold: "1550" });
    await setPrice(db(), "ETH-PERP", "3100", "test");
    await setPrice(db(), "BTC-PERP", "96000", "test");
    const ticks = [{ symbol: "ETH-PERP", price: "3100" }];

    // This hour's boundary is before they opened: nothing to pay for it.
    expect((await applyPaperMargin(db(), ticks, { ...funding, now: Date.now() })).funding).toEqual([]);

    // The next boundary: the long pays 2 × 3100 × 0.0001 = 0.62, the short receives 0.1 × 96000 × 0.0001 = 0.96.
    const next = fundingBoundary(Date.now(), H) + H;
    const first = await applyPaperMargin(db(), ticks, { ...funding, now: next + 1500 });
    expect(first.funding.map((f) => [f.symbol, f.side, f.amount, f.intervalStart]).sort()).toEqual([
      ["BTC-PERP", "short", "0.96", next],
      ["ETH-PERP", "long", "-0.62", next],
    ]);
    expect(first.fundingBooked).toHaveLength(2);
    expect(await balance()).toEqual({ available: "8441.04", hold: "1550" });
    // Once per interval: another tick, another worker (no memory of this one), a restart.
    expect((await applyPaperMargin(db(), ticks, { ...funding, now: next + 2500 })).funding).toEqual([]);
    expect(await applyFunding(db(), { rate: "0.0001", intervalMs: H, now: next + 3000 })).toEqual([]);
    expect(await bookFunding(db(), profileId, next + 3000)).toEqual([]);
    expect(await balance()).toEqual({ available: "8441.04", hold: "1550" });
    expect(await db().selectFrom("sim_funding").select("id").execute()).toHaveLength(2);

    const eth = async () => (await appPositions("ETH-PERP"))[0]!;
    const btc = async () => (await appPositions("BTC-PERP"))[0]!;
    expect([(await eth()).funding, (await eth()).realizedPnl]).toEqual(["-0.62", "-0.62"]);
    expect([(await btc()).funding, (await btc()).realizedPnl]).toEqual(["0.96", "0.96"]);
    // The Positions screen shows it.
    expect((await listPositionViews(db())).map((p) => [p.symbol, p.funding]).sort()).toEqual([
      ["BTC-PERP", "0.96"],
      ["ETH-PERP", "-0.62"],
    ]);
    const lines = await db()
      .selectFrom("activity_logs")
      .select("message")
      .where("message", "like", "Funding%")
      .orderBy("id")
      .execute();
    expect(lines.map((l) => l.message).sort()).toEqual([
      `Funding paid: LONG 2 ETH-PERP paid 0.62 USDC (rate 0.0001 x 6200.00 at mark 3100, interval ${new Date(next).toISOString().replace(".000Z", "Z")})`,
      `Funding received: SHORT 0.1 BTC-PERP received 0.96 USDC (rate 0.0001 x 9600.00 at mark 96000, interval ${new Date(next).toISOString().replace(".000Z", "Z")})`,
    ]);

    // The interval after: charged again (the long at a new mark: 2 × 3000 × 0.0001 = 0.6).
    await setPrice(db(), "ETH-PERP", "3000", "test");
    expect((await applyPaperMargin(db(), ticks, { ...funding, now: next + H + 10 })).funding).toHaveLength(2);
    expect((await eth()).funding).toBe("-1.22");
    expect((await btc()).funding).toBe("1.92");

    // Closed: the trades' realized P&L plus the funding is what the balance gained, and every total says so.
    expect((await order("ETH-PERP", "sell", "2", { reduceOnly: true })).status).toBe("executed"); // at 3000: 0 − 3.6 − 3.6
    await setPrice(db(), "BTC-PERP", "95000", "test");
    expect((await order("BTC-PERP", "buy", "0.1", { reduceOnly: true, marginType: "cross" })).status).toBe("executed"); // at 95000: 0 − 5.7 − 5.7
    expect([(await eth()).status, (await eth()).realizedPnl]).toEqual(["closed", "-8.42"]); // −7.2 − 1.22
    expect([(await btc()).status, (await btc()).realizedPnl]).toEqual(["closed", "-9.48"]); // −11.4 + 1.92
    const trades = (
      await db().selectFrom("trades").select("realized_pnl").where("status", "=", "executed").execute()
    ).reduce((sum, t) => sum.plus(t.realized_pnl ?? "0"), D(0));
    expect(trades.toString()).toBe("-18.6");
    const total = "-17.9"; // −18.6 + 0.7 of funding (−1.22 + 1.92)
    expect(await balance()).toEqual({ available: D(10000).plus(total).toString(), hold: "0" });
    expect(await getClosedTradesPnl(db())).toEqual({
      totalPnL: total,
      realizedMatches: 2,
      closingTrades: 2,
      funding: "0.7",
    });
    expect(await getNetPnlSince(db(), Date.now() - 86_400_000)).toBe(total);
    expect((await getPerformanceStats(db())).allTime).toMatchObject({ totalPnl: "-17.90", totalTrades: 2 });
    expect((await getPortfolioSummary(db())).realizedPnL).toBe(total);
    // The account statement has the funding lines, and its running balance ends at the balance.
    const ledger = await buildLedger(db(), [profileId]);
    expect(
      ledger
        .filter((e) => e.type === "funding")
        .map((e) => e.amount)
        .sort(),
    ).toEqual(["-0.6", "-0.62", "0.96", "0.96"]);
    expect(ledger.at(-1)!.balance).toBe(D(10000).plus(total).toString());
  });

  // Issue 22: after Reset Statistics the funding charged before it was booked again, at the
  // next boundary, onto a new position of the same symbol and side (−1.34 instead of −0.34).
  // A BTC long of 0.1 at 100,000 pays 0.1 × 100,000 × 0.0001 = 1.00; closed, reset; a new long
  // of 0.034 pays 0.034 × 100,000 × 0.0001 = 0.34 at the next boundary, and only that.
  test("funding charged before a statistics reset is never booked again onto a later position (issue 22)", async () => {
    const H = 3_600_000;
    const funding = { fundingRate: "0.0001", fundingIntervalMs: H };
    const ticks = [{ symbol: "BTC-PERP", price: "100000" }];
    await setPrice(db(), "BTC-PERP", "100000", "test");
    expect((await order("BTC-PERP", "buy", "0.1")).status).toBe("executed");
    const next = fundingBoundary(Date.now(), H) + H;
    const first = await applyPaperMargin(db(), ticks, { ...funding, now: next + 1500 });
    expect(first.funding.map((f) => [f.symbol, f.side, f.amount])).toEqual([["BTC-PERP", "long", "-1"]]);
    expect(first.fundingBooked).toHaveLength(1);
    expect([(await appPositions("BTC-PERP"))[0]!.funding, (await appPositions("BTC-PERP"))[0]!.realizedPnl]).toEqual([
      "-1",
      "-1",
    ]);
    expect((await order("BTC-PERP", "sell", "0.1", { reduceOnly: true })).status).toBe("executed");

    const reset = await resetStatistics(db(), "admin");
    expect(reset.success).toBe(true);
    expect(await db().selectFrom("funding_payments").select("id").execute()).toEqual([]);
    expect(await getClosedTradesPnl(db())).toEqual({ totalPnL: "0", realizedMatches: 0, closingTrades: 0 });

    // A new long on the same symbol; the worker restarts (no memory) before the next boundary.
    expect((await order("BTC-PERP", "buy", "0.034")).status).toBe("executed");
    expect(await bookFunding(db(), profileId, next + 2000)).toEqual([]);
    const second = await applyPaperMargin(db(), ticks, { ...funding, now: next + H + 10 });
    expect(second.funding.map((f) => [f.symbol, f.side, f.amount])).toEqual([["BTC-PERP", "long", "-0.34"]]);
    expect(second.fundingBooked).toEqual(second.funding.map((f) => f.id));
    const [position] = await appPositions("BTC-PERP");
    expect([position!.status, position!.funding, position!.realizedPnl]).toEqual(["open", "-0.34", "-0.34"]);
    const booked = await db().selectFrom("funding_payments").select(["amount", "position_id"]).execute();
    expect(booked.map((b) => [D(b.amount).toString(), b.position_id])).toEqual([["-0.34", position!.id]]);
    // Every total: the new position's own funding alone.
    expect(await getClosedTradesPnl(db())).toEqual({
      totalPnL: "-0.34",
      realizedMatches: 0,
      closingTrades: 0,
      funding: "-0.34",
    });
    expect(await getNetPnlSince(db(), Date.now() - 86_400_000)).toBe("-0.34");
    expect((await getPerformanceStats(db())).allTime).toMatchObject({ totalPnl: "-0.34", totalTrades: 0 });
    // Another worker, or a restart, never books the old payment either.
    expect(await bookFunding(db(), profileId, next + H + 2000)).toEqual([]);
    expect((await appPositions("BTC-PERP"))[0]!.funding).toBe("-0.34");
  });

  // Funding belongs to the position open at its boundary: a payment a stopped worker left
  // unbooked is not put on a position opened after that boundary (it stays in the totals).
  test("funding left unbooked is not put on a position opened after its boundary", async () => {
    const H = 3_600_000;
    await setPrice(db(), "BTC-PERP", "100000", "test");
    expect((await order("BTC-PERP", "buy", "0.1")).status).toBe("executed");
    // The simulator charges the boundary that has just passed (the worker books nothing: it stopped).
    const boundary = fundingBoundary(Date.now(), H) + H;
    const charged = await applyFunding(db(), { rate: "0.0001", intervalMs: H, now: boundary + 100 });
    expect(charged.map((f) => f.amount)).toEqual(["-1"]);
    expect((await order("BTC-PERP", "sell", "0.1", { reduceOnly: true })).status).toBe("executed");
    // A new long whose entry order is written after that boundary (the clock moved on).
    expect((await order("BTC-PERP", "buy", "0.034")).status).toBe("executed");
    const [, fresh] = await appPositions("BTC-PERP");
    await db()
      .updateTable("trades")
      .set({ created_at: boundary + 60_000 })
      .where("id", "=", fresh!.entryTradeId!)
      .execute();
    expect(await bookFunding(db(), profileId, boundary + 120_000)).toEqual(charged.map((f) => f.id));
    expect((await appPositions("BTC-PERP"))[1]!.funding).toBe("0");
    const booked = await db().selectFrom("funding_payments").select(["amount", "position_id"]).execute();
    expect(booked.map((b) => [D(b.amount).toString(), b.position_id])).toEqual([["-1", null]]);
    expect((await getClosedTradesPnl(db())).funding).toBe("-1");
  });

  test("funding settings come from the environment: SIM_FUNDING_RATE (0 disables) and SIM_FUNDING_INTERVAL_SECONDS", async () => {
    expect(fundingSettings({})).toEqual({ rate: "0.0001", intervalMs: 3_600_000 });
    expect(fundingSettings({ SIM_FUNDING_RATE: "0", SIM_FUNDING_INTERVAL_SECONDS: "60" })).toEqual({
      rate: "0",
      intervalMs: 60_000,
    });
    expect(() => fundingSettings({ SIM_FUNDING_RATE: "lots" })).toThrow();
    expect((await order("ETH-PERP", "buy", "1")).status).toBe("executed");
    const later = Date.now() + 7_200_000;
    expect(
      (
        await applyPaperMargin(db(), [{ symbol: "ETH-PERP", price: "3000" }], {
          now: later,
          fundingRate: "0",
          fundingIntervalMs: 3_600_000,
        })
      ).funding,
    ).toEqual([]);
    expect(await db().selectFrom("sim_funding").select("id").execute()).toEqual([]);
  });
});
