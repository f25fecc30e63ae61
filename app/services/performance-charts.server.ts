// The Performance charts' data (issue 13, docs/decisions/031-performance-charts.md), for the
// Performance screen, the dashboard's card and GET /api/performance-charts alike. Realized
// figures are the statistics ledger's matches (app/services/statistics.server.ts: the same
// cache, the same matches the Performance Statistics and Trade History sum) plus the funding
// booked; the unrealized part of the equity curve is the worker's snapshots
// (db/queries/equity-snapshots.ts) and, for "now", the portfolio summary's figure.
//
// The series of one window depend only on which matches, funding payments and snapshots are
// in it (and on today's date, for the daily bars), so they are kept per ledger, keyed by
// those; only the point "now" (the unrealized P&L moves with every price) is added per call.
import type { Kysely } from "kysely";
import { D } from "#app/core/decimal.ts";
import {
  type ChartTotals,
  type DailyBar,
  DAY_MS,
  type EquityPoint,
  type GroupPnl,
  type DailyTable,
  type HistogramBin,
  type PerformanceCharts,
  dailyPnl,
  dailyTable,
  downsample,
  equityCurve,
  maxDrawdown,
  pnlByGroup,
  pnlHistogram,
  rangeSince,
  rangeTotals,
} from "#app/core/performance/charts.ts";
import type { StatsLedger } from "#app/core/pnl/ledger.ts";
export type { PerformanceCharts } from "#app/core/performance/charts.ts";
import { type ChartRange, DEFAULT_CHART_RANGE } from "#app/core/schemas/performance-charts.ts";
import { DEFAULT_STRATEGY_ID } from "#app/core/schemas/strategy.ts";
import { type EquitySnapshot, listEquitySnapshots } from "#db/queries/equity-snapshots.ts";
import { listFundingAmounts } from "#db/queries/funding.ts";
import { listLotOwners, listStrategies } from "#db/queries/strategies.ts";
import type { DB } from "#db/schema.ts";
import { getUnrealizedNow } from "./positions.server.ts";
import { getStatsLedger } from "./statistics.server.ts";

export interface ChartsOptions {
  now?: number;
  /** "compact": the equity curve and the daily bars only (the dashboard). Default "full". */
  detail?: "compact" | "full";
  /** Most points of the equity curve to send (default 400 full, 60 compact). */
  maxPoints?: number;
  /** The statistics ledger when the caller already asked for it (the dashboard: one refresh per request). */
  ledger?: Promise<StatsLedger>;
  /** false: no point "now" (no positions or prices read); the curve ends at its last snapshot or close. */
  withNow?: boolean;
}

interface Cached {
  key: string;
  /** The curve without "now", drawn (downsampled), its peak and its deepest drawdown. */
  curve: EquityPoint[];
  peak: string;
  maxDrawdown: string;
  totals: Omit<ChartTotals, "maxDrawdown">;
  daily: DailyBar[];
  bySymbol?: GroupPnl[];
  byStrategy?: GroupPnl[];
  distribution?: HistogramBin[];
}

const caches = new WeakMap<StatsLedger, Map<string, Cached>>();

/** Index of the first element whose `at` is >= since. */
function firstAt(rows: readonly { at: number }[], since: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid]!.at < since) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export const UNATTRIBUTED_LABEL = "Manual / other";

export async function getPerformanceCharts(
  db: Kysely<DB>,
  range: ChartRange = DEFAULT_CHART_RANGE,
  options: ChartsOptions = {},
): Promise<PerformanceCharts> {
  const now = options.now ?? Date.now();
  const detail = options.detail ?? "full";
  const since = rangeSince(range, now);
  const withNow = options.withNow ?? true;
  const [ledger, funding, snapshots, unrealizedNow] = await Promise.all([
    options.ledger ?? getStatsLedger(db),
    listFundingAmounts(db),
    listEquitySnapshots(db),
    withNow ? getUnrealizedNow(db) : null,
  ]);
  const start = ledger.windowStart(since);
  const fundingStart = firstAt(funding, since);
  const snapshotStart = firstAt(snapshots, since);
  const lastSnapshot: EquitySnapshot | undefined = snapshots[snapshots.length - 1];
  const key = [
    detail,
    ledger.fills,
    start,
    funding.length,
    fundingStart,
    snapshots.length,
    snapshotStart,
    lastSnapshot?.id ?? 0,
    Math.floor(now / DAY_MS),
  ].join("|");
  let perLedger = caches.get(ledger);
  if (!perLedger) caches.set(ledger, (perLedger = new Map()));
  const maxPoints = options.maxPoints ?? (detail === "full" ? 400 : 60);
  const slot = `${detail}|${range}|${maxPoints}`;
  let cached = perLedger.get(slot);
  if (!cached || cached.key !== key) {
    const matches = ledger.matchesFrom(start);
    // Everything up to the newest event (not `now`): the cached series stay true until the key changes.
    const end = Number.MAX_SAFE_INTEGER;
    const curve = equityCurve({ matches, funding, snapshots, since, now: end, nowUnrealized: null });
    const peak = curve.reduce((p, point) => (D(point.equity).gt(p) ? D(point.equity) : p), D(0)).toString();
    cached = {
      key,
      curve: downsample(curve, Math.max(2, maxPoints - 1)),
      peak,
      maxDrawdown: maxDrawdown(curve),
      totals: rangeTotals(matches, funding, since, end),
      daily: dailyPnl(matches, funding, since, now),
    };
    if (detail === "full") {
      const [owners, strategies] = await Promise.all([listLotOwners(db), listStrategies(db)]);
      const names = new Map(strategies.map((s) => [s.id, s.name]));
      names.set(DEFAULT_STRATEGY_ID, "default (global secret)");
      cached.bySymbol = pnlByGroup(matches, since, end, (m) => ({ key: m.symbol, label: m.symbol }));
      cached.byStrategy = pnlByGroup(matches, since, end, (m) => {
        const owner = owners.get(m.entryTradeId) ?? null;
        return owner ? { key: owner, label: names.get(owner) ?? owner } : { key: "none", label: UNATTRIBUTED_LABEL };
      });
      cached.distribution = pnlHistogram(matches, since, end);
    }
    if (perLedger.size >= 12) perLedger.clear();
    perLedger.set(slot, cached);
  }
  if (unrealizedNow === null) {
    return {
      range,
      since: since > 0 ? since : null,
      now,
      totals: { ...cached.totals, maxDrawdown: cached.maxDrawdown },
      equity: cached.curve,
      daily: cached.daily,
      ...(detail === "full"
        ? { bySymbol: cached.bySymbol, byStrategy: cached.byStrategy, distribution: cached.distribution }
        : {}),
    };
  }
  // "Now": the range's realized total plus the unrealized P&L of what is open now.
  const realized = D(cached.totals.realizedPnl);
  const equityNow = realized.plus(unrealizedNow);
  const peak = D(cached.peak).gt(equityNow) ? D(cached.peak) : equityNow;
  const nowPoint: EquityPoint = {
    at: Math.max(now, cached.curve[cached.curve.length - 1]?.at ?? now),
    realized: realized.toString(),
    unrealized: unrealizedNow,
    equity: equityNow.toString(),
    drawdown: equityNow.minus(peak).toString(),
    balance: null,
  };
  return {
    range,
    since: since > 0 ? since : null,
    now,
    totals: {
      ...cached.totals,
      maxDrawdown: D(nowPoint.drawdown).lt(cached.maxDrawdown) ? nowPoint.drawdown : cached.maxDrawdown,
    },
    equity: [...cached.curve, nowPoint],
    daily: cached.daily,
    ...(detail === "full"
      ? { bySymbol: cached.bySymbol, byStrategy: cached.byStrategy, distribution: cached.distribution }
      : {}),
  };
}

/**
 * The dashboard card's server-rendered table (decision 014: the dashboard renders on every
 * visit, so it sends no chart data; the card's charts fetch the compact series after
 * hydration).
 */
export async function getDashboardChartsTable(
  db: Kysely<DB>,
  ledger: Promise<StatsLedger> = getStatsLedger(db),
  now = Date.now(),
): Promise<DailyTable> {
  // Like the pages' system status (decision 014): one answer per process for up to 1 s, also
  // while fills arrive. Each new fill changes the cache key of the 30-day series below, and
  // recomputing them for every page was a third of the web process's CPU under T5's 100
  // fills/s (docs/benchmarks.md, "Issue 14"). The card's charts fetch the exact series from
  // GET /api/performance-charts after hydration; this table is their first paint.
  const current = await ledger;
  const recent = recentTables.get(db);
  if (recent && recent.ledger === current && now - recent.at < DASHBOARD_TABLE_TTL_MS && now >= recent.at)
    return recent.table;
  // Without "now" (no positions or prices read): the equity column ends at the last snapshot
  // (at most 5 minutes old), and the same cached series (a new one for a new day or a new
  // match, funding payment or snapshot) give the same table.
  const charts = await getPerformanceCharts(db, "30d", { detail: "compact", ledger, withNow: false, now });
  let table = tables.get(charts.equity);
  if (!table) {
    table = dailyTable(charts);
    tables.set(charts.equity, table);
  }
  recentTables.set(db, { at: now, ledger: current, table });
  return table;
}

/** How long the dashboard reuses its card's table (fills in between show in the next one). */
export const DASHBOARD_TABLE_TTL_MS = 1000;
const recentTables = new WeakMap<Kysely<DB>, { at: number; ledger: StatsLedger; table: DailyTable }>();

/** The dashboard's table per cached curve (the curve's array is the cache entry's own). */
const tables = new WeakMap<readonly EquityPoint[], DailyTable>();
