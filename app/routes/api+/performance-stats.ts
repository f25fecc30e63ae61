// GET /api/performance-stats: { allTime, month, week } (SPEC.md §3 "Performance stats
// response"), from FIFO-matched executed trades. Month and week are the last 30 and 7 days,
// a closed trade counted by its exit time (docs/decisions/004-performance-statistics.md).
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { matchFifo } from "#app/core/pnl/fifo.ts";
import { periodStats } from "#app/core/pnl/performance-stats.ts";
import { requireUser } from "#app/utils/auth.server.ts";
import { listExecutedFills } from "#db/queries/statistics.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const { matches } = matchFifo(await listExecutedFills(context.db));
  return json(periodStats(matches, Date.now()));
}
