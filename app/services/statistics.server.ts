// The statistics cache: one StatsLedger (app/core/pnl/ledger.ts) per database per process,
// behind the dashboard, GET /api/performance-stats, GET /api/closed-trades-pnl, the 24 h
// P&L card and the portfolio summary. docs/decisions/012-statistics-cache-and-monitor.md.
//
// On every call one statement reads the fingerprint of the executed trades (count, newest
// updated_at, two modular sums of updated_at; covered by an index) together with the ids of
// the executed trades written since shortly before the newest one the cache has seen (one
// snapshot). Unchanged fingerprint: the ledger answers as it is. Changed: the trades it has
// not counted yet are read by id and appended, provided the fingerprint then matches exactly
// (nothing else was added, removed or rewritten) and each comes after every fill of its
// symbol. Anything else (a trade rewritten, a fill booked out of order within its symbol, a
// commit older than the look-back, a reset) rebuilds the ledger from every fill. The
// fingerprint is read after the call starts, so a caller always sees every fill committed
// before it asked. Refreshes of one database run one at a time; callers that arrive before
// one starts share it (decision 037).
import type { Kysely } from "kysely";
import type { ExecutedFill } from "#app/core/pnl/fifo.ts";
import { StatsLedger, keyBefore } from "#app/core/pnl/ledger.ts";
import {
  EMPTY_FINGERPRINT,
  type ExecutedTradeRow,
  type FillsFingerprint,
  addToFingerprint,
  listExecutedTradeRows,
  listExecutedTradeRowsByIds,
  readExecutedSince,
  sameFingerprint,
} from "#db/queries/statistics.ts";
import type { DB } from "#db/schema.ts";
import { D } from "#app/core/decimal.ts";
import { PERIOD_MS } from "#app/core/pnl/performance-stats.ts";
import { fundingFor, fundingSince, listFundingAmounts } from "#db/queries/funding.ts";
import { type TradeFilterQuery, listClosingTradePnl } from "#db/queries/trades.ts";
import { nextMacrotask } from "./shared-read.server.ts";

/**
 * How far before the newest updated_at already counted the delta read starts: a trade
 * stamped earlier but committed later (a slow transaction) is still found. Older commits
 * cause a rebuild, never a wrong answer.
 */
export const LOOKBACK_MS = 2000;

interface Entry {
  ledger: StatsLedger;
  fingerprint: FillsFingerprint;
  /** Every executed trade counted in the fingerprint (with or without a fill). */
  counted: Set<string>;
}

interface CacheState {
  entry: Entry | null;
  /** The refresh running now (its fingerprint may predate a caller's request). */
  running: Promise<StatsLedger> | null;
  /** The refresh that starts when `running` ends: every caller arriving meanwhile shares it. */
  pending: Promise<StatsLedger> | null;
  counters: { hits: number; appends: number; rebuilds: number };
}

const caches = new WeakMap<Kysely<DB>, CacheState>();

function stateOf(db: Kysely<DB>): CacheState {
  let state = caches.get(db);
  if (!state) {
    state = { entry: null, running: null, pending: null, counters: { hits: 0, appends: 0, rebuilds: 0 } };
    caches.set(db, state);
  }
  return state;
}

/** The rows' fills in execution order, whatever the database's collation did with the ids. */
function fillsInOrder(rows: readonly ExecutedTradeRow[]): ExecutedFill[] {
  const fills = rows.flatMap((row) => (row.fill ? [row.fill] : []));
  for (let i = 1; i < fills.length; i++) {
    if (!keyBefore(fills[i - 1]!, fills[i]!))
      return fills.sort((a, b) => (keyBefore(a, b) ? -1 : keyBefore(b, a) ? 1 : 0));
  }
  return fills;
}

async function rebuild(db: Kysely<DB>, state: CacheState): Promise<StatsLedger> {
  const rows = await listExecutedTradeRows(db);
  const ledger = new StatsLedger();
  ledger.append(fillsInOrder(rows));
  state.entry = {
    ledger,
    fingerprint: addToFingerprint(EMPTY_FINGERPRINT, rows),
    counted: new Set(rows.map((r) => r.id)),
  };
  state.counters.rebuilds++;
  return ledger;
}

async function refresh(db: Kysely<DB>, state: CacheState): Promise<StatsLedger> {
  const entry = state.entry;
  if (!entry) return rebuild(db, state);
  // The recent trades' ids and the fingerprint from one statement (one snapshot): a trade
  // committed meanwhile is in both or in neither.
  const { recentIds, fingerprint: snapshot } = await readExecutedSince(
    db,
    entry.fingerprint.maxUpdatedAt - LOOKBACK_MS,
  );
  if (sameFingerprint(snapshot, entry.fingerprint)) {
    state.counters.hits++;
    return entry.ledger;
  }
  if (snapshot.count > entry.fingerprint.count) {
    // Only the uncounted trades are read in full. One rewritten or gone since the snapshot
    // makes `expected` differ from it, and the ledger is rebuilt.
    const fresh = await listExecutedTradeRowsByIds(
      db,
      recentIds.filter((id) => !entry.counted.has(id)),
    );
    const expected = addToFingerprint(entry.fingerprint, fresh);
    const fills = fillsInOrder(fresh);
    if (sameFingerprint(expected, snapshot) && entry.ledger.canAppend(fills)) {
      entry.ledger.append(fills);
      for (const row of fresh) entry.counted.add(row.id);
      entry.fingerprint = expected;
      state.counters.appends++;
      return entry.ledger;
    }
  }
  return rebuild(db, state);
}

/** One refresh; a failed one leaves no half-applied ledger behind (the next call rebuilds). */
function startRefresh(db: Kysely<DB>, state: CacheState): Promise<StatsLedger> {
  const run = refresh(db, state).catch((error) => {
    state.entry = null;
    throw error;
  });
  state.running = run;
  const clear = () => {
    if (state.running === run) state.running = null;
  };
  run.then(clear, clear);
  return run;
}

/**
 * The ledger with every fill executed so far (see the file's comment). Refreshes of one
 * database never overlap. A caller never gets the result of a refresh that started before
 * it called (that one may have missed its fills): it waits for the next one, which every
 * caller arriving in the meantime shares, so at most one refresh runs and one waits.
 */
export function getStatsLedger(db: Kysely<DB>): Promise<StatsLedger> {
  const state = stateOf(db);
  if (state.pending) return state.pending;
  // Even with none running, the refresh starts one macrotask later: the requests that reach
  // here in the meantime (under load, several pages in one turn of the event loop) share it
  // instead of each reading the fingerprint (decision 037, as shared-read.server.ts).
  const next = (state.running ? state.running.catch(() => undefined) : nextMacrotask()).then(() => {
    state.pending = null;
    return startRefresh(db, state);
  });
  state.pending = next;
  return next;
}

/** Hits, appends and rebuilds of this database's cache so far (tests, diagnostics). */
export function statsCacheCounters(db: Kysely<DB>): CacheState["counters"] {
  return { ...stateOf(db).counters };
}

// Funding payments (paper: decision 024) are realized P&L that is not a trade: every total
// below adds the funding charged in its window (docs/pnl.md); counts, wins and the per-match
// figures stay the trades'.

/** docs/spec/api.md#shapes performance stats (allTime, month, week) at `now`; totalPnl (and its percentages) include funding. */
export async function getPerformanceStats(
  db: Kysely<DB>,
  now = Date.now(),
  ledgerRead?: ReturnType<typeof getStatsLedger>,
) {
  const [ledger, funding] = await Promise.all([ledgerRead ?? getStatsLedger(db), listFundingAmounts(db)]);
  if (funding.length === 0) return ledger.periodStats(now);
  return ledger.periodStats(now, {
    allTime: fundingSince(funding),
    month: fundingSince(funding, now - PERIOD_MS.month),
    week: fundingSince(funding, now - PERIOD_MS.week),
  });
}

/**
 * docs/spec/api.md#shapes closed-trades P&L: { totalPnL, realizedMatches }, plus closingTrades (the rows
 * that closed something). totalPnL includes funding; `funding` (its part) is present when
 * any was booked.
 */
export async function getClosedTradesPnl(
  db: Kysely<DB>,
): Promise<{ totalPnL: string; realizedMatches: number; closingTrades: number; funding?: string }> {
  const [ledger, funding] = await Promise.all([getStatsLedger(db), listFundingAmounts(db)]);
  const closed = ledger.closedTradesPnl();
  if (funding.length === 0) return closed;
  const total = fundingSince(funding);
  return { ...closed, totalPnL: D(closed.totalPnL).plus(total).toString(), funding: total };
}

/** Net P&L of the matches closed at or after `since` (epoch ms), plus the funding charged since. */
export async function getNetPnlSince(
  db: Kysely<DB>,
  since: number,
  ledgerRead?: ReturnType<typeof getStatsLedger>,
): Promise<string> {
  const [ledger, funding] = await Promise.all([ledgerRead ?? getStatsLedger(db), listFundingAmounts(db)]);
  const net = ledger.netPnlSince(since);
  return funding.length === 0 ? net : D(net).plus(fundingSince(funding, since)).toString();
}

type ClosedTradesPnl = { totalPnL: string; realizedMatches: number; closingTrades: number; funding?: string };

/** Per ledger: how many matches each closing trade made (the ledger grows in place, so its size checks it). */
const matchCounts = new WeakMap<StatsLedger, { size: number; byTrade: Map<string, number> }>();

function matchesByTrade(ledger: StatsLedger): Map<string, number> {
  const matches = ledger.matchesFrom(0);
  const known = matchCounts.get(ledger);
  if (known && known.size === matches.length) return known.byTrade;
  const byTrade = new Map<string, number>();
  for (const m of matches) byTrade.set(m.exitTradeId, (byTrade.get(m.exitTradeId) ?? 0) + 1);
  matchCounts.set(ledger, { size: matches.length, byTrade });
  return byTrade;
}

/**
 * Trade History's header P&L for the filter of its rows (issue 22, docs/pnl.md): the sum of
 * the realized P&L of the matching trades (every page, not one) plus the funding of the
 * matching symbol / strategy's positions; the same shape as getClosedTradesPnl, which it is
 * when nothing narrows the rows (status "executed" or none). A status of orders that never
 * filled (pending, failed) has no P&L and no funding.
 */
export async function getClosedTradesPnlFor(db: Kysely<DB>, filter: TradeFilterQuery): Promise<ClosedTradesPnl> {
  const narrowed = Boolean(
    filter.symbol || filter.search?.trim() || filter.strategy || filter.positionId || filter.signalId,
  );
  const filled = !filter.status || filter.status === "executed";
  if (!narrowed && filled) return getClosedTradesPnl(db);
  const [ledger, rows, funding] = await Promise.all([
    getStatsLedger(db),
    listClosingTradePnl(db, filter),
    filled && !filter.positionId && !filter.signalId ? fundingFor(db, filter) : null,
  ]);
  const byTrade = matchesByTrade(ledger);
  let total = D(0);
  let matches = 0;
  for (const row of rows) {
    total = total.plus(row.realizedPnl);
    matches += byTrade.get(row.id) ?? 0;
  }
  const closed = { totalPnL: total.toString(), realizedMatches: matches, closingTrades: rows.length };
  if (!funding || funding.count === 0) return closed;
  return { ...closed, totalPnL: total.plus(funding.total).toString(), funding: funding.total };
}
