// Performance statistics (SPEC.md §3 "Performance stats response") from realized FIFO
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

export function performanceStats(matches: readonly RealizedMatch[]): PerformanceStats {
  const count = matches.length;
  let totalPnl = D(0);
  let totalVolume = D(0);
  let totalMargin = D(0);
  let sumPercent = D(0);
  let grossProfit = D(0);
  let grossLoss = D(0); // positive
  let winningVolume = D(0);
  let wins = 0;
  let losses = 0;
  let maxGain: Big | null = null;
  let maxLoss: Big | null = null;
  let minVolume: Big | null = null;
  let maxVolume: Big | null = null;
  let totalDurationMs = 0;

  for (const match of matches) {
    const net = D(match.netPnl);
    const volume = matchVolume(match);
    const percent = matchPnlPercent(match);
    totalPnl = totalPnl.plus(net);
    totalVolume = totalVolume.plus(volume);
    totalMargin = totalMargin.plus(volume.div(match.leverage > 0 ? match.leverage : 1));
    sumPercent = sumPercent.plus(percent);
    if (minVolume === null || volume.lt(minVolume)) minVolume = volume;
    if (maxVolume === null || volume.gt(maxVolume)) maxVolume = volume;
    if (net.gt(0)) {
      wins += 1;
      grossProfit = grossProfit.plus(net);
      winningVolume = winningVolume.plus(volume);
      if (maxGain === null || percent.gt(maxGain)) maxGain = percent;
    } else if (net.lt(0)) {
      losses += 1;
      grossLoss = grossLoss.minus(net);
      if (maxLoss === null || percent.lt(maxLoss)) maxLoss = percent;
    }
    totalDurationMs += Math.max(0, match.exitTime - match.entryTime);
  }

  return {
    avgPnlPercent: round2(count ? sumPercent.div(count) : D(0)),
    totalPnl: round2(totalPnl),
    pnlPercent: round2(percentOf(totalPnl, totalVolume)),
    roi: round2(percentOf(totalPnl, totalMargin)),
    maxLossPercent: round2(maxLoss ?? D(0)),
    maxGainPercent: round2(maxGain ?? D(0)),
    totalVolume: round2(totalVolume),
    minTradeVolume: round2(minVolume ?? D(0)),
    avgTradeVolume: round2(count ? totalVolume.div(count) : D(0)),
    maxTradeVolume: round2(maxVolume ?? D(0)),
    totalTrades: count,
    avgTimeInTrade: durationText(count ? Math.floor(totalDurationMs / count) : 0),
    profitFactor: losses > 0 && grossLoss.gt(0) ? round2(grossProfit.div(grossLoss)) : null,
    profitVolumePercent: round2(percentOf(winningVolume, totalVolume)),
    percentProfitable: round2(percentOf(D(wins), D(count))),
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
