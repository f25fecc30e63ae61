// Net position per symbol, as perpetual futures work: a fill against the open position
// reduces it first (realising P&L); what is left opens or extends a position in the
// fill's direction at a volume-weighted entry. Pure decimal arithmetic.
import { D } from "../decimal.ts";

export type PositionSide = "long" | "short";

export interface OpenPosition {
  side: PositionSide;
  /** Size at its largest (what was opened, plus extensions). */
  quantity: string;
  /** What is still open. */
  remaining: string;
  entryPrice: string;
}

export interface Fill {
  side: "buy" | "sell";
  quantity: string;
  price: string;
}

export interface FillEffect {
  /** Quantity of the open position this fill closed, and the P&L it realised (before fees). */
  reduced: { quantity: string; realizedPnl: string } | null;
  /** The position after the fill; null when flat. `isNew` when the fill opened (or flipped into) it. */
  position: (OpenPosition & { isNew: boolean }) | null;
}

export const sideForOrder = (orderSide: "buy" | "sell"): PositionSide => (orderSide === "buy" ? "long" : "short");

export function realizedPnl(side: PositionSide, entryPrice: string, exitPrice: string, quantity: string): string {
  const move = side === "long" ? D(exitPrice).minus(entryPrice) : D(entryPrice).minus(exitPrice);
  return move.times(quantity).toString();
}

export function applyFill(position: OpenPosition | null, fill: Fill): FillEffect {
  const fillSide = sideForOrder(fill.side);
  const qty = D(fill.quantity);
  if (qty.lte(0)) return { reduced: null, position: position ? { ...position, isNew: false } : null };

  if (!position || D(position.remaining).lte(0)) {
    return {
      reduced: null,
      position: {
        side: fillSide,
        quantity: qty.toString(),
        remaining: qty.toString(),
        entryPrice: D(fill.price).toString(),
        isNew: true,
      },
    };
  }

  if (position.side === fillSide) {
    const remaining = D(position.remaining);
    const entry = D(position.entryPrice).times(remaining).plus(D(fill.price).times(qty)).div(remaining.plus(qty));
    return {
      reduced: null,
      position: {
        side: position.side,
        quantity: D(position.quantity).plus(qty).toString(),
        remaining: remaining.plus(qty).toString(),
        entryPrice: entry.toString(),
        isNew: false,
      },
    };
  }

  const closeQty = qty.lt(position.remaining) ? qty : D(position.remaining);
  const reduced = {
    quantity: closeQty.toString(),
    realizedPnl: realizedPnl(position.side, position.entryPrice, fill.price, closeQty.toString()),
  };
  const left = D(position.remaining).minus(closeQty);
  if (left.gt(0)) {
    return { reduced, position: { ...position, remaining: left.toString(), isNew: false } };
  }
  const flip = qty.minus(closeQty);
  if (flip.gt(0)) {
    return {
      reduced,
      position: {
        side: fillSide,
        quantity: flip.toString(),
        remaining: flip.toString(),
        entryPrice: D(fill.price).toString(),
        isNew: true,
      },
    };
  }
  return { reduced, position: null };
}
