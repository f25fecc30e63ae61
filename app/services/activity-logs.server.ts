// The Activity Logs as routes read and write them: a page for the screen and GET /api/logs,
// every matching entry for the CSV export (both always read as the viewer may see them,
// app/core/auth/log-privacy.ts), and the log lines of a session's end.
import type { Kysely } from "kysely";
import type { LogViewer } from "#app/core/auth/log-privacy.ts";
import type { ActivityLog } from "#app/core/types/activity-logs.ts";
import { type ActivityLogQuery, pageActivityLogs, recordActivity } from "#db/queries/activity-logs.ts";
import type { DB } from "#db/schema.ts";

/** The filters of the screen and the API (type, level, strategy, from/to, q). */
export type LogFilters = Omit<ActivityLogQuery, "limit" | "beforeId" | "viewer">;

/**
 * One page for `viewer`, newest first: at most `limit` entries older than the cursor `before`
 * (0: the newest page), and the cursor of the next, older page (null at the oldest).
 */
export function activityLogPage(
  db: Kysely<DB>,
  viewer: LogViewer,
  filters: LogFilters,
  page: { limit: number; before: number },
) {
  return pageActivityLogs(db, {
    ...filters,
    viewer,
    limit: page.limit,
    beforeId: page.before > 0 ? page.before : undefined,
  });
}

/** Every entry `viewer` may see that matches, newest first, read in pages of 1000 (the CSV export), up to `max`. */
export async function allActivityLogs(
  db: Kysely<DB>,
  viewer: LogViewer,
  filters: LogFilters,
  max = 100_000,
): Promise<ActivityLog[]> {
  const all: ActivityLog[] = [];
  let before = 0;
  for (;;) {
    const { logs, nextCursor } = await activityLogPage(db, viewer, filters, { limit: 1000, before });
    all.push(...logs);
    if (nextCursor === null || all.length >= max) return all;
    before = nextCursor;
  }
}

/** The activity line of a logout (both the page's POST /logout and POST /api/logout). */
export async function recordLogout(db: Kysely<DB>, username: string): Promise<void> {
  await recordActivity(db, { type: "auth", level: "info", message: `${username} logged out` });
}
