// GET /api/trades/{id}/details (docs/spec/api.md#shapes "Trade details response", api.md): the trade, the
// signal it came from, the other trades of the same position or signal, and its metrics.
// Amounts are exact decimal strings.
import type { Kysely } from "kysely";
import type { TradeDetails } from "#app/core/trade-history.ts";
import { D } from "#app/core/decimal.ts";
import { getPrice } from "#exchange/simulator/price-feed.ts";
import { getSignal } from "#db/queries/signals.ts";
import { getSignalTimeline } from "#db/queries/signal-timeline.ts";
import { type Trade, getTrade, listTrades } from "#db/queries/trades.ts";
import type { DB } from "#db/schema.ts";
import { type PriceChartData, tradeChart } from "./price-chart.server.ts";

/** The simulator's taker fee rate: the estimate for an order that has not paid its fee yet. */
export const ESTIMATED_FEE_RATE = "0.0006";
export const RELATED_TRADES_LIMIT = 50;

export type { TradeDetails };

/**
 * Metrics of one trade: the value at the fill (executed quantity × executed price), else
 * what it would be (quantity × limit price, or × the latest market price for a market order
 * still waiting); the fee it paid, else an estimate at the taker rate.
 */
export function tradeMetrics(trade: Trade, marketPrice: string | null): TradeDetails["metrics"] {
  const executed = D(trade.executedQuantity || "0");
  let totalValue = D(0);
  if (executed.gt(0) && trade.executedPrice) totalValue = executed.times(trade.executedPrice);
  else if (trade.status !== "failed" && trade.status !== "cancelled") {
    const price = trade.price ?? marketPrice;
    if (price) totalValue = D(trade.quantity).times(price);
  }
  const fee = D(trade.fee || "0");
  const estimatedFees = fee.gt(0) ? fee : totalValue.times(ESTIMATED_FEE_RATE);
  return {
    totalValue: totalValue.toString(),
    estimatedFees: estimatedFees.toString(),
    executedQuantity: executed.toString(),
  };
}

export async function getTradeDetails(
  db: Kysely<DB>,
  id: string,
): Promise<(TradeDetails & { chart: PriceChartData | null }) | null> {
  const trade = await getTrade(db, id);
  if (!trade) return null;
  const [signal, byPosition, bySignal, market, timeline, chart] = await Promise.all([
    trade.signalId ? getSignal(db, trade.signalId) : null,
    trade.positionId ? listTrades(db, { positionId: trade.positionId, limit: RELATED_TRADES_LIMIT }) : [],
    trade.signalId ? listTrades(db, { signalId: trade.signalId, limit: RELATED_TRADES_LIMIT }) : [],
    !trade.executedPrice && !trade.price ? getPrice(db, trade.symbol) : null,
    trade.signalId ? getSignalTimeline(db, trade.signalId) : null,
    tradeChart(db, trade),
  ]);
  const related = new Map<string, Trade>();
  for (const t of [...byPosition, ...bySignal]) if (t.id !== trade.id) related.set(t.id, t);
  const relatedTrades = [...related.values()]
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
    .slice(0, RELATED_TRADES_LIMIT);
  return {
    trade,
    relatedSignal: signal ? { id: signal.id, action: signal.action, createdAt: signal.createdAt } : null,
    relatedTrades,
    metrics: tradeMetrics(trade, market?.price ?? null),
    // A trade from a signal carries the signal's latency timeline (issue 12); others keep SPEC's four keys.
    ...(trade.signalId ? { timeline } : {}),
    // Its position's price chart, or the candles around its fill (decision 032).
    chart,
  };
}
