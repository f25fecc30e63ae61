// Unrealized P&L of the open positions (docs/pnl.md "Unrealized P&L"): (mark − entry) ×
// remaining for a long, the reverse for a short, on the position's average entry, at the
// latest price (a position without one: its last mark). One function for the portfolio
// summary, the Performance charts' "now" and the worker's equity snapshots.
import { D } from "../decimal.ts";
import { type PositionSide, realizedPnl } from "../orders/net-position.ts";

export interface OpenPositionMark {
  symbol: string;
  side: PositionSide;
  entryPrice: string;
  remainingQuantity: string;
  currentPrice: string | null;
}

/** Σ unrealized P&L at `prices` (by symbol), exact. */
export function unrealizedTotal(
  positions: readonly OpenPositionMark[],
  prices: ReadonlyMap<string, { price: string }>,
): string {
  return positions
    .reduce((acc, p) => {
      const price = prices.get(p.symbol)?.price ?? p.currentPrice;
      return price ? acc.plus(realizedPnl(p.side, p.entryPrice, price, p.remainingQuantity)) : acc;
    }, D(0))
    .toString();
}
