// The Trade History screen's first paint (SPEC.md §2, §7): the latest 50 trades and the
// filters of the URL (how the screen filters without JavaScript). The browser then polls
// GET /api/trades?limit=50 and loads GET /api/closed-trades-pnl itself (every 30 s), as
// decided in docs/decisions/007-trading-rules-form.md. Since the statistics cache
// (decision 012) that answer costs about a millisecond, not a FIFO pass over every fill.
//
// Issue 11: each trade carries its position's protection state (one query for the page), so
// the row shows real values (drawdown, TP, SL, break-even, trailing, ROI) instead of SPEC's
// placeholders, which stay only for trades without a position. It is the position's state
// now (its final state once closed): states at earlier moments are not kept.
import type { AppLoadContext } from "@remix-run/node";
import type { Kysely } from "kysely";
import { TRADE_HISTORY_LIMIT, filtersFromParams } from "#app/core/trade-history.ts";
import { type Position, positionRowToPosition } from "#db/queries/positions.ts";
import { type Trade, listTrades } from "#db/queries/trades.ts";
import type { DB } from "#db/schema.ts";
import { strategyNames } from "./strategies.server.ts";
import { sharedRead } from "./shared-read.server.ts";

export { listTrades };

export type TradePositionState = Pick<
  Position,
  "id" | "side" | "entryPrice" | "leverage" | "maxDrawdown" | "advancedControls" | "ruleState" | "breakEvenTriggered" | "trailingStopActive" | "stopPrice" | "status"
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

export async function loadTradeHistory(request: Request, context: AppLoadContext) {
  const params = new URL(request.url).searchParams;
  // ?strategy=<id> | default (decision 027): filtered on the server, like GET /api/trades.
  const strategy = (params.get("strategy") ?? "").slice(0, 40);
  // Pages asking at about the same time share one read (decision 037): everyone sees the same trades.
  const [trades, strategies] = await sharedRead(context.db, `trade-history|${strategy}`, () =>
    Promise.all([
      listTrades(context.db, { limit: TRADE_HISTORY_LIMIT, strategy: strategy || undefined }).then((list) => withPositions(context.db, list)),
      strategyNames(context.db),
    ]),
  );
  return { trades, filters: filtersFromParams(params), strategy, strategies };
}
