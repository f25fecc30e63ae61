// GET /api/closed-trades-pnl: { totalPnL, realizedMatches } (SPEC.md §3 "Closed-trades P&L
// response"): all-time realized P&L by FIFO matching, net of fees, as an exact decimal
// string, and the number of realized matches (docs/decisions/004-performance-statistics.md).
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { closedTradesPnl } from "#app/core/pnl/fifo.ts";
import { requireUser } from "#app/utils/auth.server.ts";
import { listExecutedFills } from "#db/queries/statistics.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return json(closedTradesPnl(await listExecutedFills(context.db)));
}
