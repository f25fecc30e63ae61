// The Trade History screen's first paint (SPEC.md §2, §7): the latest 50 trades and the
// filters of the URL (how the screen filters without JavaScript). The browser then polls
// GET /api/trades?limit=50 and loads GET /api/closed-trades-pnl itself (every 30 s), as
// decided in docs/decisions/007-trading-rules-form.md. Since the statistics cache
// (decision 012) that answer costs about a millisecond, not a FIFO pass over every fill.
import type { AppLoadContext } from "@remix-run/node";
import { TRADE_HISTORY_LIMIT, filtersFromParams } from "#app/components/trade-history/trade-history-utils.ts";
import { listTrades } from "#db/queries/trades.ts";

export async function loadTradeHistory(request: Request, context: AppLoadContext) {
  const trades = await listTrades(context.db, { limit: TRADE_HISTORY_LIMIT });
  return { trades, filters: filtersFromParams(new URL(request.url).searchParams) };
}
