// Performance statistics against hand-computed fixtures: the arithmetic is in the comments.
import { describe, expect, test } from "vitest";
import { D } from "../decimal.ts";
import type { RealizedMatch } from "./fifo.ts";
import { type PerformanceStats, performanceStats, periodStats, round2 } from "./performance-stats.ts";
import { EMPTY_PERFORMANCE_STATS } from "#tests/setup/fixtures.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const match = (
  side: "long" | "short",
  quantity: string,
  entryPrice: string,
  exitPrice: string,
  grossPnl: string,
  fees: string,
  netPnl: string,
  leverage: number,
  durationMs: number,
  exitTime = 10 * DAY,
): RealizedMatch => ({
  symbol: "BTC-PERP",
  side,
  quantity,
  entryPrice,
  exitPrice,
  entryTime: exitTime - durationMs,
  exitTime,
  grossPnl,
  fees,
  netPnl,
  entryTradeId: "in",
  exitTradeId: "out",
  leverage,
});

// volume = entry × qty, margin = volume / leverage, pnl% = net / volume × 100
// M1 long  2 @ 100 → 110: net 19    volume 200 margin 200 pnl%   9.5  1h
const M1 = match("long", "2", "100", "110", "20", "1", "19", 1, HOUR);
// M2 short 1 @ 50 → 55:   net −5.5  volume  50 margin  10 pnl% −11    30min
const M2 = match("short", "1", "50", "55", "-5", "0.5", "-5.5", 5, 30 * 60_000);
// M3 long  4 @ 25 → 25:   net 0     volume 100 margin  50 pnl%   0    1d   (neither win nor loss)
const M3 = match("long", "4", "25", "25", "0", "0", "0", 2, DAY);
// M4 long  0.5 @ 400 → 380: net −10.2 volume 200 margin 20 pnl% −5.1  2h 15min 30s
const M4 = match("long", "0.5", "400", "380", "-10", "0.2", "-10.2", 10, 8_130_000);
// M5 long  1 @ 10 → 12:   net 1.9   volume  10 margin  10 pnl%  19    1d 1h 1min 1s
const M5 = match("long", "1", "10", "12", "2", "0.1", "1.9", 1, 90_061_000);

const EMPTY: PerformanceStats = EMPTY_PERFORMANCE_STATS;

describe("performanceStats", () => {
  test("wins, losses and a break-even match", () => {
    expect(performanceStats([M1, M2, M3, M4])).toEqual({
      avgPnlPercent: "-1.65", // (9.5 − 11 + 0 − 5.1) / 4 = −6.6 / 4
      totalPnl: "3.30", // 19 − 5.5 + 0 − 10.2
      pnlPercent: "0.60", // 3.3 / 550 × 100
      roi: "1.18", // 3.3 / (200 + 10 + 50 + 20) × 100 = 1.178571…
      maxLossPercent: "-11.00", // M2
      maxGainPercent: "9.50", // M1
      totalVolume: "550.00", // 200 + 50 + 100 + 200
      minTradeVolume: "50.00",
      avgTradeVolume: "137.50", // 550 / 4
      maxTradeVolume: "200.00",
      totalTrades: 4,
      // (3 600 000 + 1 800 000 + 86 400 000 + 8 130 000) / 4 = 24 982 500 ms → 24 982 s = 6h 56min 22s
      avgTimeInTrade: "0d. 6h. 56min. 22sec.",
      profitFactor: "1.21", // 19 / (5.5 + 10.2) = 1.210191…
      profitVolumePercent: "36.36", // 200 / 550 × 100 = 36.3636…
      percentProfitable: "25.00", // 1 win of 4 (M3 is not a win)
    });
  });

  test("only wins: profitFactor is null", () => {
    expect(performanceStats([M1, M5])).toEqual({
      avgPnlPercent: "14.25", // (9.5 + 19) / 2
      totalPnl: "20.90", // 19 + 1.9
      pnlPercent: "9.95", // 20.9 / 210 × 100 = 9.952380…
      roi: "9.95", // margins 200 + 10 = 210, leverage 1 both
      maxLossPercent: "0.00",
      maxGainPercent: "19.00",
      totalVolume: "210.00",
      minTradeVolume: "10.00",
      avgTradeVolume: "105.00",
      maxTradeVolume: "200.00",
      totalTrades: 2,
      // (3 600 000 + 90 061 000) / 2 = 46 830 500 ms → 46 830 s = 13h 0min 30s
      avgTimeInTrade: "0d. 13h. 0min. 30sec.",
      profitFactor: null,
      profitVolumePercent: "100.00",
      percentProfitable: "100.00",
    });
  });

  test("only losses: profitFactor 0", () => {
    expect(performanceStats([M2, M4])).toEqual({
      avgPnlPercent: "-8.05", // (−11 − 5.1) / 2
      totalPnl: "-15.70", // −5.5 − 10.2
      pnlPercent: "-6.28", // −15.7 / 250 × 100
      roi: "-52.33", // −15.7 / (10 + 20) × 100 = −52.333…
      maxLossPercent: "-11.00",
      maxGainPercent: "0.00",
      totalVolume: "250.00",
      minTradeVolume: "50.00",
      avgTradeVolume: "125.00",
      maxTradeVolume: "200.00",
      totalTrades: 2,
      // (1 800 000 + 8 130 000) / 2 = 4 965 000 ms → 4 965 s = 1h 22min 45s
      avgTimeInTrade: "0d. 1h. 22min. 45sec.",
      profitFactor: "0.00", // 0 / 15.7
      profitVolumePercent: "0.00",
      percentProfitable: "0.00",
    });
  });

  test("an empty period: zeros, profitFactor null, zero time", () => {
    expect(performanceStats([])).toEqual(EMPTY);
  });

  test("days show in avgTimeInTrade", () => {
    // one match of 3d 4h 5min 6s
    const long = match("long", "1", "1", "1", "0", "0", "0", 1, 3 * DAY + 4 * HOUR + 5 * 60_000 + 6_000);
    expect(performanceStats([long]).avgTimeInTrade).toBe("3d. 4h. 5min. 6sec.");
  });
});

describe("round2", () => {
  test("half-up away from zero, 2 decimals, no negative zero", () => {
    expect(round2(D("0.125"))).toBe("0.13");
    expect(round2(D("-0.125"))).toBe("-0.13");
    expect(round2(D("0.124999"))).toBe("0.12");
    expect(round2(D("-0.001"))).toBe("0.00");
    expect(round2(D("7"))).toBe("7.00");
  });
});

describe("periodStats", () => {
  const now = 100 * DAY;
  test("week and month are rolling 7 and 30 days, a match counted by its exit time", () => {
    const inWeek = match("long", "1", "100", "110", "10", "0", "10", 1, HOUR, now - 2 * DAY); // +10
    const weekEdge = match("long", "1", "100", "101", "1", "0", "1", 1, HOUR, now - 7 * DAY); // +1, exactly 7 days: in
    // entered 40 days ago but exited 20 days ago: month, not week
    const inMonth = match("short", "1", "100", "104", "-4", "0", "-4", 1, 20 * DAY, now - 20 * DAY); // −4
    const older = match("long", "1", "100", "200", "100", "0", "100", 1, HOUR, now - 31 * DAY); // +100
    const stats = periodStats([older, inMonth, weekEdge, inWeek], now);
    expect([stats.allTime.totalTrades, stats.month.totalTrades, stats.week.totalTrades]).toEqual([4, 3, 2]);
    expect(stats.allTime.totalPnl).toBe("107.00"); // 100 − 4 + 1 + 10
    expect(stats.month.totalPnl).toBe("7.00"); // −4 + 1 + 10
    expect(stats.week.totalPnl).toBe("11.00"); // 1 + 10
    expect(stats.week.profitFactor).toBeNull();
    expect(stats.month.profitFactor).toBe("2.75"); // 11 / 4
  });

  test("no trades at all: three empty periods", () => {
    expect(periodStats([], now)).toEqual({ allTime: EMPTY, month: EMPTY, week: EMPTY });
  });
});
