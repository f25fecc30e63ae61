// GET /api/performance-stats: { allTime, month, week } (docs/spec/api.md#shapes "Performance stats
// response"), from FIFO-matched executed trades. Month and week are the last 30 and 7 days,
// a closed trade counted by its exit time (docs/decisions/004-performance-statistics.md);
// from the statistics cache (docs/decisions/012-statistics-cache-and-monitor.md).
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { getPerformanceStats } from "#app/services/statistics.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return json(await getPerformanceStats(context.db));
}
