// The statistics ledger: FIFO matching (fifo.ts) fed fill by fill, with running sums, so
// the P&L and the performance statistics over all time or over a rolling window cost a
// few additions instead of matching and summing every fill again. Pure; the cache that
// keeps one ledger per database lives in app/services/statistics.server.ts.
//
// Exactly matchFifo + performanceStats: FIFO matching only ever pairs fills of one symbol,
// so the matches depend only on each symbol's fills in execution order (executed_at, then
// id), and the statistics only on the set of matches. A fill may therefore come after
// fills of OTHER symbols executed later (the worker books symbols concurrently), as long as
// it comes after every fill of its own symbol. Matches are kept sorted by exit time (a
// late one is inserted and the prefix sums after it recomputed), so a window "exit time >=
// since" is a suffix found by binary search and its sums are differences of prefix sums
// (decimal additions and subtractions are exact); extremes are scanned over the window,
// and every field goes through statsFromTotals.
import { type Big, D } from "../decimal.ts";
import { type ExecutedFill, FifoBook, type RealizedMatch } from "./fifo.ts";
import {
  PERIOD_MS,
  type PerformanceStats,
  type PeriodStats,
  type StatsExtremes,
  type StatsTotals,
  addExtremes,
  matchMargin,
  matchPnlPercent,
  matchVolume,
  statsFromTotals,
} from "./performance-stats.ts";

interface Prefix {
  pnl: Big;
  volume: Big;
  margin: Big;
  percent: Big;
  grossProfit: Big;
  grossLoss: Big;
  winningVolume: Big;
  wins: number;
  losses: number;
  durationMs: number;
}

interface Derived {
  net: Big;
  volume: Big;
  percent: Big;
  margin: Big;
  durationMs: number;
  exitTime: number;
  /** The match itself (the Performance charts group and bucket it). */
  match: RealizedMatch;
}

type Extremes = StatsExtremes;

/** Matches per block of precomputed extremes: a window scans at most one block, then one entry per block. */
const BLOCK = 256;

const noExtremes = (): Extremes => ({ maxGain: null, maxLoss: null, minVolume: null, maxVolume: null });

function mergeExtremes(into: Extremes, other: Extremes) {
  if (other.minVolume !== null && (into.minVolume === null || other.minVolume.lt(into.minVolume)))
    into.minVolume = other.minVolume;
  if (other.maxVolume !== null && (into.maxVolume === null || other.maxVolume.gt(into.maxVolume)))
    into.maxVolume = other.maxVolume;
  if (other.maxGain !== null && (into.maxGain === null || other.maxGain.gt(into.maxGain))) into.maxGain = other.maxGain;
  if (other.maxLoss !== null && (into.maxLoss === null || other.maxLoss.lt(into.maxLoss))) into.maxLoss = other.maxLoss;
}

/** Position of a fill in execution order (the order the fills query sorts by). */
export interface FillKey {
  executedAt: number;
  id: string;
}

/** a before b in execution order: executed_at, then id (as the database sorts them). */
export const keyBefore = (a: FillKey, b: FillKey): boolean =>
  a.executedAt < b.executedAt || (a.executedAt === b.executedAt && a.id < b.id);

const ZERO_PREFIX: Prefix = {
  pnl: D(0),
  volume: D(0),
  margin: D(0),
  percent: D(0),
  grossProfit: D(0),
  grossLoss: D(0),
  winningVolume: D(0),
  wins: 0,
  losses: 0,
  durationMs: 0,
};

export class StatsLedger {
  private readonly book = new FifoBook();
  private readonly derived: Derived[] = [];
  /** prefix[i]: sums over matches[0..i). */
  private readonly prefix: Prefix[] = [ZERO_PREFIX];
  private memo = new Map<number | string, PerformanceStats>();
  /** Extremes over every match (the all-time window needs no scan). */
  private readonly all: Extremes = noExtremes();
  /** blocks[b]: extremes of derived[b × BLOCK .. (b + 1) × BLOCK). */
  private readonly blocks: Extremes[] = [];
  /** The last fill applied per symbol. */
  private readonly lastBySymbol = new Map<string, FillKey>();
  private readonly ids = new Set<string>();

  /** Number of fills applied. */
  get fills(): number {
    return this.ids.size;
  }

  /** Whether `fills` (in execution order) can be appended: each new, each after every fill of its symbol. */
  canAppend(fills: readonly ExecutedFill[]): boolean {
    const last = new Map<string, FillKey>();
    for (const fill of fills) {
      if (this.ids.has(fill.id)) return false;
      const previous = last.get(fill.symbol) ?? this.lastBySymbol.get(fill.symbol);
      const key = { executedAt: fill.executedAt, id: fill.id };
      if (previous && !keyBefore(previous, key)) return false;
      last.set(fill.symbol, key);
    }
    return true;
  }

  /** Adds fills (in execution order) that canAppend accepts; throws otherwise, before changing anything. */
  append(fills: readonly ExecutedFill[]): void {
    if (!this.canAppend(fills))
      throw new Error("StatsLedger.append: a fill is already applied or not after every fill of its symbol");
    let firstChanged = this.derived.length;
    for (const fill of fills) {
      this.ids.add(fill.id);
      this.lastBySymbol.set(fill.symbol, { executedAt: fill.executedAt, id: fill.id });
      for (const match of this.book.apply(fill)) firstChanged = Math.min(firstChanged, this.addMatch(match));
    }
    this.recomputePrefix(firstChanged);
    this.recomputeBlocks(firstChanged);
    this.memo = new Map();
  }

  /** Inserts a match in exit-time order (after those with the same exit time); returns its index. */
  private addMatch(match: RealizedMatch): number {
    const net = D(match.netPnl);
    const volume = matchVolume(match);
    const percent = matchPnlPercent(match);
    const derived: Derived = {
      net,
      volume,
      percent,
      margin: matchMargin(match, volume),
      durationMs: Math.max(0, match.exitTime - match.entryTime),
      exitTime: match.exitTime,
      match,
    };
    addExtremes(this.all, derived);
    let at = this.derived.length;
    while (at > 0 && this.derived[at - 1]!.exitTime > match.exitTime) at--;
    this.derived.splice(at, 0, derived);
    return at;
  }

  /** The blocks from the one holding `from` to the end. */
  private recomputeBlocks(from: number) {
    const first = Math.floor(from / BLOCK);
    this.blocks.length = first;
    for (let start = first * BLOCK; start < this.derived.length; start += BLOCK) {
      const extremes = noExtremes();
      const end = Math.min(this.derived.length, start + BLOCK);
      for (let i = start; i < end; i++) addExtremes(extremes, this.derived[i]!);
      this.blocks.push(extremes);
    }
  }

  /** prefix[i + 1] for every i >= from (prefix[0] is zero). */
  private recomputePrefix(from: number) {
    this.prefix.length = from + 1;
    for (let i = from; i < this.derived.length; i++) {
      const p = this.prefix[i]!;
      const d = this.derived[i]!;
      const win = d.net.gt(0);
      const loss = d.net.lt(0);
      this.prefix.push({
        pnl: p.pnl.plus(d.net),
        volume: p.volume.plus(d.volume),
        margin: p.margin.plus(d.margin),
        percent: p.percent.plus(d.percent),
        grossProfit: win ? p.grossProfit.plus(d.net) : p.grossProfit,
        grossLoss: loss ? p.grossLoss.minus(d.net) : p.grossLoss,
        winningVolume: win ? p.winningVolume.plus(d.volume) : p.winningVolume,
        wins: p.wins + (win ? 1 : 0),
        losses: p.losses + (loss ? 1 : 0),
        durationMs: p.durationMs + d.durationMs,
      });
    }
  }

  /** The closed-trades P&L response (docs/spec/api.md#shapes). */
  closedTradesPnl(): { totalPnL: string; realizedMatches: number; closingTrades: number } {
    return {
      totalPnL: this.book.totalPnL,
      realizedMatches: this.book.realizedMatches,
      closingTrades: this.book.closingTrades,
    };
  }

  /** Index of the first match whose exit time is >= since. */
  private firstSince(since: number): number {
    let lo = 0;
    let hi = this.derived.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.derived[mid]!.exitTime < since) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Index of the first match closed at or after `since` (epoch ms), in exit-time order: with
   * `fills`, it identifies the set of matches in a window (the Performance charts' cache key).
   */
  windowStart(since: number): number {
    return this.firstSince(since);
  }

  /** The matches from index `start` on (windowStart), in exit-time order: the ones the statistics of that window sum. */
  matchesFrom(start: number): RealizedMatch[] {
    return this.derived.slice(start).map((d) => d.match);
  }

  /** Net P&L of the matches closed at or after `since` (epoch ms), exact. */
  netPnlSince(since: number): string {
    const start = this.firstSince(since);
    return this.prefix[this.prefix.length - 1]!.pnl.minus(this.prefix[start]!.pnl).toString();
  }

  /**
   * The statistics of the matches from index `start` to the end; `extraPnl` (funding in the
   * window: realized P&L that is not a match) is added to the total P&L before the fields
   * derived from it.
   */
  private statsFrom(start: number, extraPnl = "0"): PerformanceStats {
    const key = extraPnl === "0" ? start : `${start}|${extraPnl}`;
    const cached = this.memo.get(key);
    if (cached) return cached;
    const end = this.derived.length;
    const a = this.prefix[start]!;
    const b = this.prefix[end]!;
    const totals: StatsTotals = {
      count: end - start,
      totalPnl: b.pnl.minus(a.pnl).plus(extraPnl),
      totalVolume: b.volume.minus(a.volume),
      totalMargin: b.margin.minus(a.margin),
      sumPercent: b.percent.minus(a.percent),
      grossProfit: b.grossProfit.minus(a.grossProfit),
      grossLoss: b.grossLoss.minus(a.grossLoss),
      winningVolume: b.winningVolume.minus(a.winningVolume),
      wins: b.wins - a.wins,
      losses: b.losses - a.losses,
      maxGain: null,
      maxLoss: null,
      minVolume: null,
      maxVolume: null,
      totalDurationMs: b.durationMs - a.durationMs,
    };
    if (start === 0) {
      Object.assign(totals, this.all);
    } else {
      // Up to the next block boundary one by one, then one entry per block.
      const boundary = Math.min(end, Math.ceil(start / BLOCK) * BLOCK);
      for (let i = start; i < boundary; i++) addExtremes(totals, this.derived[i]!);
      for (let b = boundary / BLOCK; b < this.blocks.length && b * BLOCK < end; b++)
        mergeExtremes(totals, this.blocks[b]!);
    }
    const stats = statsFromTotals(totals);
    if (this.memo.size >= 16) this.memo.clear();
    this.memo.set(key, stats);
    return stats;
  }

  /**
   * allTime, month (last 30 days) and week (last 7 days) at `now`, as periodStats; `extraPnl`
   * per period (funding charged in it) is added to each total P&L.
   */
  periodStats(now: number, extraPnl?: { allTime: string; month: string; week: string }): PeriodStats {
    return {
      allTime: this.statsFrom(0, extraPnl?.allTime),
      month: this.statsFrom(this.firstSince(now - PERIOD_MS.month), extraPnl?.month),
      week: this.statsFrom(this.firstSince(now - PERIOD_MS.week), extraPnl?.week),
    };
  }
}
