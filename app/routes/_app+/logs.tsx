// /logs: the Activity Logs screen (docs/spec/screens.md "Logs", issue 13): every entry, newest first,
// 100 a page, paged by cursor (?before=<id>, the id the "Older" link carries), filtered by a
// GET form: from/to (days, `to` inclusive), type, level, strategy and q (a case-insensitive
// substring of the message). The loader renders the page on the server, so filters and
// paging work without JavaScript; with it "Older" loads in place and the newest page polls
// every 30 s and follows live activity_log messages. Export to CSV is
// GET /api/logs?format=csv with the same filters: every matching entry, not one page.
import { type LoaderFunctionArgs, type MetaFunction, json } from "@remix-run/node";
import { useLoaderData, useLocation } from "@remix-run/react";
import { LOGS_SCREEN_LIMIT, LOGS_SCREEN_POLL_MS } from "#app/components/activity-log/activity-log-panel.tsx";
import type { ActivityLog } from "#app/components/activity-log/activity-log-utils.ts";
import { logDbFilters, parseLogQuery } from "#app/components/activity-log/log-query.ts";
import { LogsBrowser } from "#app/components/activity-log/logs-browser.tsx";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { Screen } from "#app/components/screen.tsx";
import { requireUser } from "#app/services/sessions.server.ts";
import { activityLogPage } from "#app/services/activity-logs.server.ts";
import { strategyNames } from "#app/services/strategies.server.ts";
import { NO_STORE, queryInt } from "#app/utils/api.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const params = new URL(request.url).searchParams;
  const filters = parseLogQuery(params);
  const before = queryInt(params, "before", 0, 0, Number.MAX_SAFE_INTEGER);
  const [page, strategies] = await Promise.all([
    activityLogPage(context.db, user, logDbFilters(filters), { limit: LOGS_SCREEN_LIMIT, before }),
    strategyNames(context.db),
  ]);
  return json(
    { logs: page.logs, nextCursor: page.nextCursor, before: before > 0 ? before : null, filters, strategies },
    { headers: NO_STORE },
  );
}

export default function Page() {
  const { logs, nextCursor, before, filters, strategies } = useLoaderData<typeof loader>();
  const location = useLocation();
  return (
    <Screen title="Activity Logs">
      <LogsBrowser
        // A new query (filters or cursor) starts from its own server page.
        key={location.search}
        logs={logs as ActivityLog[]}
        nextCursor={nextCursor}
        before={before}
        filters={filters}
        strategies={strategies}
        limit={LOGS_SCREEN_LIMIT}
        refetchIntervalMs={LOGS_SCREEN_POLL_MS}
      />
    </Screen>
  );
}

export const meta: MetaFunction = () => [{ title: "Activity Logs · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
