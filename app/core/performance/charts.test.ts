import { describe, expect, test } from "vitest";
import { D } from "../decimal.ts";
import { type RealizedMatch, matchFifo } from "../pnl/fifo.ts";
import { periodStats } from "../pnl/performance-stats.ts";
import {
  DAY_MS,
  SNAPSHOT_FOLLOWS_MS,
  dailyPnl,
  dailyTable,
  downsample,
  endOfDayEquity,
  equityCurve,
  maxDrawdown,
  pnlByGroup,
  pnlHistogram,
  rangeSince,
  rangeTotals,
  utcDay,
} from "./charts.ts";

const T0 = Date.UTC(2026, 10, 20, 12, 0, 0); // 2026-11-20 12:00 UTC
const H = 3_600_000;

const match = (exitTime: number, netPnl: string, symbol = "BTC-PERP", entryTradeId = "e"): RealizedMatch => ({
  symbol,
  side: "long",
  quantity: "1",
  entryPrice: "100",
  exitPrice: "100",
  entryTime: exitTime - H,
  exitTime,
  grossPnl: netPnl,
  fees: "0",
  netPnl,
  entryTradeId,
  exitTradeId: `x${exitTime}`,
  leverage: 1,
});

describe("ranges", () => {
  test("7 d and 30 d are the statistics' week and month windows; all time starts at 0", () => {
    expect(rangeSince("7d", T0)).toBe(T0 - 7 * DAY_MS);
    expect(rangeSince("30d", T0)).toBe(T0 - 30 * DAY_MS);
    expect(rangeSince("all", T0)).toBe(0);
  });

  test("a range's totals are the statistics' total P&L and trade count for the same window, exactly", () => {
    // Real FIFO matches (fees with many decimals), some outside the week.
    const fills = [
      {
        id: "1",
        symbol: "ETH-PERP",
        side: "buy" as const,
        quantity: "1",
        price: "3001.5",
        fee: "1.8009",
        executedAt: T0 - 20 * DAY_MS,
      },
      {
        id: "2",
        symbol: "ETH-PERP",
        side: "sell" as const,
        quantity: "0.5",
        price: "3198.4",
        fee: "0.95952",
        executedAt: T0 - 10 * DAY_MS,
      },
      {
        id: "3",
        symbol: "ETH-PERP",
        side: "sell" as const,
        quantity: "0.5",
        price: "2998.5",
        fee: "0.899551",
        executedAt: T0 - 2 * DAY_MS,
      },
      {
        id: "4",
        symbol: "BTC-PERP",
        side: "sell" as const,
        quantity: "0.1",
        price: "90000",
        fee: "5.4",
        executedAt: T0 - 3 * DAY_MS,
      },
      {
        id: "5",
        symbol: "BTC-PERP",
        side: "buy" as const,
        quantity: "0.1",
        price: "89000.33",
        fee: "5.3400198",
        executedAt: T0 - DAY_MS,
      },
    ];
    const { matches } = matchFifo(fills);
    const stats = periodStats(matches, T0);
    for (const [range, period] of [
      ["7d", "week"],
      ["30d", "month"],
      ["all", "allTime"],
    ] as const) {
      const totals = rangeTotals(matches, [], rangeSince(range, T0), T0);
      expect(D(totals.realizedPnl).round(2).toFixed(2)).toBe(D(stats[period].totalPnl!).toFixed(2));
      expect(totals.trades).toBe(stats[period].totalTrades);
    }
    // The week holds the two last closes: exact sum of their net P&L.
    const week = matches.filter((m) => m.exitTime >= T0 - 7 * DAY_MS);
    expect(rangeTotals(matches, [], T0 - 7 * DAY_MS, T0).realizedPnl).toBe(
      week.reduce((s, m) => s.plus(m.netPnl), D(0)).toString(),
    );
  });
});

describe("daily buckets", () => {
  test("a close just before and just after UTC midnight land on different days; empty days are 0; funding counts on its day", () => {
    const midnight = Date.UTC(2026, 10, 21);
    const matches = [match(midnight - 1, "10.5"), match(midnight, "-3.25"), match(midnight + 5 * H, "1")];
    const funding = [{ amount: "-0.3", at: midnight + 6 * H }];
    const since = midnight - 2 * DAY_MS - H;
    const bars = dailyPnl(matches, funding, since, midnight + 2 * DAY_MS);
    expect(bars.map((b) => b.day)).toEqual([
      "2026-11-18",
      "2026-11-19",
      "2026-11-20",
      "2026-11-21",
      "2026-11-22",
      "2026-11-23",
    ]);
    expect(bars.map((b) => b.pnl)).toEqual(["0", "0", "10.5", "-2.55", "0", "0"]);
    expect(bars.map((b) => [b.trades, b.wins, b.losses])).toEqual([
      [0, 0, 0],
      [0, 0, 0],
      [1, 1, 0],
      [2, 1, 1],
      [0, 0, 0],
      [0, 0, 0],
    ]);
    // The bars add up to the range's total.
    expect(bars.reduce((s, b) => s.plus(b.pnl), D(0)).toString()).toBe(
      rangeTotals(matches, funding, since, midnight + 2 * DAY_MS).realizedPnl,
    );
  });

  test("a range leaves out what closed before it; all time starts on the first close's day", () => {
    const matches = [match(T0 - 10 * DAY_MS, "5"), match(T0 - DAY_MS, "2")];
    const week = dailyPnl(matches, [], T0 - 7 * DAY_MS, T0);
    expect(week).toHaveLength(8); // the partial first day, six whole days, today
    expect(week.reduce((s, b) => s.plus(b.pnl), D(0)).toString()).toBe("2");
    const all = dailyPnl(matches, [], 0, T0);
    expect(all[0]!.day).toBe(utcDay(T0 - 10 * DAY_MS));
    expect(all).toHaveLength(11);
    expect(dailyPnl([], [], 0, T0)).toEqual([{ day: utcDay(T0), pnl: "0", trades: 0, wins: 0, losses: 0 }]);
  });
});

describe("equity curve and drawdown", () => {
  test("realized is the running sum of closes; snapshots add their unrealized part; now closes the curve", () => {
    const matches = [match(T0 + H, "100"), match(T0 + 3 * H, "-150"), match(T0 + 5 * H, "20")];
    const snapshots = [
      { at: T0 + H, unrealizedPnl: "5", balance: "10100" }, // right after the first close
      { at: T0 + 2 * H, unrealizedPnl: "-40", balance: "10100" },
      { at: T0 + 4 * H, unrealizedPnl: "0", balance: "9950" },
    ];
    const points = equityCurve({
      matches,
      funding: [],
      snapshots,
      since: T0,
      now: T0 + 6 * H,
      nowUnrealized: "12.5",
      nowBalance: null,
    });
    expect(points.map((p) => [p.at - T0, p.realized, p.unrealized, p.equity, p.drawdown])).toEqual([
      [H, "100", "5", "105", "0"],
      [2 * H, "100", "-40", "60", "-45"],
      [3 * H, "-50", null, "-50", "-155"],
      [4 * H, "-50", "0", "-50", "-155"],
      [5 * H, "-30", null, "-30", "-135"],
      [6 * H, "-30", "12.5", "-17.5", "-122.5"],
    ]);
    expect(maxDrawdown(points)).toBe("-155");
  });

  test("end-of-day equity: the last point before each day's end, null before the first", () => {
    const midnight = Date.UTC(2026, 10, 21);
    const points = [
      { at: midnight - 1, equity: "5" },
      { at: midnight, equity: "7" },
      { at: midnight + 3 * H, equity: "-2" },
    ];
    expect(endOfDayEquity(points, ["2026-11-19", "2026-11-20", "2026-11-21", "2026-11-22"])).toEqual([
      null,
      "5",
      "-2",
      "-2",
    ]);
  });

  test("the dashboard's table: the latest days that closed something, their end-of-day equity, the totals", () => {
    const midnight = Date.UTC(2026, 10, 21);
    const matches = [match(midnight - 2 * DAY_MS, "4"), match(midnight + H, "-1.5"), match(midnight + 2 * H, "3")];
    const since = midnight - 5 * DAY_MS;
    const now = midnight + 3 * H;
    const equity = equityCurve({ matches, funding: [], snapshots: [], since, now, nowUnrealized: "10" });
    const daily = dailyPnl(matches, [], since, now);
    const totals = { ...rangeTotals(matches, [], since, now), maxDrawdown: maxDrawdown(equity) };
    expect(dailyTable({ daily, equity, totals })).toEqual({
      rows: [
        { day: "2026-11-19", pnl: "4", trades: 1, equity: "4" },
        { day: "2026-11-21", pnl: "1.5", trades: 2, equity: "15.5" },
      ],
      realizedPnl: "5.5",
      trades: 3,
      equityNow: "15.5",
    });
    expect(dailyTable({ daily, equity, totals }, 1).rows.map((r) => r.day)).toEqual(["2026-11-21"]);
  });

  test("a close followed by the worker's snapshot shows at the snapshot, with the open positions' unrealized part", () => {
    // Long A and B open; A closes +10 while B is 30 under water: the equity never jumps to +10.
    const matches = [match(T0 + H, "10")];
    const snapshots = [
      { at: T0 + H - 60_000, unrealizedPnl: "-20", balance: null }, // A +10, B -30
      { at: T0 + H + 4_000, unrealizedPnl: "-30", balance: null }, // after A's close: B only
    ];
    const points = equityCurve({ matches, funding: [], snapshots, since: T0, now: T0 + 2 * H, nowUnrealized: null });
    expect(points.map((p) => [p.at - T0, p.realized, p.unrealized, p.equity])).toEqual([
      [H - 60_000, "0", "-20", "-20"],
      [H + 4_000, "10", "-30", "-20"],
    ]);
    // Without a snapshot soon after (no worker recording), the close stays a point of its own.
    const lone = equityCurve({
      matches,
      funding: [],
      snapshots: [{ at: T0 + H + SNAPSHOT_FOLLOWS_MS + 1, unrealizedPnl: "-30", balance: null }],
      since: T0,
      now: T0 + 2 * H,
      nowUnrealized: null,
    });
    expect(lone.map((p) => [p.at - T0, p.unrealized])).toEqual([
      [H, null],
      [H + SNAPSHOT_FOLLOWS_MS + 1, "-30"],
    ]);
  });

  test("the peak starts at 0: a first loss is a drawdown; a new high resets it", () => {
    const points = equityCurve({
      matches: [match(T0, "-10"), match(T0 + H, "25"), match(T0 + 2 * H, "-5")],
      funding: [],
      snapshots: [],
      since: 0,
      now: T0 + 3 * H,
      nowUnrealized: null,
    });
    expect(points.map((p) => p.drawdown)).toEqual(["-10", "0", "-5"]);
    expect(points.map((p) => p.equity)).toEqual(["-10", "15", "10"]);
  });

  test("closes at the same instant are one point; snapshots and closes outside the range are left out", () => {
    const matches = [match(T0 - DAY_MS, "99"), match(T0 + H, "1"), match(T0 + H, "2")];
    const points = equityCurve({
      matches,
      funding: [{ amount: "-0.5", at: T0 + H }],
      snapshots: [{ at: T0 - H, unrealizedPnl: "7", balance: null }],
      since: T0,
      now: T0 + 2 * H,
      nowUnrealized: null,
    });
    expect(points.map((p) => [p.at, p.realized])).toEqual([[T0 + H, "2.5"]]);
  });

  test("downsampling keeps the first, the last and the deepest drawdown, within the limit", () => {
    const matches = Array.from({ length: 1000 }, (_, i) => match(T0 + i * 60_000, i === 500 ? "-1000" : "1"));
    const points = equityCurve({ matches, funding: [], snapshots: [], since: 0, now: T0 + DAY_MS, nowUnrealized: "0" });
    const drawn = downsample(points, 50);
    expect(drawn.length).toBeLessThanOrEqual(50);
    expect(drawn[0]).toBe(points[0]);
    expect(drawn[drawn.length - 1]).toBe(points[points.length - 1]);
    expect(drawn.some((p) => p.drawdown === maxDrawdown(points))).toBe(true);
    expect(downsample(points.slice(0, 10), 50)).toEqual(points.slice(0, 10));
  });
});

describe("groups and distribution", () => {
  test("P&L by symbol and by owner, best first, only the range's matches", () => {
    const matches = [
      match(T0, "10", "BTC-PERP", "a"),
      match(T0 + 1, "-4", "ETH-PERP", "b"),
      match(T0 + 2, "1.5", "BTC-PERP", "b"),
      match(T0 - 30 * DAY_MS, "1000", "SOL-PERP", "a"),
    ];
    expect(pnlByGroup(matches, T0 - DAY_MS, T0 + H, (m) => ({ key: m.symbol, label: m.symbol }))).toEqual([
      { key: "BTC-PERP", label: "BTC-PERP", pnl: "11.5", trades: 2, wins: 2, losses: 0 },
      { key: "ETH-PERP", label: "ETH-PERP", pnl: "-4", trades: 1, wins: 0, losses: 1 },
    ]);
    const owner = (m: RealizedMatch) =>
      m.entryTradeId === "a" ? { key: "s1", label: "Trend" } : { key: "none", label: "Manual / other" };
    expect(pnlByGroup(matches, 0, T0 + H, owner).map((g) => [g.label, g.pnl, g.trades])).toEqual([
      ["Trend", "1010", 2],
      ["Manual / other", "-2.5", 2],
    ]);
  });

  test("the histogram counts every match once, in round bins with 0 as an edge", () => {
    const values = ["-37.2", "-5", "-0.01", "0", "12", "48.9", "50"];
    const bins = pnlHistogram(
      values.map((v, i) => match(T0 + i, v)),
      0,
      T0 + H,
    );
    expect(bins.reduce((n, b) => n + b.count, 0)).toBe(values.length);
    expect(bins.some((b) => b.from === "0")).toBe(true);
    for (const b of bins) expect(D(b.to).minus(b.from).toString()).toBe("10");
    const bin = (v: string) => bins.find((b) => D(v).gte(b.from) && D(v).lt(b.to));
    expect(bin("-0.01")!.from).toBe("-10");
    expect(bin("0")!.from).toBe("0");
    expect(bins[0]!.from).toBe("-40");
    expect(bins.at(-1)!.from).toBe("50");
    expect(pnlHistogram([], 0, T0)).toEqual([]);
    // One value: one bin.
    expect(pnlHistogram([match(T0, "3")], 0, T0 + 1)).toEqual([{ from: "3", to: "4", count: 1 }]);
  });
});

describe("closing trades (issue 25): one definition with Trade History's 'N closing trades'", () => {
  test("a trade closing two lots is ONE closed trade; its win or loss is its matches' net summed", () => {
    // Exit trade x1 closes two lots (+5 and −2: a +3 win); x2 closes one lot (−1: a loss).
    const two = [
      { ...match(T0 - H, "5"), exitTradeId: "x1" },
      { ...match(T0 - H, "-2", "BTC-PERP", "e2"), exitTradeId: "x1" },
      { ...match(T0 - 30 * 60_000, "-1"), exitTradeId: "x2" },
    ];
    expect(rangeTotals(two, [], 0, T0)).toMatchObject({ realizedPnl: "2", trades: 2, wins: 1, losses: 1 });
    const day = dailyPnl(two, [], T0 - 2 * H, T0).find((b) => b.trades > 0)!;
    expect(day).toMatchObject({ trades: 2, wins: 1, losses: 1 });
    expect(pnlByGroup(two, 0, T0, (m) => ({ key: m.symbol, label: m.symbol }))).toEqual([
      { key: "BTC-PERP", label: "BTC-PERP", pnl: "2", trades: 2, wins: 1, losses: 1 },
    ]);
  });
});
