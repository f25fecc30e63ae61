// /performance: the Performance screen (issue 13, docs/decisions/031-performance-charts.md).
// Every role reads it. ?range=7d|30d|all (the API's own schema); the data is the same as
// GET /api/performance-charts, rendered as tables on the server and as charts after hydration.
import { type LoaderFunctionArgs, type MetaFunction, json } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { PerformanceScreen } from "#app/components/performance/performance-screen.tsx";
import { Screen } from "#app/components/screen.tsx";
import { parseChartsQuery } from "#app/core/schemas/performance-charts.ts";
import { getPerformanceCharts } from "#app/services/performance-charts.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export const meta: MetaFunction = () => [{ title: "Performance · PerpDesk" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const { range } = parseChartsQuery(new URL(request.url).searchParams);
  return json({ charts: await getPerformanceCharts(context.db, range) }, { headers: NO_STORE });
}

export default function Page() {
  const { charts } = useLoaderData<typeof loader>();
  return (
    <Screen title="Performance">
      {/* A new range is a new screen (its own initial data and query). */}
      <PerformanceScreen key={charts.range} initial={charts} />
    </Screen>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
