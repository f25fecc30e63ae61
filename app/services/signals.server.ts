// Signals as GET /api/signals and the latency panels read them: each with its timeline (issue 12).
import type { Kysely } from "kysely";
import { withTimelines } from "#db/queries/signal-timeline.ts";
import { listSignals } from "#db/queries/signals.ts";
import type { DB } from "#db/schema.ts";

export { getLatencySummary } from "#db/queries/signal-timeline.ts";

/** The latest `limit` signals, newest first, each with its latency timeline. */
export async function listSignalsWithTimelines(db: Kysely<DB>, limit: number) {
  return withTimelines(db, await listSignals(db, { limit }));
}
