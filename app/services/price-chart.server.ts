// The price chart of a position or a trade (issue 13, decision 032): the 1-minute candles the
// app keeps (db/queries/candles.ts) over the position's life, the levels its rules act on
// (app/core/rules/levels.ts) and its fills as markers. The position and trade details APIs
// carry it; GET /api/candles reads candles alone.
import type { Kysely } from "kysely";
import { takerFeeRate } from "#app/core/rules/breakeven.ts";
import { chartLevels, chartMarkers } from "#app/core/rules/levels.ts";
import { resolveSymbol } from "#app/core/products.ts";
import { type CandleView, MAX_CANDLES, type PriceChartData } from "#app/core/schemas/candles.ts";
import { listCandles } from "#db/queries/candles.ts";
import { type Position, getPosition } from "#db/queries/positions.ts";
import { type Trade, listTrades } from "#db/queries/trades.ts";
import type { DB } from "#db/schema.ts";

export type { PriceChartData };

/** Candles from this long before the first fill, and after the close of a closed position. */
export const CHART_MARGIN_MS = 15 * 60_000;

/** GET /api/candles: a symbol's candles in [from, to], the newest `limit` (≤ MAX_CANDLES) when there are more. */
export const candleViews = async (
  db: Kysely<DB>,
  symbol: string,
  from: number,
  to: number,
  limit = MAX_CANDLES,
): Promise<CandleView[]> =>
  (await listCandles(db, symbol, { from, to, limit })).map(({ time, open, high, low, close }) => ({
    time,
    open,
    high,
    low,
    close,
  }));

/** A position's chart: from its opening to now (or its close), the newest MAX_CANDLES minutes at most. */
export async function positionChart(
  db: Kysely<DB>,
  position: Position,
  trades: Trade[],
  now = Date.now(),
): Promise<PriceChartData> {
  const from = Date.parse(position.createdAt) - CHART_MARGIN_MS;
  const to = position.closedAt ? Math.min(now, Date.parse(position.closedAt) + CHART_MARGIN_MS) : now;
  return {
    symbol: position.symbol,
    from,
    to,
    candles: await candleViews(db, position.symbol, from, to),
    // The break-even level as the worker will price it: the fees the position paid, its exchange's taker rate, the tick (decision 046).
    levels: chartLevels(position, {
      entryFee: position.fees,
      quantity: position.quantity,
      exitFeeRate: takerFeeRate(position.exchange),
      tick: resolveSymbol(position.symbol)?.quoteIncrement ?? null,
    }),
    markers: chartMarkers(position.side, trades),
  };
}

/**
 * A trade's chart: its position's when it has one; else the candles around its fill with the
 * fill marked (no levels: no rules protect it). Null for a trade that never filled and has
 * no position.
 */
export async function tradeChart(db: Kysely<DB>, trade: Trade, now = Date.now()): Promise<PriceChartData | null> {
  if (trade.positionId) {
    const position = await getPosition(db, trade.positionId);
    if (position) {
      const trades = await listTrades(db, { positionId: position.id, limit: 1000 });
      return positionChart(db, position, trades, now);
    }
  }
  if (!trade.executedPrice) return null;
  const at = Date.parse(trade.executedAt ?? trade.updatedAt);
  const from = at - CHART_MARGIN_MS * 2;
  const to = Math.min(now, at + CHART_MARGIN_MS * 2);
  const markers = chartMarkers(trade.side === "buy" ? "long" : "short", [trade]);
  return {
    symbol: trade.symbol,
    from,
    to,
    candles: await candleViews(db, trade.symbol, from, to),
    levels: [],
    markers,
  };
}
