// /logs: the Activity Logs screen (SPEC.md §2 "Logs"): the latest 100 entries, polled every
// 30 s and refreshed by live activity_log messages. The loader renders them on the server,
// so the list shows without JavaScript.
import { type LoaderFunctionArgs, type MetaFunction, json } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { ActivityLogPanel, LOGS_SCREEN_LIMIT, LOGS_SCREEN_POLL_MS } from "#app/components/activity-log/activity-log-panel.tsx";
import type { ActivityLog } from "#app/components/activity-log/activity-log-utils.ts";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { Screen } from "#app/components/screen.tsx";
import { requireUser } from "#app/utils/auth.server.ts";
import { listActivityLogs } from "#db/queries/activity-logs.ts";
import { StrategyFilter } from "#app/components/strategies/strategy-filter.tsx";
import { strategyNames } from "#app/services/strategies.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const strategy = (new URL(request.url).searchParams.get("strategy") ?? "").slice(0, 40);
  const [logs, strategies] = await Promise.all([listActivityLogs(context.db, { limit: LOGS_SCREEN_LIMIT, viewer: user, strategy: strategy || undefined }), strategyNames(context.db)]);
  return json({ logs, strategy, strategies }, { headers: NO_STORE });
}

export default function Page() {
  const { logs, strategy, strategies } = useLoaderData<typeof loader>();
  return (
    <Screen title="Activity Logs">
      <StrategyFilter strategies={strategies} value={strategy} testId="logs-strategy-filter" />
      <ActivityLogPanel
        key={strategy}
        strategy={strategy || undefined}
        initialLogs={logs as ActivityLog[]}
        limit={LOGS_SCREEN_LIMIT}
        refetchIntervalMs={LOGS_SCREEN_POLL_MS}
        title="Recent activity"
      />
    </Screen>
  );
}

export const meta: MetaFunction = () => [{ title: "Activity Logs · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
