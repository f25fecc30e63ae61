// GET /api/performance-charts?range=7d|30d|all[&detail=compact] (signed-in users): the Performance charts'
// data, as the Performance screen renders it (docs/decisions/031-performance-charts.md).
// The range is parsed by the screen's own schema; an unknown one is the default (30 days).
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { parseChartsQuery } from "#app/core/schemas/performance-charts.ts";
import { getPerformanceCharts } from "#app/services/performance-charts.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const { range, detail } = parseChartsQuery(new URL(request.url).searchParams);
  return json(await getPerformanceCharts(context.db, range, { detail }), { headers: NO_STORE });
}
