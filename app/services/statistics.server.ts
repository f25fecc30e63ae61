// The statistics cache: one StatsLedger (app/core/pnl/ledger.ts) per database per process,
// behind the dashboard, GET /api/performance-stats, GET /api/closed-trades-pnl, the 24 h
// P&L card and the portfolio summary. docs/decisions/012-statistics-cache-and-monitor.md.
//
// On every call, one aggregate query reads the fingerprint of the executed fills (count,
// newest updated_at, two modular sums of updated_at). Unchanged: the ledger answers as it
// is. Changed: the fills after the ledger's last one are read and appended, provided the
// fingerprint then matches exactly (nothing else was added, removed or rewritten); anything
// else (a fill booked out of execution order, a trade rewritten, a reset) rebuilds the ledger
// from every fill. The fingerprint is read after the call starts, so a caller always sees
// every fill committed before it asked. Refreshes of one database run one at a time.
import type { Kysely } from "kysely";
import { StatsLedger, keyBefore } from "#app/core/pnl/ledger.ts";
import {
  EMPTY_FINGERPRINT,
  type ExecutedFillRow,
  type FillsFingerprint,
  addToFingerprint,
  executedFillsFingerprint,
  listExecutedFillRows,
  sameFingerprint,
} from "#db/queries/statistics.ts";
import type { DB } from "#db/schema.ts";

interface Entry {
  ledger: StatsLedger;
  fingerprint: FillsFingerprint;
}

interface CacheState {
  entry: Entry | null;
  /** The tail of the queue of refreshes (one at a time per database). */
  queue: Promise<unknown>;
  /** How the last refreshes went (tests and diagnostics). */
  counters: { hits: number; appends: number; rebuilds: number };
}

const caches = new WeakMap<Kysely<DB>, CacheState>();

function stateOf(db: Kysely<DB>): CacheState {
  let state = caches.get(db);
  if (!state) {
    state = { entry: null, queue: Promise.resolve(), counters: { hits: 0, appends: 0, rebuilds: 0 } };
    caches.set(db, state);
  }
  return state;
}

/** In execution order, whatever the database's collation did with the ids. */
function inOrder(rows: ExecutedFillRow[]): ExecutedFillRow[] {
  for (let i = 1; i < rows.length; i++) {
    if (!keyBefore(rows[i - 1]!, rows[i]!)) {
      return [...rows].sort((a, b) => (keyBefore(a, b) ? -1 : keyBefore(b, a) ? 1 : 0));
    }
  }
  return rows;
}

async function rebuild(db: Kysely<DB>, state: CacheState): Promise<StatsLedger> {
  const rows = inOrder(await listExecutedFillRows(db));
  const ledger = new StatsLedger();
  ledger.append(rows);
  state.entry = { ledger, fingerprint: addToFingerprint(EMPTY_FINGERPRINT, rows) };
  state.counters.rebuilds++;
  return ledger;
}

async function refresh(db: Kysely<DB>, state: CacheState): Promise<StatsLedger> {
  const entry = state.entry;
  if (!entry) return rebuild(db, state);
  const current = await executedFillsFingerprint(db);
  if (sameFingerprint(current, entry.fingerprint)) {
    state.counters.hits++;
    return entry.ledger;
  }
  if (current.count > entry.fingerprint.count) {
    const last = entry.ledger.lastKey;
    const delta = inOrder(await listExecutedFillRows(db, last));
    const expected = addToFingerprint(entry.fingerprint, delta);
    // A fill committed between the two reads: the fingerprint read again must match.
    const matches = sameFingerprint(expected, current) || sameFingerprint(expected, await executedFillsFingerprint(db));
    if (matches && (!last || delta.length === 0 || keyBefore(last, delta[0]!))) {
      entry.ledger.append(delta);
      entry.fingerprint = expected;
      state.counters.appends++;
      return entry.ledger;
    }
  }
  return rebuild(db, state);
}

/** The ledger with every fill executed so far (see the file's comment). */
export function getStatsLedger(db: Kysely<DB>): Promise<StatsLedger> {
  const state = stateOf(db);
  const run = state.queue.then(async () => {
    try {
      return await refresh(db, state);
    } catch (error) {
      // A failed refresh leaves no half-applied ledger behind: the next call rebuilds.
      state.entry = null;
      throw error;
    }
  });
  state.queue = run.catch(() => undefined);
  return run;
}

/** Hits, appends and rebuilds of this database's cache so far (tests, diagnostics). */
export function statsCacheCounters(db: Kysely<DB>): CacheState["counters"] {
  return { ...stateOf(db).counters };
}

/** SPEC.md §3 performance stats (allTime, month, week) at `now`. */
export async function getPerformanceStats(db: Kysely<DB>, now = Date.now()) {
  return (await getStatsLedger(db)).periodStats(now);
}

/** SPEC.md §3 closed-trades P&L: { totalPnL, realizedMatches }. */
export async function getClosedTradesPnl(db: Kysely<DB>) {
  return (await getStatsLedger(db)).closedTradesPnl();
}

/** Net P&L of the matches closed at or after `since` (epoch ms). */
export async function getNetPnlSince(db: Kysely<DB>, since: number): Promise<string> {
  return (await getStatsLedger(db)).netPnlSince(since);
}
