// GET /api/trades/summary?status=&symbol=&search=&strategy=: Trade History's counts for a
// filter (issue 22), over every matching trade (not one page): { total, completed, failed }
// (completed = executed or completed). The P&L of the same filter: GET /api/closed-trades-pnl.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { apiTradeFilter, tradeHistoryTotals } from "#app/services/trade-history.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return json(await tradeHistoryTotals(context.db, apiTradeFilter(new URL(request.url).searchParams)));
}
