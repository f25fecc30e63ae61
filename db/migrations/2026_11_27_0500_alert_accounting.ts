// Issue 25 (docs/decisions/046-honest-break-even-and-alert-accounting.md): every alert
// accounted for. Two notification events are new, "alert_failed" (failed or refused, with the
// reason) and "alert_skipped" (too old, emergency stop, owner conflict, an order in flight);
// like the other events they are on by default, so the channels saved before they existed get
// them switched on too (a channel's events are the JSON list in notification_channels.events).
// Frozen: never imports application code; idempotent (run twice, each event is added once).
import { type Kysely, sql } from "kysely";

const NEW_EVENTS = ["alert_failed", "alert_skipped"];

export async function up(db: Kysely<any>): Promise<void> {
  const rows = (await sql<{ channel: string; events: string }>`select channel, events from notification_channels`.execute(db)).rows;
  for (const row of rows) {
    let events: unknown;
    try {
      events = JSON.parse(String(row.events));
    } catch {
      continue;
    }
    if (!Array.isArray(events)) continue;
    const missing = NEW_EVENTS.filter((e) => !events.includes(e));
    if (missing.length === 0) continue;
    await sql`update notification_channels set events = ${JSON.stringify([...events, ...missing])} where channel = ${row.channel}`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const rows = (await sql<{ channel: string; events: string }>`select channel, events from notification_channels`.execute(db)).rows;
  for (const row of rows) {
    let events: unknown;
    try {
      events = JSON.parse(String(row.events));
    } catch {
      continue;
    }
    if (!Array.isArray(events)) continue;
    await sql`update notification_channels set events = ${JSON.stringify(events.filter((e) => !NEW_EVENTS.includes(e)))} where channel = ${row.channel}`.execute(db);
  }
}
