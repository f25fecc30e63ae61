// The Activity Logs as routes read and write them: paging and export (db/queries/activity-logs.ts)
// and the log lines of a session's end.
import type { Kysely } from "kysely";
import { recordActivity } from "#db/queries/activity-logs.ts";
import type { DB } from "#db/schema.ts";

export { allActivityLogs, pageActivityLogs } from "#db/queries/activity-logs.ts";

/** The activity line of a logout (both the page's POST /logout and POST /api/logout). */
export async function recordLogout(db: Kysely<DB>, username: string): Promise<void> {
  await recordActivity(db, { type: "auth", level: "info", message: `${username} logged out` });
}
