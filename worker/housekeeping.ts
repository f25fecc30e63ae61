// Housekeeping (issue 10): the `events` table (the live feed's tail; a resume replays at
// most 500) and finished jobs grow with every signal, so every worker prunes them on a
// schedule: events older than EVENTS_RETENTION_HOURS, completed and cancelled jobs older
// than JOBS_RETENTION_DAYS, and expired sessions. Deletes are idempotent, so several workers
// doing it at once is harmless. Signals, trades, positions and the activity log are history
// and are never pruned here. The 1-minute price candles (charts, Market Data's 24 h change)
// keep CANDLES_RETENTION_DAYS, and always everything since the oldest open position opened.
import type { Kysely } from "kysely";
import { pruneCandles } from "#db/queries/candles.ts";
import { thinEquitySnapshots } from "#db/queries/equity-snapshots.ts";
import { pruneEvents } from "#db/queries/events.ts";
import { pruneFinishedJobs } from "#db/queries/jobs.ts";
import { deleteExpiredSessions } from "#db/queries/sessions.ts";
import type { DB } from "#db/schema.ts";

export const HOUSEKEEPING_MS = 10 * 60_000;
/** Equity snapshots keep their full grain (5 min and every fill) this long, then one per hour. */
export const SNAPSHOT_FINE_DAYS = 30;

export interface Retention {
  eventsHours: number;
  jobsDays: number;
  /** 1-minute candles (default 30 days). */
  candleDays?: number;
}

export async function pruneOnce(
  db: Kysely<DB>,
  retention: Retention,
  now = Date.now(),
): Promise<{ events: number; jobs: number; sessions: number; prices: number }> {
  const events = await pruneEvents(db, now - retention.eventsHours * 3_600_000);
  const jobs = await pruneFinishedJobs(db, now - retention.jobsDays * 86_400_000);
  const sessions = await deleteExpiredSessions(db, now);
  // Equity snapshots older than 30 days: one per hour is enough for the charts (decision 031).
  await thinEquitySnapshots(db, now - SNAPSHOT_FINE_DAYS * 86_400_000);
  const prices = await pruneCandles(db, retention.candleDays ?? 30, now);
  return { events, jobs, sessions, prices };
}

/** Prunes now and every HOUSEKEEPING_MS; returns the stop function. */
export function startHousekeeping(db: Kysely<DB>, retention: Retention): () => void {
  const run = () =>
    pruneOnce(db, retention).catch((error) =>
      console.error(`[worker] housekeeping failed: ${(error as Error).message}`),
    );
  void run();
  const timer = setInterval(run, HOUSEKEEPING_MS);
  return () => clearInterval(timer);
}
