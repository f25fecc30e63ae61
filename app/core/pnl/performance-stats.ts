// Performance statistics (docs/spec/api.md#shapes "Performance stats response") from realized FIFO
// matches. Pure. Every field's meaning, the periods and the number format are decided in
// docs/decisions/004-performance-statistics.md; in short:
// - a match is one closed trade; its volume is its entry notional (entryPrice × quantity),
//   its margin volume / leverage, its P&L percent netPnl / volume × 100;
// - decimals are returned as strings rounded half-up to 2 decimals ("12.35", "-2.50",
//   "0.00"); totalTrades is a number; profitFactor is null when there is no loss;
// - periods are rolling windows ending now, a match belonging to one by its exit time.
import { durationText } from "../duration.ts";
import { Big, D } from "../decimal.ts";
import type { RealizedMatch } from "./fifo.ts";

export interface PerformanceStats {
  /** Mean of the matches' P&L percents (each match weighs the same). */
  avgPnlPercent: string;
  /** Sum of the matches' net P&L. */
  totalPnl: string;
  /** totalPnl / totalVolume × 100. */
  pnlPercent: string;
  /** totalPnl / total margin × 100 (margin = volume / leverage). */
  roi: string;
  /** Lowest P&L percent of a losing match (negative), "0.00" without losses. */
  maxLossPercent: string;
  /** Highest P&L percent of a winning match, "0.00" without wins. */
  maxGainPercent: string;
  totalVolume: string;
  minTradeVolume: string;
  avgTradeVolume: string;
  maxTradeVolume: string;
  /** Number of matches. */
  totalTrades: number;
  /** Mean of exit time − entry time, as '0d. 0h. 0min. 0sec.'. */
  avgTimeInTrade: string;
  /** Sum of winning net P&L / |sum of losing net P&L|; null when nothing lost. */
  profitFactor: string | null;
  /** Volume of winning matches / totalVolume × 100. */
  profitVolumePercent: string;
  /** Winning matches / totalTrades × 100. */
  percentProfitable: string;
}

export interface PeriodStats {
  allTime: PerformanceStats;
  month: PerformanceStats;
  week: PerformanceStats;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Rolling windows ending at the time of the request. */
export const PERIOD_MS = { month: 30 * DAY_MS, week: 7 * DAY_MS } as const;

const DECIMALS = 2;

/** Half-up to 2 decimals, always 2 decimals shown, never "-0.00". */
export function round2(value: Big): string {
  const text = value.toFixed(DECIMALS, Big.roundHalfUp);
  return /^-0\.0+$/.test(text) ? text.slice(1) : text;
}

const percentOf = (part: Big, whole: Big): Big => (whole.eq(0) ? D(0) : part.div(whole).times(100));

export const matchVolume = (match: RealizedMatch): Big => D(match.entryPrice).times(match.quantity);
export const matchPnlPercent = (match: RealizedMatch): Big => percentOf(D(match.netPnl), matchVolume(match));

/** What the statistics are computed from: sums, counts and extremes over some matches. */
export interface StatsTotals {
  count: number;
  totalPnl: Big;
  totalVolume: Big;
  totalMargin: Big;
  sumPercent: Big;
  grossProfit: Big;
  /** Positive. */
  grossLoss: Big;
  winningVolume: Big;
  wins: number;
  losses: number;
  maxGain: Big | null;
  maxLoss: Big | null;
  minVolume: Big | null;
  maxVolume: Big | null;
  totalDurationMs: number;
}

export const matchMargin = (match: RealizedMatch, volume: Big = matchVolume(match)): Big =>
  volume.div(match.leverage > 0 ? match.leverage : 1);

export type StatsExtremes = Pick<StatsTotals, "maxGain" | "maxLoss" | "minVolume" | "maxVolume">;

/** Widens `into`'s extremes by one match (its net P&L, volume and P&L %). */
export function addExtremes(into: StatsExtremes, m: { net: Big; volume: Big; percent: Big }) {
  if (into.minVolume === null || m.volume.lt(into.minVolume)) into.minVolume = m.volume;
  if (into.maxVolume === null || m.volume.gt(into.maxVolume)) into.maxVolume = m.volume;
  if (m.net.gt(0)) {
    if (into.maxGain === null || m.percent.gt(into.maxGain)) into.maxGain = m.percent;
  } else if (m.net.lt(0)) {
    if (into.maxLoss === null || m.percent.lt(into.maxLoss)) into.maxLoss = m.percent;
  }
}

export function performanceStats(matches: readonly RealizedMatch[]): PerformanceStats {
  const t: StatsTotals = {
    count: matches.length,
    totalPnl: D(0),
    totalVolume: D(0),
    totalMargin: D(0),
    sumPercent: D(0),
    grossProfit: D(0),
    grossLoss: D(0),
    winningVolume: D(0),
    wins: 0,
    losses: 0,
    maxGain: null,
    maxLoss: null,
    minVolume: null,
    maxVolume: null,
    totalDurationMs: 0,
  };

  for (const match of matches) {
    const net = D(match.netPnl);
    const volume = matchVolume(match);
    const percent = matchPnlPercent(match);
    t.totalPnl = t.totalPnl.plus(net);
    t.totalVolume = t.totalVolume.plus(volume);
    t.totalMargin = t.totalMargin.plus(matchMargin(match, volume));
    t.sumPercent = t.sumPercent.plus(percent);
    addExtremes(t, { net, volume, percent });
    if (net.gt(0)) {
      t.wins += 1;
      t.grossProfit = t.grossProfit.plus(net);
      t.winningVolume = t.winningVolume.plus(volume);
    } else if (net.lt(0)) {
      t.losses += 1;
      t.grossLoss = t.grossLoss.minus(net);
    }
    t.totalDurationMs += Math.max(0, match.exitTime - match.entryTime);
  }
  return statsFromTotals(t);
}

/** The docs/spec/api.md#shapes fields from totals (the one place their formulas live). */
export function statsFromTotals(t: StatsTotals): PerformanceStats {
  const count = t.count;
  return {
    avgPnlPercent: round2(count ? t.sumPercent.div(count) : D(0)),
    totalPnl: round2(t.totalPnl),
    pnlPercent: round2(percentOf(t.totalPnl, t.totalVolume)),
    roi: round2(percentOf(t.totalPnl, t.totalMargin)),
    maxLossPercent: round2(t.maxLoss ?? D(0)),
    maxGainPercent: round2(t.maxGain ?? D(0)),
    totalVolume: round2(t.totalVolume),
    minTradeVolume: round2(t.minVolume ?? D(0)),
    avgTradeVolume: round2(count ? t.totalVolume.div(count) : D(0)),
    maxTradeVolume: round2(t.maxVolume ?? D(0)),
    totalTrades: count,
    avgTimeInTrade: durationText(count ? Math.floor(t.totalDurationMs / count) : 0),
    profitFactor: t.losses > 0 && t.grossLoss.gt(0) ? round2(t.grossProfit.div(t.grossLoss)) : null,
    profitVolumePercent: round2(percentOf(t.winningVolume, t.totalVolume)),
    percentProfitable: round2(percentOf(D(t.wins), D(count))),
  };
}

/** allTime, month (last 30 days) and week (last 7 days), a match counted by its exit time. */
export function periodStats(matches: readonly RealizedMatch[], now: number): PeriodStats {
  const since = (windowMs: number) => matches.filter((m) => m.exitTime >= now - windowMs);
  return {
    allTime: performanceStats(matches),
    month: performanceStats(since(PERIOD_MS.month)),
    week: performanceStats(since(PERIOD_MS.week)),
  };
}
