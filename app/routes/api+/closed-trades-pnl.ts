// GET /api/closed-trades-pnl: { totalPnL, realizedMatches, closingTrades } (docs/spec/api.md#shapes "Closed-trades P&L
// response"): all-time realized P&L by FIFO matching, net of fees, as an exact decimal
// string, and the number of realized matches (docs/decisions/004-performance-statistics.md),
// from the statistics cache (docs/decisions/012-statistics-cache-and-monitor.md), plus the
// funding (`funding`, its part, once any was booked). Trade History's filter narrows it
// (issue 22): ?status=&symbol=&search=&strategy=, as GET /api/trades takes them, give the
// sum over the matching trades plus their symbol's / strategy's funding (docs/pnl.md).
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { getClosedTradesPnlFor } from "#app/services/statistics.server.ts";
import { apiTradeFilter } from "#app/services/trade-history.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return json(await getClosedTradesPnlFor(context.db, apiTradeFilter(new URL(request.url).searchParams)));
}
