// The events table: an append-only feed of what browsers should see. The web process
// tails it by id and pushes each row to the /ws clients.
import { type Db, feedRowsAfter, latestFeedId, nowMs, parseJson } from "./util.ts";

export const LIVE_MESSAGE_TYPES = [
  "dashboard_update",
  "new_signal",
  "trade_update",
  "activity_log",
  "system_status",
] as const;
export type LiveMessageType = (typeof LIVE_MESSAGE_TYPES)[number];

export interface LiveEvent {
  id: number;
  type: LiveMessageType;
  data: Record<string, unknown>;
  createdAt: number;
}

export interface NewEvent {
  type: LiveMessageType;
  data: Record<string, unknown>;
}

export async function appendEvent(db: Db, type: LiveMessageType, data: Record<string, unknown>): Promise<void> {
  await appendEvents(db, [{ type, data }]);
}

/** Appends events in order (one statement: ids follow the array's order). */
export async function appendEvents(db: Db, events: NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  const now = nowMs();
  await db
    .insertInto("events")
    .values(events.map((e) => ({ type: e.type, data: JSON.stringify(e.data), created_at: now })))
    .execute();
}

export async function listEventsAfter(db: Db, afterId: number, limit = 500): Promise<LiveEvent[]> {
  const rows = await feedRowsAfter(db, "events", afterId, limit);
  return rows.map((r) => ({
    id: Number(r.id),
    type: r.type as LiveMessageType,
    data: parseJson<Record<string, unknown>>(r.data, {}),
    createdAt: Number(r.created_at),
  }));
}

export const latestEventId = (db: Db): Promise<number> => latestFeedId(db, "events");

export async function pruneEvents(db: Db, olderThanMs: number): Promise<number> {
  const result = await db.deleteFrom("events").where("created_at", "<", olderThanMs).executeTakeFirst();
  return Number(result.numDeletedRows ?? 0);
}
