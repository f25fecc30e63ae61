// Performance charts (issue 13, decision 031) on both dialects: the scripted sequence of
// tests/integration/pnl-consistency.test.ts through the real pipeline (webhook → job →
// worker → simulator), with the worker's equity recorder run after each step. The equity
// curve's realized part, the daily bars and every total must equal the ledger's figures
// exactly (decimal strings), the unrealized part the snapshot's, and each range the
// Performance Statistics for the same window.
//
// Simulator (see pnl-consistency for the arithmetic): trade realized P&L per step
//   [null, null, 96.59003, −110.01003, 140.265045], total 126.845045 over 4 matches.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { D } from "#app/core/decimal.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import type { EquityPoint } from "#app/core/performance/charts.ts";
import type { PerformanceCharts } from "#app/core/performance/charts.ts";
import { getDashboardChartsTable } from "#app/services/performance-charts.server.ts";
import { getStatsLedger } from "#app/services/statistics.server.ts";
import { freshApp, registerVia, sendSignal, waitFor, webhookSecret } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { PNL_TOTAL, playScriptedTrades } from "#tests/setup/scripted-trades.ts";
import { checkEquitySnapshot, recordEquitySnapshot } from "#worker/monitor/equity-snapshots.ts";
import type { Runner } from "#worker/runner.ts";
import { pruneOnce } from "#worker/housekeeping.ts";
import { insertEquitySnapshot } from "#db/queries/equity-snapshots.ts";

/** The ledger's running total after each step. */
const REALIZED_AFTER = ["0", "0", "96.59003", "-13.42", "126.845045"];
const TOTAL = PNL_TOTAL;
/** The price set after each step before the snapshot, and the open position's unrealized P&L at it. */
const MARK = ["3050", "3000", "3100", "2990", "2900"];
// Step 1: long 1 @ 3001.5 at 3050 → 48.5. Step 2: long 2 @ 3051.525 at 3000 → −103.05.
// Step 3: long 1.5 @ 3051.525 at 3100 → 72.7125. Step 4: short 1.5 @ 2998.5 at 2990 → 12.75. Step 5: flat.
const UNREALIZED = ["48.5", "-103.05", "72.7125", "12.75", "0"];

describe.each(testDialects())("performance charts on %s", (dialect) => {
  const app = freshApp(dialect, {}, { file: true });
  let admin: string;
  let runner: Runner | null = null;
  const snapshotTimes: number[] = [];
  const db = () => app.database.db;
  const api = async <T>(path: string): Promise<T> => {
    const response = await app.fetch(path, { cookie: admin });
    expect(response.status, path).toBe(200);
    return (await response.json()) as T;
  };

  beforeAll(async () => {
    admin = (await registerVia(app, "charts_admin")).cookie;
    const secret = await webhookSecret(app, admin);
    runner = await playScriptedTrades(app, secret, "charts", async (i) => {
      await setPrice(db(), "ETH-PERP", MARK[i]!, "test");
      await new Promise((r) => setTimeout(r, 3)); // the snapshot strictly after the fill
      snapshotTimes.push((await recordEquitySnapshot(db(), new SimulatorAdapter(db()), "fill")).at);
    });
  });
  afterAll(async () => {
    await runner?.stop();
  });

  test("the recorder stores what the portfolio summary shows: the ledger's realized total and the unrealized P&L", async () => {
    const rows = await db().selectFrom("equity_snapshots").selectAll().orderBy("id").execute();
    expect(rows.map((r) => [D(r.realized_pnl).toString(), D(r.unrealized_pnl).toString(), r.open_positions])).toEqual(
      REALIZED_AFTER.map((realized, i) => [realized, UNREALIZED[i], i === 4 ? 0 : 1]),
    );
    // Balance + unrealized = equity, when the exchange answered.
    for (const r of rows) expect(D(r.balance!).plus(r.unrealized_pnl).eq(r.equity!)).toBe(true);
    // The summary's realized figure is the Trade History header's.
    expect((await api<{ totalPnL: string }>("/api/closed-trades-pnl")).totalPnL).toBe(TOTAL);
  });

  test("equity curve and daily P&L equal the ledger's figures exactly", async () => {
    const charts = await api<PerformanceCharts>("/api/performance-charts?range=all");
    expect(charts.range).toBe("all");
    expect(charts.totals).toMatchObject({ realizedPnl: TOTAL, funding: "0", trades: 3, wins: 2, losses: 1 });
    // The snapshot points: the ledger's running total, the snapshot's unrealized part.
    const atSnapshots = snapshotTimes.map((at) => charts.equity.find((p) => p.at === at && p.unrealized !== null));
    expect(atSnapshots.map((p) => [p?.realized, p?.unrealized, p?.equity])).toEqual(
      REALIZED_AFTER.map((realized, i) => [realized, UNREALIZED[i], D(realized).plus(UNREALIZED[i]!).toString()]),
    );
    // Each close shows at the snapshot the worker took right after it (decision 031): no point
    // counts the positions still open as worth nothing.
    const closes = charts.equity.filter((p) => p.unrealized === null).map((p) => p.realized);
    expect(closes).toEqual([]);
    // "Now": the total, flat.
    const last = charts.equity.at(-1) as EquityPoint;
    expect([last.realized, last.unrealized, last.equity]).toEqual([TOTAL, "0", TOTAL]);
    // Drawdown from the peak (0 at the start): the deepest is after the step-4 close, −13.42 − 96.59003 − 48.5 … computed from the points.
    let peak = D(0);
    for (const p of charts.equity) {
      if (D(p.equity).gt(peak)) peak = D(p.equity);
      expect(p.drawdown).toBe(D(p.equity).minus(peak).toString());
    }
    expect(charts.totals.maxDrawdown).toBe(
      charts.equity.reduce((min, p) => (D(p.drawdown).lt(min) ? D(p.drawdown) : min), D(0)).toString(),
    );
    // Every close happened today (UTC): one bar with the whole total; the bars add up to it.
    const today = new Date().toISOString().slice(0, 10);
    expect(charts.daily.at(-1)).toEqual({ day: today, pnl: TOTAL, trades: 3, wins: 2, losses: 1 });
    expect(charts.daily.reduce((s, b) => s.plus(b.pnl), D(0)).toString()).toBe(TOTAL);
    // Per symbol and per strategy (the global secret's signals: the default strategy).
    expect(charts.bySymbol).toEqual([
      { key: "ETH-PERP", label: "ETH-PERP", pnl: TOTAL, trades: 3, wins: 2, losses: 1 },
    ]);
    expect(charts.byStrategy).toEqual([
      { key: "default", label: "default (global secret)", pnl: TOTAL, trades: 3, wins: 2, losses: 1 },
    ]);
    expect(charts.distribution!.reduce((n, b) => n + b.count, 0)).toBe(4);
  });

  test("7 d and 30 d answer the Performance Statistics' week and month; the dashboard's card is the same 30 days", async () => {
    const stats = await api<Record<string, { totalPnl: string; totalTrades: number }>>("/api/performance-stats");
    const closed = await api<{ closingTrades: number; realizedMatches: number }>("/api/closed-trades-pnl");
    expect(closed).toMatchObject({ closingTrades: 3, realizedMatches: 4 });
    for (const [range, period] of [
      ["7d", "week"],
      ["30d", "month"],
      ["all", "allTime"],
    ] as const) {
      const charts = await api<PerformanceCharts>(`/api/performance-charts?range=${range}`);
      expect(D(charts.totals.realizedPnl).round(2).toFixed(2), range).toBe(stats[period]!.totalPnl);
      // The charts count closing trades (Trade History's "N closing trades", docs/pnl.md), the statistics
      // matches (Total Trades): the flip at step 4 closed two lots in one trade, one win and one loss.
      expect(charts.totals.trades, range).toBe(closed.closingTrades);
      expect(stats[period]!.totalTrades, range).toBe(closed.realizedMatches);
      expect(charts.daily, range).toHaveLength(range === "7d" ? 8 : range === "30d" ? 31 : 1);
    }
    const compact = await api<PerformanceCharts>("/api/performance-charts?range=30d&detail=compact");
    expect(compact.bySymbol).toBeUndefined();
    expect(compact.totals.realizedPnl).toBe(TOTAL);
    // An unknown range is the default (30 days), not an error.
    expect((await api<PerformanceCharts>("/api/performance-charts?range=1y")).range).toBe("30d");
  });

  test("strangers get 401 from the API and the login page from the screen", async () => {
    expect((await app.fetch("/api/performance-charts?range=7d")).status).toBe(401);
    const page = await app.fetch("/performance");
    expect([302, 303]).toContain(page.status);
  });

  test("the screens render the same data as tables on the server (no JavaScript needed)", async () => {
    const html = await (await app.fetch("/performance?range=all", { cookie: admin })).text();
    for (const text of [
      "Performance",
      "Equity curve",
      "Daily P&amp;L",
      "Drawdown",
      "P&amp;L by symbol",
      "P&amp;L by strategy",
      "Win/loss distribution",
      "+126.85",
      "default (global secret)",
    ])
      expect(html).toContain(text);
    expect(html).toContain('aria-current="page"');
    const dashboard = await (await app.fetch("/dashboard", { cookie: admin })).text();
    expect(dashboard).toContain("Performance (30 days)");
    expect(dashboard).toContain('data-testid="dashboard-daily-table"');
    expect(dashboard).toContain("+126.85");
  });

  test("the leader's check records once per bucket and after each fill", async () => {
    const before = Number(
      (await db()
        .selectFrom("equity_snapshots")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirst())!.n,
    );
    // The current bucket already has a snapshot (the steps'): nothing new without a fill.
    let state = await checkEquitySnapshot(db(), new SimulatorAdapter(db()), null);
    expect(state.recorded).toBeNull();
    state = await checkEquitySnapshot(db(), new SimulatorAdapter(db()), state.seen);
    expect(state.recorded).toBeNull();
    // A new bucket: one "interval" snapshot.
    const later = Date.now() + 10 * 60_000;
    const next = await checkEquitySnapshot(db(), new SimulatorAdapter(db()), state.seen, later);
    expect(next.recorded?.reason).toBe("interval");
    // A fill since the last look: one "fill" snapshot.
    const fill = await checkEquitySnapshot(db(), new SimulatorAdapter(db()), "0|0|0", later + 1);
    expect(fill.recorded?.reason).toBe("fill");
    const after = Number(
      (await db()
        .selectFrom("equity_snapshots")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirst())!.n,
    );
    expect(after).toBe(before + 2);
    await db()
      .deleteFrom("equity_snapshots")
      .where("taken_at", ">", Date.now() + 60_000)
      .execute();
  });

  test("housekeeping thins snapshots older than 30 days to the last of each hour", async () => {
    const old = Date.UTC(2026, 0, 10, 5, 0, 0); // far in the past, 5:00 UTC
    const base = {
      reason: "interval",
      realizedPnl: "1",
      unrealizedPnl: "0",
      balance: null,
      equity: null,
      currency: null,
      openPositions: 0,
    };
    const now = old + 31 * 86_400_000;
    for (const minute of [0, 5, 55, 65, 70]) await insertEquitySnapshot(db(), { ...base, at: old + minute * 60_000 });
    await pruneOnce(db(), { eventsHours: 24, jobsDays: 7 }, now);
    const kept = await db()
      .selectFrom("equity_snapshots")
      .select("taken_at")
      .where("taken_at", "<", old + 2 * 3_600_000)
      .orderBy("taken_at")
      .execute();
    expect(kept.map((r) => (Number(r.taken_at) - old) / 60_000)).toEqual([55, 70]);
    await db()
      .deleteFrom("equity_snapshots")
      .where("taken_at", "<", old + 2 * 3_600_000)
      .execute();
  });

  test("the dashboard's table is one answer per second per process, also while fills arrive; the next one has the fill", async () => {
    const t0 = Date.now();
    const first = await getDashboardChartsTable(db(), getStatsLedger(db()), t0);
    expect(first.trades).toBe(3);
    // One more round trip: a fifth realized match, a fourth closing trade.
    const secret = await webhookSecret(app, admin);
    for (const [i, action] of (["sell", "buy"] as const).entries()) {
      expect(
        (
          await sendSignal(app, secret, {
            action,
            symbol: "ETH-PERP",
            quantity: "0.1",
            order_type: "market",
            id: `charts-ttl-${i}`,
          })
        ).status,
      ).toBe(200);
    }
    await waitFor("the fifth match", async () => (await getStatsLedger(db())).closedTradesPnl().realizedMatches === 5);
    expect(await getDashboardChartsTable(db(), getStatsLedger(db()), t0 + 500)).toBe(first);
    const next = await getDashboardChartsTable(db(), getStatsLedger(db()), t0 + 1_001);
    expect(next.trades).toBe(4);
  });

  test("Reset Statistics deletes the snapshots with the trades: the charts start again empty", async () => {
    const reset = await app.fetch("/api/reset-stats", { method: "POST", cookie: admin });
    expect(reset.status).toBe(200);
    const left = await db()
      .selectFrom("equity_snapshots")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirst();
    expect(Number(left!.n)).toBe(0);
    const charts = await api<PerformanceCharts>("/api/performance-charts?range=all");
    expect(charts.totals).toMatchObject({ realizedPnl: "0", trades: 0 });
    expect(charts.equity).toHaveLength(1);
    expect(charts.bySymbol).toEqual([]);
    const html = await (await app.fetch("/performance", { cookie: admin })).text();
    expect(html).toContain("No closed trades in this range yet");
  });
});
