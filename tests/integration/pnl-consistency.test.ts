// One P&L truth (issue 11, docs/pnl.md): a scripted sequence through the real pipeline
// (webhook → job → worker → simulator) on both dialects: a long, extended at a second
// price, partly closed, flipped to a short, and closed; fees on every fill. Every figure a
// screen, an API, the CSV or a report shows must equal the hand-computed ones exactly.
//
// Simulator: taker fee 0.0006 of the notional, slippage 0.0005 against the taker, ETH tick 0.01.
//   1 BUY 1    at 3000 → 3001.5,  fee 1.8009                      opens lot A (1 @ 3001.5)
//   2 BUY 1    at 3100 → 3101.55, fee 1.86093                     opens lot B (1 @ 3101.55)
//   3 SELL 0.5 at 3200 → 3198.4,  fee 0.95952
//       closes 0.5 of A: gross (3198.4 − 3001.5) × 0.5 = 98.45, − A's share 0.90045 − 0.95952 = 96.59003
//   4 SELL 3   at 3000 → 2998.5,  fee 5.3973
//       closes A's 0.5: gross −1.5, − 0.90045 (A's rest) − 0.89955 (5.3973 × 0.5/3) = −3.3
//       closes B's 1:   gross −103.05, − 1.86093 − 1.7991 (5.3973 × 1/3) = −106.71003
//       the trade: −110.01003; opens short lot C 1.5 @ 2998.5 carrying 5.3973 − 0.89955 − 1.7991 = 2.69865
//   5 BUY 1.5  at 2900 → 2901.45, fee 2.611305
//       closes C: gross (2998.5 − 2901.45) × 1.5 = 145.575, − 2.69865 − 2.611305 = 140.265045
//   Total 96.59003 − 110.01003 + 140.265045 = 126.845045 over 4 matches and 3 closing trades;
//   the long position realized 96.59003 − 110.01003 = −13.42, the short 140.265045.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { D } from "#app/core/decimal.ts";
import { fundingBoundary } from "#exchange/simulator/funding.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { tradeCsvRows } from "#app/core/trade-history.ts";
import { buildReportTable } from "#reports/build.ts";
import { getNetPnlSince } from "#app/services/statistics.server.ts";
import type { Trade } from "#db/queries/trades.ts";
import { freshApp, registerVia, sendSignal, waitFor, webhookSecret } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { PNL_TOTAL, playScriptedTrades } from "#tests/setup/scripted-trades.ts";
import type { Runner } from "#worker/runner.ts";
import { applyPaperMargin } from "#worker/monitor/paper-margin.ts";

const TRADE_PNL = [null, null, "96.59003", "-110.01003", "140.265045"];
const TOTAL = PNL_TOTAL;

describe.each(testDialects())("one P&L truth on %s", (dialect) => {
  const app = freshApp(dialect, {}, { file: true });
  let admin: string;
  let runner: Runner | null = null;
  const db = () => app.database.db;
  const api = async <T>(path: string): Promise<T> => (await (await app.fetch(path, { cookie: admin })).json()) as T;

  beforeAll(async () => {
    admin = (await registerVia(app, "pnl_admin")).cookie;
    const secret = await webhookSecret(app, admin);
    runner = await playScriptedTrades(app, secret, "pnl");
  });
  afterAll(async () => {
    await runner?.stop();
  });

  test("each trade's realized P&L (API rows, CSV, fills report) is its FIFO matches net of fees", async () => {
    const trades = (await api<Trade[]>("/api/trades?limit=50")).reverse();
    expect(
      trades.map((t) => [
        t.side,
        D(t.executedQuantity!).toString(),
        D(t.executedPrice!).toString(),
        D(t.fee).toString(),
      ]),
    ).toEqual([
      ["buy", "1", "3001.5", "1.8009"],
      ["buy", "1", "3101.55", "1.86093"],
      ["sell", "0.5", "3198.4", "0.95952"],
      ["sell", "3", "2998.5", "5.3973"],
      ["buy", "1.5", "2901.45", "2.611305"],
    ]);
    expect(trades.map((t) => (t.realizedPnl === null ? null : D(t.realizedPnl).toString()))).toEqual(TRADE_PNL);
    // Trade History's CSV: column "Realized P&L (net of fees)".
    expect(tradeCsvRows(trades).map((row) => row[9])).toEqual(TRADE_PNL.map((p) => p ?? ""));
    // The fills report (oldest first) carries the same figure.
    const report = await buildReportTable(db(), { type: "fills", format: "csv" });
    const column = report.columns.indexOf("Realized P&L (net of fees)");
    expect(report.rows.map((r) => (r[column] === "" ? null : D(String(r[column])).toString()))).toEqual(TRADE_PNL);
    // Each row carries its position's state (Trade History shows it instead of placeholders):
    // the entry belongs to the long, the flip's row to the short it opened.
    const withPosition = trades as (Trade & { position: { side: string; entryPrice: string } | null })[];
    expect(withPosition.map((t) => t.position?.side)).toEqual(["long", "long", "long", "short", "short"]);
    expect(D(withPosition[0]!.position!.entryPrice).toString()).toBe("3051.525"); // (3001.5 + 3101.55) / 2
    // The sum of the rows is the header's total.
    expect(TRADE_PNL.reduce((sum, p) => sum.plus(p ?? "0"), D(0)).toString()).toBe(TOTAL);
  });

  test("the header, the statistics, the 24 h P&L and the portfolio summary equal the sum of the rows", async () => {
    expect(await api("/api/closed-trades-pnl")).toEqual({ totalPnL: TOTAL, realizedMatches: 4, closingTrades: 3 });
    // Trade History's P&L card comes with the page (no JavaScript needed): the same figure.
    const history = await api<{ pnl: unknown }>(
      `/trade-history?_data=${encodeURIComponent("routes/_app+/trade-history")}`,
    );
    expect(history.pnl).toEqual({ totalPnL: TOTAL, realizedMatches: 4, closingTrades: 3 });
    const stats = await api<Record<string, { totalPnl: string; totalTrades: number }>>("/api/performance-stats");
    // The statistics show money with 2 decimals (SPEC): the same total, rounded half up.
    for (const period of ["allTime", "month", "week"])
      expect(stats[period]).toMatchObject({ totalPnl: D(TOTAL).round(2).toFixed(2), totalTrades: 4 });
    expect(D(TOTAL).round(2).toFixed(2)).toBe("126.85");
    expect(await getNetPnlSince(db(), Date.now() - 86_400_000)).toBe(TOTAL);
    expect(await api("/api/portfolio-summary")).toMatchObject({
      realizedPnL: TOTAL,
      unrealizedPnL: "0",
      openPositions: 0,
    });
  });

  test("positions and activity lines show the same figures", async () => {
    const positions = await db()
      .selectFrom("positions")
      .select(["side", "realized_pnl", "status"])
      .orderBy("created_at")
      .execute();
    expect(positions.map((p) => [p.side, p.status, D(p.realized_pnl).toString()])).toEqual([
      ["long", "closed", "-13.42"],
      ["short", "closed", "140.265045"],
    ]);
    const lines = (
      await db()
        .selectFrom("activity_logs")
        .select("message")
        .where("message", "like", "Order filled%")
        .orderBy("id")
        .execute()
    ).map((r) => r.message.replace(/^.*?(, realised P&L .*)?$/, "$1"));
    expect(lines).toEqual([
      "",
      "",
      ", realised P&L 96.59 (net of fees)",
      ", realised P&L -110.01 (net of fees)",
      ", realised P&L 140.27 (net of fees)",
    ]);
  });

  // Funding (decision 024) is realized P&L that is not a trade: a long of 1 opened at 3000
  // (→ 3001.5, fee 1.8009) pays one interval's funding, 1 × 3000 × 0.0001 = 0.3, and is closed
  // at 3000 (→ 2998.5, fee 1.7991): the trade realizes −3 − 1.8009 − 1.7991 = −6.6, the
  // position −6.9, and every total moves by −6.9; the rows add up to the total less funding.
  test("funding is in the position's realized P&L and in every total, the same everywhere", async () => {
    const executed = async (n: number) => {
      const row = await db()
        .selectFrom("trades")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("status", "=", "executed")
        .executeTakeFirst();
      return Number(row!.n) === n;
    };
    const secret = await webhookSecret(app, admin);
    await setPrice(db(), "ETH-PERP", "3000", "test");
    expect(
      (
        await sendSignal(app, secret, {
          action: "buy",
          symbol: "ETH-PERP",
          quantity: "1",
          order_type: "market",
          id: "pnl-f1",
        })
      ).status,
    ).toBe(200);
    await waitFor("funded long booked", () => executed(6), 15_000, 10);
    const H = 3_600_000;
    const paid = await applyPaperMargin(db(), [{ symbol: "ETH-PERP", price: "3000" }], {
      now: fundingBoundary(Date.now(), H) + H + 1,
      fundingRate: "0.0001",
      fundingIntervalMs: H,
    });
    expect(paid.funding.map((f) => f.amount)).toEqual(["-0.3"]);
    expect(
      (
        await sendSignal(app, secret, {
          action: "sell",
          symbol: "ETH-PERP",
          quantity: "1",
          order_type: "market",
          id: "pnl-f2",
        })
      ).status,
    ).toBe(200);
    await waitFor("funded long closed", () => executed(7), 15_000, 10);

    const total = D(TOTAL).minus("6.9").toString();
    expect(total).toBe("119.945045");
    const trades = await api<Trade[]>("/api/trades?limit=50");
    expect(D(trades[0]!.realizedPnl!).toString()).toBe("-6.6");
    expect(trades.reduce((sum, t) => sum.plus(t.realizedPnl ?? "0"), D(0)).toString()).toBe(
      D(total).plus("0.3").toString(),
    );
    expect(await api("/api/closed-trades-pnl")).toEqual({
      totalPnL: total,
      realizedMatches: 5,
      closingTrades: 4,
      funding: "-0.3",
    });
    expect((await api<{ pnl: unknown }>(`/history?_data=${encodeURIComponent("routes/_app+/history")}`)).pnl).toEqual({
      totalPnL: total,
      realizedMatches: 5,
      closingTrades: 4,
      funding: "-0.3",
    });
    const stats = await api<Record<string, { totalPnl: string; totalTrades: number }>>("/api/performance-stats");
    for (const period of ["allTime", "month", "week"])
      expect(stats[period]).toMatchObject({ totalPnl: "119.95", totalTrades: 5 });
    // The dashboard's first paint shows the same statistics, funding included.
    const dashboard = await api<{
      performance: Record<string, { totalPnl: string }>;
      stats: { todayPnL: string };
    }>(`/dashboard?_data=${encodeURIComponent("routes/_app+/dashboard")}`);
    for (const period of ["allTime", "month", "week"]) expect(dashboard.performance[period]).toEqual(stats[period]);
    expect(await getNetPnlSince(db(), Date.now() - 86_400_000)).toBe(total);
    // The dashboard's 24 h P&L (every trade and the funding are within 24 h) is the same figure,
    // funding included (issue 22: it left the funding out), on first paint and from its API.
    expect(dashboard.stats.todayPnL).toBe(total);
    expect((await api<{ stats: { todayPnL: string } }>("/api/dashboard/stats")).stats.todayPnL).toBe(total);
    expect(await api("/api/portfolio-summary")).toMatchObject({
      realizedPnL: total,
      unrealizedPnL: "0",
      openPositions: 0,
    });
    const positions = await db()
      .selectFrom("positions")
      .select(["side", "realized_pnl", "funding", "status"])
      .orderBy("created_at")
      .execute();
    expect(positions.map((p) => [p.side, p.status, D(p.realized_pnl).toString(), D(p.funding).toString()])).toEqual([
      ["long", "closed", "-13.42", "0"],
      ["short", "closed", "140.265045", "0"],
      ["long", "closed", "-6.9", "-0.3"],
    ]);
    expect(positions.reduce((sum, p) => sum.plus(p.realized_pnl), D(0)).toString()).toBe(total);
    // The account statement carries the funding line the paper wallet booked.
    const statement = await buildReportTable(db(), { type: "account", format: "csv" });
    expect(statement.rows.filter((r) => r[2] === "funding").map((r) => D(String(r[3])).toString())).toEqual(["-0.3"]);
  });
});
