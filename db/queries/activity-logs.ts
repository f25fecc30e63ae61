// The activity log. recordActivity also appends the matching live event, so a caller that
// runs it inside its transaction gets the log line and the push atomically.
import { redact } from "../../app/core/redact.ts";
import { appendEvent } from "./events.ts";
import { type Db, nowMs, parseJson, toIso } from "./util.ts";

export const LOG_LEVELS = ["error", "warning", "success", "info"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface ActivityLog {
  id: number;
  type: string;
  level: LogLevel;
  message: string;
  data: Record<string, unknown>;
  createdAt: string;
}

export interface NewActivityLog {
  type: string;
  level: LogLevel;
  message: string;
  data?: Record<string, unknown>;
}

export async function recordActivity(db: Db, entry: NewActivityLog): Promise<void> {
  const data = redact(entry.data ?? {});
  const now = nowMs();
  await db
    .insertInto("activity_logs")
    .values({ type: entry.type, level: entry.level, message: entry.message, data: JSON.stringify(data), created_at: now })
    .execute();
  await appendEvent(db, "activity_log", { type: entry.type, level: entry.level, message: entry.message, data });
}

export async function listActivityLogs(
  db: Db,
  options: { limit?: number; type?: string; level?: string; beforeId?: number } = {},
): Promise<ActivityLog[]> {
  let query = db.selectFrom("activity_logs").selectAll();
  if (options.type) query = query.where("type", "=", options.type);
  if (options.level) query = query.where("level", "=", options.level);
  if (options.beforeId) query = query.where("id", "<", options.beforeId);
  const rows = await query
    .orderBy("id", "desc")
    .limit(Math.min(Math.max(options.limit ?? 20, 1), 1000))
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    type: r.type,
    level: (LOG_LEVELS as readonly string[]).includes(r.level) ? (r.level as LogLevel) : "info",
    message: r.message,
    data: parseJson<Record<string, unknown>>(r.data, {}),
    createdAt: toIso(r.created_at)!,
  }));
}
