// The Performance charts' series (issue 13, docs/decisions/031-performance-charts.md). Pure:
// the ledger's realized matches (app/core/pnl/ledger.ts, the same ones the Performance
// Statistics and Trade History sum), the funding booked, and the worker's equity snapshots
// in; decimal strings out. Nothing here computes P&L a second way: every realized figure is
// a sum of the matches' net P&L plus funding, added in exit-time order with exact decimals,
// so a window's total equals the statistics' total P&L for that window to the last digit.
import { type Big, D } from "../decimal.ts";
import type { RealizedMatch } from "../pnl/fifo.ts";
import { PERIOD_MS } from "../pnl/performance-stats.ts";
import type { ChartRange } from "../schemas/performance-charts.ts";

export const DAY_MS = 86_400_000;

/** Where a range starts at `now` (epoch ms; 0 = all time): the statistics' week and month windows. */
export function rangeSince(range: ChartRange, now: number): number {
  if (range === "7d") return now - PERIOD_MS.week;
  if (range === "30d") return now - PERIOD_MS.month;
  return 0;
}

/** The UTC day of an epoch-ms instant, "YYYY-MM-DD". */
export const utcDay = (ms: number): string => new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);

export interface FundingEntry {
  amount: string;
  at: number;
}

export interface SnapshotInput {
  at: number;
  unrealizedPnl: string;
  balance: string | null;
}

export interface EquityPoint {
  at: number;
  /** Realized P&L since the range's start up to this instant (matches + funding), from the ledger. */
  realized: string;
  /** Unrealized P&L of the open positions at this instant (a snapshot, or now); null between snapshots (a close). */
  unrealized: string | null;
  /** realized + unrealized when the unrealized part is known, else the realized figure. */
  equity: string;
  /** equity − the highest equity so far in the range (the range starts at 0): 0 or negative. */
  drawdown: string;
  /** The account's collateral at that instant (snapshots only). */
  balance: string | null;
}

export interface DailyBar {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  /** Realized P&L of the matches closed that day plus the funding charged that day (in the range). */
  pnl: string;
  trades: number;
  wins: number;
  losses: number;
}

export interface GroupPnl {
  key: string;
  label: string;
  pnl: string;
  trades: number;
  wins: number;
  losses: number;
}

export interface HistogramBin {
  /** Lower bound (inclusive) and upper bound (exclusive). */
  from: string;
  to: string;
  count: number;
}

export interface ChartTotals {
  /** Σ matches' net P&L + funding in the range: the statistics' total P&L for the same window. */
  realizedPnl: string;
  /** The funding part of realizedPnl. */
  funding: string;
  /**
   * Closing trades in the range: the trades that closed something, as Trade History's "N closing
   * trades" counts them (a trade closing two lots is one), and how many of them won or lost (their
   * matches' net summed). docs/pnl.md, issue 25.
   */
  trades: number;
  wins: number;
  losses: number;
  /** The deepest drawdown in the range (0 or negative). */
  maxDrawdown: string;
}

/** The Performance charts' data (app/services/performance-charts.server.ts, GET /api/performance-charts). */
export interface PerformanceCharts {
  range: ChartRange;
  /** Start of the window (epoch ms); null for all time. */
  since: number | null;
  now: number;
  totals: ChartTotals;
  /** The equity curve with its drawdown (at most `maxPoints` points; the last is "now"). */
  equity: EquityPoint[];
  daily: DailyBar[];
  /** Full only (the Performance screen and the API; the dashboard's card leaves them out). */
  bySymbol?: GroupPnl[];
  byStrategy?: GroupPnl[];
  distribution?: HistogramBin[];
}

/** Closing trades (issue 25, docs/pnl.md): the matches' net summed per closing trade, then counted: trades, wins (> 0), losses (< 0). */
function countClosing(nets: Map<string, Big>): { trades: number; wins: number; losses: number } {
  let wins = 0;
  let losses = 0;
  for (const net of nets.values()) {
    if (net.gt(0)) wins++;
    else if (net.lt(0)) losses++;
  }
  return { trades: nets.size, wins, losses };
}
const addNet = (nets: Map<string, Big>, m: RealizedMatch) =>
  nets.set(m.exitTradeId, (nets.get(m.exitTradeId) ?? D(0)).plus(m.netPnl));

/** Matches and funding in time order, as one stream of realized amounts. */
function realizedEvents(
  matches: readonly RealizedMatch[],
  funding: readonly FundingEntry[],
  since: number,
  now: number,
) {
  const events: { at: number; amount: string; match: RealizedMatch | null }[] = [];
  for (const m of matches)
    if (m.exitTime >= since && m.exitTime <= now) events.push({ at: m.exitTime, amount: m.netPnl, match: m });
  for (const f of funding) if (f.at >= since && f.at <= now) events.push({ at: f.at, amount: f.amount, match: null });
  // Stable: matches keep the ledger's exit-time order; funding goes after a match at the same instant.
  return events.sort((a, b) => a.at - b.at);
}

/** Realized totals of the range: the same sums as the statistics (matches net + funding). */
export function rangeTotals(
  matches: readonly RealizedMatch[],
  funding: readonly FundingEntry[],
  since: number,
  now: number,
): Omit<ChartTotals, "maxDrawdown"> {
  let pnl = D(0);
  let fundingSum = D(0);
  const closing = new Map<string, Big>();
  for (const e of realizedEvents(matches, funding, since, now)) {
    pnl = pnl.plus(e.amount);
    if (!e.match) {
      fundingSum = fundingSum.plus(e.amount);
      continue;
    }
    addNet(closing, e.match);
  }
  return { realizedPnl: pnl.toString(), funding: fundingSum.toString(), ...countClosing(closing) };
}

/**
 * Daily P&L bars: every UTC day from the range's first day (for all time: the first realized
 * event's day) to today, each the realized P&L of what closed that day in the range (matches
 * net of fees, plus funding); days without any are 0. The bars add up to the range's total.
 */
export function dailyPnl(
  matches: readonly RealizedMatch[],
  funding: readonly FundingEntry[],
  since: number,
  now: number,
): DailyBar[] {
  const events = realizedEvents(matches, funding, since, now);
  const first = since > 0 ? since : (events[0]?.at ?? now);
  const bars = new Map<string, { pnl: Big; closing: Map<string, Big> }>();
  for (let day = Math.floor(first / DAY_MS); day <= Math.floor(now / DAY_MS); day++) {
    bars.set(utcDay(day * DAY_MS), { pnl: D(0), closing: new Map() });
  }
  for (const e of events) {
    const bar = bars.get(utcDay(e.at))!;
    bar.pnl = bar.pnl.plus(e.amount);
    if (e.match) addNet(bar.closing, e.match);
  }
  return [...bars].map(([day, b]) => ({ day, pnl: b.pnl.toString(), ...countClosing(b.closing) }));
}

/** A snapshot this soon after a close is the one the worker took after it (it checks for fills every 5 s). */
export const SNAPSHOT_FOLLOWS_MS = 30_000;

/**
 * The equity curve of a range: a point at each instant something was realized (one per
 * distinct time) and at each snapshot, plus one at `now` with the unrealized P&L now. Each
 * point's realized part is the running sum of the range's realized events up to it (the
 * ledger's figures); its unrealized part is the snapshot's (or now's). A close followed within
 * SNAPSHOT_FOLLOWS_MS by a snapshot shows at that snapshot; one without (no worker recording
 * then) is a point whose unrealized part is unknown and whose equity is the realized figure.
 * Drawdown runs from the peak, starting at 0 (the range's start).
 */
export function equityCurve(input: {
  matches: readonly RealizedMatch[];
  funding: readonly FundingEntry[];
  snapshots: readonly SnapshotInput[];
  since: number;
  now: number;
  /** The unrealized P&L of the positions open now; null leaves out the point at now. */
  nowUnrealized: string | null;
  nowBalance?: string | null;
}): EquityPoint[] {
  const { since, now } = input;
  const events = realizedEvents(input.matches, input.funding, since, now);
  const snapshots = input.snapshots.filter((s) => s.at >= since && s.at <= now);
  const points: EquityPoint[] = [];
  let realized = D(0);
  let peak = D(0);
  let e = 0;
  let s = 0;
  const push = (at: number, unrealized: string | null, balance: string | null) => {
    const equity = unrealized === null ? realized : realized.plus(unrealized);
    if (equity.gt(peak)) peak = equity;
    points.push({
      at,
      realized: realized.toString(),
      unrealized,
      equity: equity.toString(),
      drawdown: equity.minus(peak).toString(),
      balance,
    });
  };
  while (e < events.length || s < snapshots.length) {
    // A snapshot at the same instant as a close comes after it (the worker takes it after the fill).
    if (e < events.length && (s >= snapshots.length || events[e]!.at <= snapshots[s]!.at)) {
      const at = events[e]!.at;
      while (e < events.length && events[e]!.at === at) realized = realized.plus(events[e++]!.amount);
      if (s < snapshots.length && snapshots[s]!.at - at <= SNAPSHOT_FOLLOWS_MS) {
        // The worker's snapshot after this fill: the close shows there, with its true unrealized
        // part (a point of its own would count the positions still open as worth 0).
        // Closes before that snapshot fold into it too.
        while (e < events.length && events[e]!.at <= snapshots[s]!.at) realized = realized.plus(events[e++]!.amount);
        push(snapshots[s]!.at, snapshots[s]!.unrealizedPnl, snapshots[s]!.balance);
        s++;
      } else push(at, null, null);
    } else {
      push(snapshots[s]!.at, snapshots[s]!.unrealizedPnl, snapshots[s]!.balance);
      s++;
    }
  }
  if (input.nowUnrealized !== null) push(now, input.nowUnrealized, input.nowBalance ?? null);
  return points;
}

/**
 * The equity at the end of each day (the last point of the curve at or before the day's
 * end), null before the curve's first point: the daily table's equity column.
 */
export function endOfDayEquity(
  points: readonly Pick<EquityPoint, "at" | "equity">[],
  days: readonly string[],
): (string | null)[] {
  let i = -1;
  return days.map((day) => {
    const end = Date.parse(`${day}T00:00:00Z`) + DAY_MS;
    while (i + 1 < points.length && points[i + 1]!.at < end) i++;
    return i >= 0 ? points[i]!.equity : null;
  });
}

/** How many days (the latest that closed something) the dashboard card's table lists. */
export const DASHBOARD_TABLE_DAYS = 10;

/** The dashboard card's table (its server-rendered data): the days that closed something, with the equity at each day's end. */
export interface DailyTable {
  rows: { day: string; pnl: string; trades: number; equity: string | null }[];
  realizedPnl: string;
  trades: number;
  /** The equity now (the curve's last point). */
  equityNow: string;
}

export function dailyTable(
  charts: Pick<PerformanceCharts, "daily" | "equity" | "totals">,
  lastDays = DASHBOARD_TABLE_DAYS,
): DailyTable {
  const equity = endOfDayEquity(
    charts.equity,
    charts.daily.map((b) => b.day),
  );
  return {
    rows: charts.daily
      .map((b, i) => ({ day: b.day, pnl: b.pnl, trades: b.trades, equity: equity[i] ?? null }))
      .filter((b) => b.trades > 0 || !D(b.pnl).eq(0))
      .slice(-lastDays),
    realizedPnl: charts.totals.realizedPnl,
    trades: charts.totals.trades,
    equityNow: charts.equity.at(-1)?.equity ?? "0",
  };
}

/** The deepest drawdown of a curve (0 when it never fell). */
export function maxDrawdown(points: readonly Pick<EquityPoint, "drawdown">[]): string {
  let min = D(0);
  for (const p of points) if (D(p.drawdown).lt(min)) min = D(p.drawdown);
  return min.toString();
}

/**
 * At most `max` points for drawing: the first, the last, the deepest drawdown, and the last
 * point of each of `max` − 3 equal time slices. The figures of the points kept are unchanged.
 */
export function downsample<T extends { at: number; drawdown: string }>(points: readonly T[], max: number): T[] {
  if (points.length <= max) return [...points];
  const first = points[0]!.at;
  const last = points[points.length - 1]!.at;
  const slices = Math.max(1, max - 3);
  const width = Math.max(1, (last - first) / slices);
  const keep = new Set<number>([0, points.length - 1]);
  let deepest = 0;
  for (let i = 0; i < points.length; i++) {
    if (D(points[i]!.drawdown).lt(points[deepest]!.drawdown)) deepest = i;
    const slice = Math.min(slices - 1, Math.floor((points[i]!.at - first) / width));
    const next = points[i + 1];
    if (!next || Math.min(slices - 1, Math.floor((next.at - first) / width)) !== slice) keep.add(i);
  }
  keep.add(deepest);
  return [...keep].sort((a, b) => a - b).map((i) => points[i]!);
}

/** Realized P&L of the range's matches per group (symbol, strategy), best first; funding belongs to no group. */
export function pnlByGroup(
  matches: readonly RealizedMatch[],
  since: number,
  now: number,
  keyOf: (match: RealizedMatch) => { key: string; label: string },
): GroupPnl[] {
  const groups = new Map<string, { label: string; pnl: Big; closing: Map<string, Big> }>();
  for (const m of matches) {
    if (m.exitTime < since || m.exitTime > now) continue;
    const { key, label } = keyOf(m);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { label, pnl: D(0), closing: new Map() }));
    g.pnl = g.pnl.plus(m.netPnl);
    addNet(g.closing, m);
  }
  return [...groups]
    .map(([key, g]) => ({ key, label: g.label, pnl: g.pnl.toString(), ...countClosing(g.closing) }))
    .sort((a, b) => D(b.pnl).cmp(a.pnl) || a.label.localeCompare(b.label));
}

/** 1, 2, 2.5 or 5 × a power of ten, at least `raw`. */
function niceStep(raw: Big): Big {
  if (raw.lte(0)) return D(1);
  let power = D(1);
  while (power.times(10).lte(raw)) power = power.times(10);
  while (power.gt(raw)) power = power.div(10);
  for (const f of [1, 2, 2.5, 5, 10]) if (power.times(f).gte(raw)) return power.times(f);
  return power.times(10);
}

/**
 * Win/loss distribution: the range's matches (each a closed trade as the statistics count
 * them) by net P&L, in about `target` bins of a round width whose edges include 0, so wins
 * and losses never share a bin (a 0 result counts in the bin starting at 0).
 */
export function pnlHistogram(
  matches: readonly RealizedMatch[],
  since: number,
  now: number,
  target = 10,
): HistogramBin[] {
  const values = matches.filter((m) => m.exitTime >= since && m.exitTime <= now).map((m) => D(m.netPnl));
  if (values.length === 0) return [];
  let min = values[0]!;
  let max = values[0]!;
  for (const v of values) {
    if (v.lt(min)) min = v;
    if (v.gt(max)) max = v;
  }
  const step = niceStep(max.minus(min).div(target));
  const start = min.div(step).round(0, 0 /* down */);
  const lowest = (min.lt(0) && !start.times(step).eq(min) ? start.minus(1) : start).times(step);
  const floorOf = (v: Big) => {
    const q = v.minus(lowest).div(step).round(0, 0);
    return q.toNumber();
  };
  const count = Math.max(1, floorOf(max) + 1);
  const bins: HistogramBin[] = Array.from({ length: count }, (_, i) => ({
    from: lowest.plus(step.times(i)).toString(),
    to: lowest.plus(step.times(i + 1)).toString(),
    count: 0,
  }));
  for (const v of values) bins[Math.min(count - 1, floorOf(v))]!.count++;
  return bins;
}
