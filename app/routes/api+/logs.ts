// GET /api/logs?limit=20&type=&level=&strategy=&from=&to=&q=&before= (or beforeId=): newest
// first (by id). The body stays what it always was, a JSON array of entries; paging is
// cursor based and rides on a response header so existing clients keep working:
// `X-Next-Cursor: <id>` is set when older matching entries exist; pass it back as
// `before=<id>` for the next page (entries written meanwhile never shift a page).
// Filters: from/to are a day (YYYY-MM-DD, `to` inclusive) or an ISO time (`to` exclusive);
// q is a case-insensitive substring of the message; strategy is an id or "default".
// `format=csv` answers every matching entry (not one page) as a CSV attachment, with the
// columns of the panel's Export to CSV.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { activityLogCsv, activityLogFileName } from "#app/components/activity-log/activity-log-utils.ts";
import { logDbFilters, parseLogQuery } from "#app/components/activity-log/log-query.ts";
import { NO_STORE, queryInt } from "#app/utils/api.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";
import { activityLogPage, allActivityLogs } from "#app/services/activity-logs.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const params = new URL(request.url).searchParams;
  const filters = logDbFilters(parseLogQuery(params));
  if (params.get("format") === "csv") {
    const logs = await allActivityLogs(context.db, user, filters);
    return new Response(activityLogCsv(logs), {
      headers: {
        ...NO_STORE,
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="${activityLogFileName(new Date())}"`,
        "X-Total-Count": String(logs.length),
      },
    });
  }
  const limit = queryInt(params, "limit", 20, 1, 1000);
  const beforeId = queryInt(params, params.has("before") ? "before" : "beforeId", 0, 0, Number.MAX_SAFE_INTEGER);
  const { logs, nextCursor } = await activityLogPage(context.db, user, filters, { limit, before: beforeId });
  return json(logs, { headers: nextCursor !== null ? { "X-Next-Cursor": String(nextCursor) } : {} });
}
