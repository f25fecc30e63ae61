// The statistics cache (app/services/statistics.server.ts) on both dialects: every answer
// equals a computation from scratch over the executed fills, whatever happened to them
// (booked in order, late across symbols, out of order within a symbol, committed after the
// look-back, rewritten, pending, deleted by a reset), and the
// cache is actually used (hits and appends, rebuilds only when they are needed). The API
// routes and the dashboard see a fill booked just before they are called.
import { beforeAll, describe, expect, test } from "vitest";
import { D } from "#app/core/decimal.ts";
import { closedTradesPnl, matchFifo } from "#app/core/pnl/fifo.ts";
import { periodStats } from "#app/core/pnl/performance-stats.ts";
import {
  getClosedTradesPnl,
  getNetPnlSince,
  getPerformanceStats,
  getStatsLedger,
  statsCacheCounters,
} from "#app/services/statistics.server.ts";
import { listExecutedFills, listExecutedTradeRowsByIds } from "#db/queries/statistics.ts";
import { insertTrade, updateTrade } from "#db/queries/trades.ts";
import { freshApp, registerVia } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { bookMarketTrade } from "#tests/setup/scripted-trades.ts";

const DAY = 24 * 60 * 60 * 1000;

describe.each(testDialects())("statistics cache on %s", (dialect) => {
  const app = freshApp(dialect);
  let cookie: string;
  const db = () => app.database.db;
  let n = 0;

  /** A trade as the worker writes it: pending first, then executed (the booking). */
  const book = async (
    side: "buy" | "sell",
    quantity: string,
    price: string,
    executedAt: number,
    fee = "0.5",
    symbol = "ETH-PERP",
  ) => {
    const id = `t${String(++n).padStart(4, "0")}-${side}`;
    await bookMarketTrade(db(), { id, symbol, side, quantity, price, fee, executedAt, leverage: 2 });
    return id;
  };

  /** A manual market buy of 1 ETH still pending: written, not a fill. */
  const pending = (id: string, clientOrderId: string) =>
    insertTrade(db(), {
      id,
      symbol: "ETH-PERP",
      side: "buy",
      orderType: "market",
      quantity: "1",
      price: null,
      source: "manual",
      clientOrderId,
      exchange: "simulator",
    });

  /** What the cache must answer: everything from scratch. */
  const fromScratch = async (now: number) => {
    const fills = await listExecutedFills(db());
    return { stats: periodStats(matchFifo(fills).matches, now), pnl: closedTradesPnl(fills) };
  };

  const expectFresh = async (now: number) => {
    const expected = await fromScratch(now);
    expect(await getPerformanceStats(db(), now)).toEqual(expected.stats);
    expect(await getClosedTradesPnl(db())).toEqual(expected.pnl);
    return expected;
  };

  beforeAll(async () => {
    cookie = (await registerVia(app, "admin")).cookie;
  });

  test("appends new fills, answers unchanged data from memory, rebuilds after out-of-order, rewritten and deleted fills", async () => {
    const t0 = Date.now() - 20 * DAY;
    const now = Date.now();

    // Empty, then a first round trip booked in order.
    expect((await expectFresh(now)).pnl).toEqual({ totalPnL: "0", realizedMatches: 0, closingTrades: 0 });
    await book("buy", "1", "3000", t0);
    const firstExit = await book("sell", "1", "3100", t0 + 60_000);
    let expected = await expectFresh(now);
    expect(expected.pnl).toEqual({ totalPnL: "99", realizedMatches: 1, closingTrades: 1 }); // 100 − 0.5 − 0.5
    expect(expected.stats.allTime.totalTrades).toBe(1);
    expect(expected.stats.week.totalTrades).toBe(0); // 20 days ago: in the month, not the week
    expect(expected.stats.month.totalTrades).toBe(1);

    // Nothing changed: answered from memory.
    const before = statsCacheCounters(db());
    await expectFresh(now);
    const after = statsCacheCounters(db());
    expect(after.hits).toBeGreaterThan(before.hits);
    expect(after.rebuilds).toBe(before.rebuilds);

    // A pending trade is not a fill: still a hit.
    await pending("pending-1", "c-pending-1");
    const hitsBefore = statsCacheCounters(db()).hits;
    await expectFresh(now);
    expect(statsCacheCounters(db()).hits).toBeGreaterThan(hitsBefore);

    // Booked in order (today, a short closed at a loss): appended, not rebuilt.
    const rebuilds = statsCacheCounters(db()).rebuilds;
    const appends = statsCacheCounters(db()).appends;
    await book("sell", "2", "3000", now - 3_600_000, "1");
    await book("buy", "2", "3050", now - 1_800_000, "1");
    expected = await expectFresh(now);
    expect(statsCacheCounters(db()).rebuilds).toBe(rebuilds);
    expect(statsCacheCounters(db()).appends).toBeGreaterThan(appends);
    expect(expected.pnl).toEqual({ totalPnL: "-3", realizedMatches: 2, closingTrades: 2 }); // 99 + (−100 − 1 − 1)
    expect(expected.stats.week.totalTrades).toBe(1);
    expect(await getNetPnlSince(db(), now - DAY)).toBe("-102");

    // Another symbol's fills executed 10 days ago, committed now (FIFO never pairs symbols):
    // appended, exact.
    await book("buy", "1", "100", t0 + 10 * DAY, "0.1", "SOL-PERP");
    await book("sell", "1", "110", t0 + 10 * DAY + 1, "0.1", "SOL-PERP");
    let rebuildsBefore = statsCacheCounters(db()).rebuilds;
    expected = await expectFresh(now);
    expect(statsCacheCounters(db()).rebuilds).toBe(rebuildsBefore);
    expect(expected.pnl).toEqual({ totalPnL: "6.8", realizedMatches: 3, closingTrades: 3 });

    // A fill of ETH executed before ETH's last one (out of order within its symbol): rebuilt, exact.
    await book("buy", "1", "2900", now - 2 * 3_600_000, "0.5");
    rebuildsBefore = statsCacheCounters(db()).rebuilds;
    expected = await expectFresh(now);
    expect(statsCacheCounters(db()).rebuilds).toBeGreaterThan(rebuildsBefore);

    // A trade written long before its commit became visible (older than the look-back): rebuilt, exact.
    const late = await book("sell", "1", "2950", now - 10 * 60_000, "0.5");
    await db()
      .updateTable("trades")
      .set({ updated_at: Date.now() - 60_000 })
      .where("id", "=", late)
      .execute();
    rebuildsBefore = statsCacheCounters(db()).rebuilds;
    expected = await expectFresh(now);
    expect(statsCacheCounters(db()).rebuilds).toBeGreaterThan(rebuildsBefore);

    // An old fill rewritten (its fee corrected), nothing added: rebuilt, exact.
    const pnlBefore = (await getClosedTradesPnl(db())).totalPnL;
    await Bun.sleep(2); // a later millisecond, as any real correction would be
    await updateTrade(db(), firstExit, { fee: "2.5" });
    expect((await expectFresh(now)).pnl.totalPnL).toBe(D(pnlBefore).minus(2).toString());

    // Same as a reset: every trade deleted.
    await db().deleteFrom("trades").execute();
    expect((await expectFresh(now)).pnl).toEqual({ totalPnL: "0", realizedMatches: 0, closingTrades: 0 });
  });

  test("the uncounted trades are read by id: executed ones only, across several statements", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await book("buy", "0.1", "3000", Date.now() - 1000 + i));
    await pending("by-id-pending", "c-by-id-pending");
    // 1,200 ids (three statements of at most 500): the three executed trades among unknown and pending ones.
    const asked = [...Array.from({ length: 1196 }, (_, i) => `missing-${i}`), "by-id-pending", ...ids];
    const rows = await listExecutedTradeRowsByIds(db(), asked);
    expect(rows.map((row) => row.id).sort()).toEqual([...ids].sort());
    for (const row of rows) {
      expect(row.fill).toMatchObject({
        id: row.id,
        symbol: "ETH-PERP",
        side: "buy",
        quantity: "0.1",
        price: "3000",
        fee: "0.5",
        leverage: 2,
      });
      expect(row.updatedAt).toBeGreaterThan(0);
    }
    expect(await listExecutedTradeRowsByIds(db(), [])).toEqual([]);
    await db().deleteFrom("trades").execute();
    await expectFresh(Date.now());
  });

  test("a new trade rewritten between the snapshot and its read by id: rebuilt, exact", async () => {
    const now = Date.now();
    // A view of the database that, once armed, rewrites a trade right after the snapshot
    // statement (fingerprint + recent ids) answers, before the new trades are read by id.
    let rewrite: (() => Promise<void>) | null = null;
    const view = db().withPlugin({
      transformQuery: ({ node }) => node,
      transformResult: async ({ result }) => {
        const rows = result.rows as { k?: unknown }[];
        if (rewrite && rows.some((row) => row.k !== undefined)) {
          const run = rewrite;
          rewrite = null;
          await run();
        }
        return result;
      },
    });
    await getStatsLedger(view);
    await book("buy", "1", "3000", now - 50_000, "0.5");
    const sold = await book("sell", "1", "3100", now - 40_000, "0.5");
    rewrite = async () => {
      await Bun.sleep(2); // a later millisecond, as any real correction
      await updateTrade(db(), sold, { fee: "7.5" });
    };
    const rebuildsBefore = statsCacheCounters(view).rebuilds;
    const expected = await fromScratch(now);
    expect(await getClosedTradesPnl(view)).not.toEqual(expected.pnl); // the fee changed after `expected` was read
    expect(rewrite).toBeNull(); // the rewrite happened mid-refresh
    expect(statsCacheCounters(view).rebuilds).toBe(rebuildsBefore + 1);
    expect(await getClosedTradesPnl(view)).toEqual((await fromScratch(now)).pnl);
    await db().deleteFrom("trades").execute();
    await expectFresh(Date.now());
  });

  test("concurrent callers share refreshes (at most one running, one waiting) and still see a fill booked before they called", async () => {
    const now = Date.now();
    await getStatsLedger(db());
    const before = statsCacheCounters(db());
    const refreshes = (c: typeof before) => c.hits + c.appends + c.rebuilds;
    // 20 callers at once: the refresh starts one macrotask after the first asked, and all 20
    // asked before then, so they share it (decision 037).
    const answers = await Promise.all(Array.from({ length: 20 }, () => getClosedTradesPnl(db())));
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(refreshes(statsCacheCounters(db())) - refreshes(before)).toBe(1);
    // A refresh is running (its fingerprint read before the booking); a caller after the
    // booking gets the next refresh, with the new fill.
    const running = getClosedTradesPnl(db());
    await book("buy", "1", "150", now - 30_000, "0.1", "XRP-PERP");
    await book("sell", "1", "151", now - 20_000, "0.1", "XRP-PERP");
    const after = await getClosedTradesPnl(db());
    await running;
    expect(after).toEqual((await fromScratch(now)).pnl);
    expect(after.realizedMatches).toBe(answers[0]!.realizedMatches + 1);
  });

  test("the API routes and the dashboard see a fill booked just before they are called", async () => {
    const get = async (path: string) => {
      const response = await app.fetch(path, { cookie });
      expect(response.status).toBe(200);
      return response.json();
    };
    const now = Date.now();
    const first = (await get("/api/closed-trades-pnl")) as { totalPnL: string; realizedMatches: number };
    await get("/api/performance-stats");
    await book("buy", "0.5", "60000", now - 120_000, "1", "BTC-PERP");
    await book("sell", "0.5", "60200", now - 60_000, "1", "BTC-PERP");
    const pnl = (await get("/api/closed-trades-pnl")) as { totalPnL: string; realizedMatches: number };
    expect(pnl.realizedMatches).toBe(first.realizedMatches + 1);
    const stats = (await get("/api/performance-stats")) as { week: { totalTrades: number } };
    expect(stats).toEqual((await fromScratch(Date.now())).stats);
    expect(stats.week.totalTrades).toBeGreaterThanOrEqual(1);
    const dashboard = (await get("/api/dashboard/stats")) as { stats: { todayPnL: string } };
    expect(dashboard.stats.todayPnL).toBe(await getNetPnlSince(db(), Date.now() - DAY));
  });
});
