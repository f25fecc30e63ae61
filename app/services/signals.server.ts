// Signals as GET /api/signals and the latency panels read them: each with its timeline (issue 12).
import type { Kysely } from "kysely";
import { type LatencySummary, summariseTimelines } from "#app/core/timeline.ts";
import { listRecentStamps, withTimelines } from "#db/queries/signal-timeline.ts";
import { listSignals } from "#db/queries/signals.ts";
import type { DB } from "#db/schema.ts";

/** The summary looks at the newest signals of the window, up to this many. */
export const SUMMARY_LIMIT = 10_000;
export const SUMMARY_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * p50 / p99 per step over the signals received in the window (the newest SUMMARY_LIMIT of
 * them): GET /api/signals/latency and Webhook Config. Limit orders' "accepted → fill" waits
 * for the market: left out of that step.
 */
export async function getLatencySummary(
  db: Kysely<DB>,
  options: { now?: number; windowMs?: number; limit?: number } = {},
): Promise<LatencySummary> {
  const since = (options.now ?? Date.now()) - (options.windowMs ?? SUMMARY_WINDOW_MS);
  return summariseTimelines(await listRecentStamps(db, since, options.limit ?? SUMMARY_LIMIT), since);
}

/** The latest `limit` signals, newest first, each with its latency timeline. */
export async function listSignalsWithTimelines(db: Kysely<DB>, limit: number) {
  return withTimelines(db, await listSignals(db, { limit }));
}
