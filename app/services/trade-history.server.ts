// The Trade History screen's first paint (docs/spec/screens.md, api.md): one page of 50 trades, newest
// first, for the filters of the URL (symbol text, status, strategy: how the screen filters
// without JavaScript), the cursor of the next page (`before=`, keyset on created_at and id,
// as Activity Logs pages: each row comes once while new trades arrive), and the header's
// counts for the same filter over every page (issue 22). The browser then polls
// GET /api/trades?limit=50 (the newest page) and /api/trades/summary (the counts), and loads
// GET /api/closed-trades-pnl (the P&L card: the matching trades' realized P&L plus the
// matching funding, docs/pnl.md) itself, each with the filter (every 30 s), as decided in
// docs/decisions/007-trading-rules-form.md: the page's own read stays the rows and counts
// (decision 037's capacity), and older pages load in place.
//
// Issue 11: each trade carries its position's protection state (one query for the page), so
// the row shows real values (drawdown, TP, SL, break-even, trailing, ROI) instead of SPEC's
// placeholders, which stay only for trades without a position. It is the position's state
// now (its final state once closed): states at earlier moments are not kept.
import type { AppLoadContext } from "@remix-run/node";
import type { Kysely } from "kysely";
import { TRADE_HISTORY_LIMIT, type TradeCounts, filtersFromParams, tradeDbFilter } from "#app/core/trade-history.ts";
import { type Position, positionRowToPosition } from "#db/queries/positions.ts";
import { type Trade, type TradeFilterQuery, countTrades, pageTrades, parseTradeCursor } from "#db/queries/trades.ts";
import { queryInt } from "#app/utils/api.server.ts";
import type { DB } from "#db/schema.ts";
import { strategyNames } from "./strategies.server.ts";
import { sharedRead } from "./shared-read.server.ts";
import { getClosedTradesPnlFor } from "./statistics.server.ts";

export type TradePositionState = Pick<
  Position,
  | "id"
  | "side"
  | "entryPrice"
  | "leverage"
  | "maxDrawdown"
  | "advancedControls"
  | "ruleState"
  | "breakEvenTriggered"
  | "trailingStopActive"
  | "stopPrice"
  | "status"
>;
export type TradeWithPosition = Trade & { position: TradePositionState | null };

export async function withPositions(db: Kysely<DB>, trades: Trade[]): Promise<TradeWithPosition[]> {
  const ids = [...new Set(trades.flatMap((t) => (t.positionId ? [t.positionId] : [])))];
  const rows = ids.length ? await db.selectFrom("positions").selectAll().where("id", "in", ids).execute() : [];
  const byId = new Map(
    rows.map((row) => {
      const p = positionRowToPosition(row);
      const state: TradePositionState = {
        id: p.id,
        side: p.side,
        entryPrice: p.entryPrice,
        leverage: p.leverage,
        maxDrawdown: p.maxDrawdown,
        advancedControls: p.advancedControls,
        ruleState: p.ruleState,
        breakEvenTriggered: p.breakEvenTriggered,
        trailingStopActive: p.trailingStopActive,
        stopPrice: p.stopPrice,
        status: p.status,
      };
      return [p.id, state];
    }),
  );
  return trades.map((t) => ({ ...t, position: t.positionId ? (byId.get(t.positionId) ?? null) : null }));
}

/** The header's counts for a filter: every matching order, not one page (its P&L: GET /api/closed-trades-pnl with the filter). */
export async function tradeHistoryTotals(db: Kysely<DB>, filter: TradeFilterQuery): Promise<TradeCounts> {
  return countTrades(db, filter);
}

/** The filter of GET /api/trades, /api/trades/summary and /api/closed-trades-pnl: status, symbol (exact), search (symbol text), strategy. */
export function apiTradeFilter(params: URLSearchParams): TradeFilterQuery {
  const get = (name: string, max: number) => (params.get(name) ?? "").trim().slice(0, max) || undefined;
  return {
    status: get("status", 20),
    symbol: get("symbol", 40),
    search: get("search", 40),
    strategy: get("strategy", 40),
  };
}

/**
 * GET /api/trades: one page of `?limit=` (default 10) trades for the request's filter, older
 * than the cursor `?before=`, each with its position's protection state, and the next cursor.
 */
export async function apiTradesPage(
  db: Kysely<DB>,
  params: URLSearchParams,
): Promise<{ trades: TradeWithPosition[]; nextCursor: string | null }> {
  const page = await pageTrades(db, {
    ...apiTradeFilter(params),
    limit: queryInt(params, "limit", 10, 1, 1000),
    before: parseTradeCursor(params.get("before")),
  });
  return { trades: await withPositions(db, page.trades), nextCursor: page.nextCursor };
}

export async function loadTradeHistory(request: Request, context: AppLoadContext) {
  const params = new URL(request.url).searchParams;
  const filters = filtersFromParams(params);
  // ?strategy=<id> | default (decision 027): filtered on the server, like GET /api/trades.
  const strategy = (params.get("strategy") ?? "").slice(0, 40);
  const before = parseTradeCursor(params.get("before"));
  const filter = tradeDbFilter(filters, strategy);
  // Pages asking at about the same time share one read (decision 037): everyone sees the same trades.
  const key = `trade-history|${strategy}|${filters.status}|${filters.symbol}|${before ? `${before.createdAt}_${before.id}` : ""}`;
  const [page, strategies, totals, pnl] = await sharedRead(context.db, key, () =>
    Promise.all([
      pageTrades(context.db, { ...filter, limit: TRADE_HISTORY_LIMIT, before }).then(async (p) => ({
        trades: await withPositions(context.db, p.trades),
        nextCursor: p.nextCursor,
      })),
      strategyNames(context.db),
      tradeHistoryTotals(context.db, filter),
      // The P&L card's figure for the same filter (GET /api/closed-trades-pnl), so that it is on
      // the page without JavaScript too.
      getClosedTradesPnlFor(context.db, filter),
    ]),
  );
  return {
    trades: page.trades,
    nextCursor: page.nextCursor,
    before: before ? params.get("before") : null,
    filters,
    strategy,
    strategies,
    totals,
    pnl,
  };
}
