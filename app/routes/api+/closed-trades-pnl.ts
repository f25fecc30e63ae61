// GET /api/closed-trades-pnl: { totalPnL, realizedMatches, closingTrades } (SPEC.md §3 "Closed-trades P&L
// response"): all-time realized P&L by FIFO matching, net of fees, as an exact decimal
// string, and the number of realized matches (docs/decisions/004-performance-statistics.md),
// from the statistics cache (docs/decisions/012-statistics-cache-and-monitor.md).
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { getClosedTradesPnl } from "#app/services/statistics.server.ts";
import { requireUser } from "#app/utils/auth.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return json(await getClosedTradesPnl(context.db));
}
