// The activity log. recordActivity also appends the matching live event, so a caller that
// runs it inside its transaction gets the log line and the push atomically.
import { type LogViewer, logForViewer } from "#app/core/auth/log-privacy.ts";
import { can } from "#app/core/auth/permissions.ts";
import { redact } from "../../app/core/redact.ts";
import { sql } from "kysely";
import { type NewEvent, appendEvents } from "./events.ts";
import { logOfStrategy } from "./strategies.ts";
import { type Db, nowMs, parseJson, toIso } from "./util.ts";

import { LOG_LEVELS, type LogLevel, type ActivityLog, type NewActivityLog } from "#app/core/types/activity-logs.ts";

/** The domain types live in app/core (decision 042); callers may keep importing them from here. */
export { LOG_LEVELS, type LogLevel, type ActivityLog, type NewActivityLog } from "#app/core/types/activity-logs.ts";

export async function recordActivity(db: Db, entry: NewActivityLog): Promise<void> {
  await recordActivities(db, [entry]);
}

/** Several log lines (and their live events, in the same order) in two statements. */
export async function recordActivities(db: Db, entries: NewActivityLog[], extraEvents: NewEvent[] = []): Promise<void> {
  if (entries.length === 0 && extraEvents.length === 0) return;
  const now = nowMs();
  const events: NewEvent[] = [];
  const rows = entries.map((entry) => {
    const data = redact(entry.data ?? {});
    events.push({ type: "activity_log", data: { type: entry.type, level: entry.level, message: entry.message, data } });
    return {
      type: entry.type,
      level: entry.level,
      message: entry.message,
      data: JSON.stringify(data),
      created_at: now,
    };
  });
  if (rows.length > 0) await db.insertInto("activity_logs").values(rows).execute();
  await appendEvents(db, [...events, ...extraEvents]);
}

export interface ActivityLogQuery {
  limit?: number;
  type?: string;
  level?: string;
  /** Cursor: only entries with a smaller id (older). */
  beforeId?: number;
  viewer?: LogViewer;
  strategy?: string;
  /** Created at or after this time (epoch ms). */
  fromMs?: number;
  /** Created before this time (epoch ms, exclusive). */
  toMs?: number;
  /** Case-insensitive substring of the message. */
  q?: string;
}

/**
 * Newest first. `viewer` (a non-admin) reads only the sign-in entries about itself and no
 * addresses (app/core/auth/log-privacy.ts); without it, everything.
 */
export async function listActivityLogs(db: Db, options: ActivityLogQuery = {}): Promise<ActivityLog[]> {
  return (await pageActivityLogs(db, options)).logs;
}

/**
 * One page, newest first (by id), and the cursor of the next, older page: the id to pass as
 * `beforeId`, or null when this page holds the oldest matching entry. Ids only grow, so
 * entries written between page requests land before the first page and never shift a page.
 */
export async function pageActivityLogs(
  db: Db,
  options: ActivityLogQuery = {},
): Promise<{ logs: ActivityLog[]; nextCursor: number | null }> {
  let query = db.selectFrom("activity_logs").selectAll();
  const viewer = options.viewer && !can(options.viewer.role, "logs.sensitive") ? options.viewer : null;
  if (viewer) {
    // Other users' sign-in entries never leave the database; the JSON text is ours
    // (JSON.stringify, no spaces) and usernames are [A-Za-z0-9_], escaped for LIKE.
    const pattern = `%"username":"${viewer.username.toLowerCase().replace(/[!%_]/g, "!$&")}"%`;
    query = query.where((eb) =>
      eb.or([eb("type", "!=", "auth"), sql<boolean>`lower(${sql.ref("data")}) like ${pattern} escape '!'`]),
    );
  }
  if (options.type) query = query.where("type", "=", options.type);
  if (options.level) query = query.where("level", "=", options.level);
  if (options.beforeId) query = query.where("id", "<", options.beforeId);
  if (options.fromMs !== undefined) query = query.where("created_at", ">=", options.fromMs);
  if (options.toMs !== undefined) query = query.where("created_at", "<", options.toMs);
  if (options.q) {
    // lower() on both sides: SQLite's LIKE folds ASCII only and MariaDB's depends on the collation.
    const pattern = `%${options.q.toLowerCase().replace(/[!%_]/g, "!$&")}%`;
    query = query.where(sql<boolean>`lower(${sql.ref("message")}) like ${pattern} escape '!'`);
  }
  const strategy = options.strategy;
  if (strategy) query = query.where((eb) => logOfStrategy(eb, db, strategy));
  const limit = Math.min(Math.max(options.limit ?? 20, 1), 1000);
  const rows = await query
    .orderBy("id", "desc")
    .limit(limit + 1)
    .execute();
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const entries = page.map((r) => ({
    id: Number(r.id),
    type: r.type,
    level: (LOG_LEVELS as readonly string[]).includes(r.level) ? (r.level as LogLevel) : "info",
    message: r.message,
    data: parseJson<Record<string, unknown>>(r.data, {}),
    createdAt: toIso(r.created_at)!,
  }));
  const nextCursor = more ? entries[entries.length - 1]!.id : null;
  return { logs: viewer ? entries.flatMap((e) => logForViewer(e, viewer) ?? []) : entries, nextCursor };
}
