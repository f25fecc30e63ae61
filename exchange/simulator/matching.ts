// The simulator's arithmetic, free of any database: fill prices, net-position updates,
// realized P&L, margin and fees. Decimal strings in, decimal strings out (big.js inside).
//
// Net position (perpetual futures): a fill against the open position reduces it first
// (realized P&L credited, margin released pro rata); whatever is left opens or extends a
// position in the fill's direction at a volume-weighted entry price.
import { Big, D, type DecimalInput } from "#app/core/decimal.ts";
import type { MarginType, OrderSide } from "#app/core/exchange/types.ts";

/** Decimal places kept for computed money (the DECIMAL(36,18) scale of the database). */
export const SCALE = 18;

/** Rounds a computed amount to the stored scale (half up) and returns its string. */
export function q(value: DecimalInput): string {
  return D(value).round(SCALE, Big.roundHalfUp).toString();
}

function toTick(value: Big, tick: DecimalInput, mode: typeof Big.roundUp | typeof Big.roundDown): Big {
  const inc = D(tick);
  return value.div(inc).round(0, mode).times(inc);
}

/**
 * A taker's fill price: the market price moved against the taker by `slippage` (a fraction),
 * on the product's tick: a buy pays more (rounded up), a sell receives less (rounded down,
 * never below one tick).
 */
export function takerFillPrice(side: OrderSide, marketPrice: string, slippage: string, tick: string): string {
  const price = D(marketPrice);
  if (side === "buy") return toTick(price.times(D(1).plus(slippage)), tick, Big.roundUp).toString();
  const sell = toTick(price.times(D(1).minus(slippage)), tick, Big.roundDown);
  return (sell.lte(0) ? D(tick) : sell).toString();
}

/** True when a limit order at `limit` is marketable against `price`. */
export function crossesLimit(side: OrderSide, limit: string, price: string): boolean {
  return side === "buy" ? D(limit).gte(price) : D(limit).lte(price);
}

/** A marketable limit fills at the taker price, but never worse than its limit. */
export function marketableLimitFillPrice(
  side: OrderSide,
  limit: string,
  marketPrice: string,
  slippage: string,
  tick: string,
): string {
  const taker = takerFillPrice(side, marketPrice, slippage, tick);
  return side === "buy" ? (D(taker).lte(limit) ? taker : limit) : D(taker).gte(limit) ? taker : limit;
}

export type PositionSide = "long" | "short" | "flat";

export interface PositionState {
  side: PositionSide;
  quantity: string;
  entryPrice: string;
  margin: string;
  leverage: number;
  marginType: MarginType;
  /** Cumulative P&L realized on this symbol. */
  realizedPnl: string;
}

export const FLAT: PositionState = {
  side: "flat",
  quantity: "0",
  entryPrice: "0",
  margin: "0",
  leverage: 1,
  marginType: "cross",
  realizedPnl: "0",
};

export interface FillInput {
  side: OrderSide;
  quantity: string;
  price: string;
  feeRate: string;
  leverage: number;
  marginType: MarginType;
}

export interface FillResult {
  /** Part of the fill that reduced the open position. */
  closedQuantity: string;
  /** Part that opened or extended a position in the fill's direction. */
  openedQuantity: string;
  realizedPnl: string;
  /** Margin of the reduced part, moved from hold back to available. */
  marginReleased: string;
  /** Initial margin of the opened part (notional / leverage), moved from available to hold. */
  marginRequired: string;
  closeFee: string;
  openFee: string;
  /** closeFee + openFee = filled notional x fee rate. */
  fee: string;
  /** What settling the closing part adds to `available`: released margin + realized P&L - its fee. */
  settlement: string;
  availableDelta: string;
  holdDelta: string;
  position: PositionState;
}

/** Which way a fill moves a position: buy adds to a long, sell adds to a short. */
const directionOf = (side: OrderSide): PositionSide => (side === "buy" ? "long" : "short");

/** The part of `quantity` a reduce-only order may trade: at most what is open against it. */
export function reduceOnlyQuantity(position: PositionState | null, side: OrderSide, quantity: string): string {
  if (!position || position.side === "flat" || D(position.quantity).lte(0)) return "0";
  if (position.side === directionOf(side)) return "0"; // would extend, not reduce
  return D(quantity).lte(position.quantity) ? D(quantity).toString() : D(position.quantity).toString();
}

/** The quantity of a fill that would open new exposure, given the current position. */
export function openingQuantity(position: PositionState | null, side: OrderSide, quantity: string): string {
  if (!position || position.side === "flat" || position.side === directionOf(side)) return D(quantity).toString();
  const rest = D(quantity).minus(position.quantity);
  return rest.gt(0) ? rest.toString() : "0";
}

export function applyFill(current: PositionState | null, fill: FillInput): FillResult {
  const position = current && current.side !== "flat" && D(current.quantity).gt(0) ? current : null;
  const direction = directionOf(fill.side);
  const quantity = D(fill.quantity);
  const price = D(fill.price);

  let closed = D(0);
  let realized = D(0);
  let released = D(0);
  if (position && position.side !== direction) {
    closed = quantity.lte(position.quantity) ? quantity : D(position.quantity);
    const perUnit = position.side === "long" ? price.minus(position.entryPrice) : D(position.entryPrice).minus(price);
    realized = D(q(perUnit.times(closed)));
    released = closed.eq(position.quantity)
      ? D(position.margin)
      : D(q(D(position.margin).times(closed).div(position.quantity)));
  }
  const opened = quantity.minus(closed);

  const fee = D(q(quantity.times(price).times(fill.feeRate)));
  const closeFee = D(q(closed.times(price).times(fill.feeRate)));
  const openFee = fee.minus(closeFee);
  const required = opened.gt(0) ? D(q(opened.times(price).div(fill.leverage))) : D(0);

  const cumulativeRealized = D(current?.realizedPnl ?? "0")
    .plus(realized)
    .toString();
  // A position opened by this fill alone (from flat, or past flat when it reverses).
  const openedFresh = (): PositionState => ({
    side: direction,
    quantity: opened.toString(),
    entryPrice: price.toString(),
    margin: required.toString(),
    leverage: fill.leverage,
    marginType: fill.marginType,
    realizedPnl: cumulativeRealized,
  });
  let next: PositionState;
  if (position && position.side !== direction) {
    const remaining = D(position.quantity).minus(closed);
    if (remaining.gt(0)) {
      next = {
        ...position,
        quantity: remaining.toString(),
        margin: D(position.margin).minus(released).toString(),
        realizedPnl: cumulativeRealized,
      };
    } else if (opened.gt(0)) {
      next = openedFresh();
    } else {
      next = { ...FLAT, leverage: position.leverage, marginType: position.marginType, realizedPnl: cumulativeRealized };
    }
  } else if (position) {
    const total = D(position.quantity).plus(opened);
    const entry = q(D(position.quantity).times(position.entryPrice).plus(opened.times(price)).div(total));
    next = {
      side: direction,
      quantity: total.toString(),
      entryPrice: entry,
      margin: D(position.margin).plus(required).toString(),
      leverage: fill.leverage,
      marginType: fill.marginType,
      realizedPnl: cumulativeRealized,
    };
  } else {
    next = openedFresh();
  }

  const settled = released.plus(realized).minus(closeFee);
  return {
    closedQuantity: closed.toString(),
    openedQuantity: opened.toString(),
    realizedPnl: realized.toString(),
    marginReleased: released.toString(),
    marginRequired: required.toString(),
    closeFee: closeFee.toString(),
    openFee: openFee.toString(),
    fee: fee.toString(),
    settlement: settled.toString(),
    availableDelta: settled.minus(openFee).minus(required).toString(),
    holdDelta: required.minus(released).toString(),
    position: next,
  };
}

/** Unrealized P&L of a position at `mark`. */
export function unrealizedPnl(side: PositionSide, quantity: string, entryPrice: string, mark: string): string {
  if (side === "flat") return "0";
  const perUnit = side === "long" ? D(mark).minus(entryPrice) : D(entryPrice).minus(mark);
  return q(perUnit.times(quantity));
}

/**
 * What an open position's unrealized loss takes from the account's free collateral at `mark`
 * (zero or negative; profits count for nothing until realized): a cross position's whole
 * loss (the account carries it); an isolated one's only beyond its own margin (its margin,
 * already held, carries the rest).
 */
export function unrealizedLoss(state: PositionState | null, mark: string | null): string {
  if (!state || state.side === "flat" || mark === null || D(state.quantity).lte(0)) return "0";
  let loss = D(unrealizedPnl(state.side, state.quantity, state.entryPrice, mark));
  if (state.marginType === "isolated") loss = loss.plus(state.margin);
  return loss.lt(0) ? loss.toString() : "0";
}

/** Money for messages: what is needed rounded up, what is available rounded down, 2 places. */
export const moneyUp = (value: DecimalInput) => D(value).round(2, Big.roundUp).toFixed(2);
export const moneyDown = (value: DecimalInput) => D(value).round(2, Big.roundDown).toFixed(2);
