// Margin and liquidation price of a position (issue 11), by the simulator's margin model:
// initial margin = entry notional / leverage. The position is liquidated when its loss uses
// up what backs it: its own margin (isolated), or its margin plus the account's free
// collateral (cross, as if this position alone drew on it). Coinbase reports its own figure
// (app/core/exchange/coinbase/adapter.ts), which is shown instead there. Pure decimals.
import { D } from "../decimal.ts";

export interface MarginInput {
  side: "long" | "short";
  entryPrice: string;
  /** What is still open. */
  quantity: string;
  leverage: number;
  marginType: string;
}

export function positionMargin(p: MarginInput): string {
  const leverage = p.leverage > 0 ? p.leverage : 1;
  return D(p.entryPrice).times(p.quantity).div(leverage).round(8).toString();
}

/**
 * The mark price at which the position's loss equals what backs it; null when nothing is
 * open, when a cross position's free collateral is unknown, or when no positive price gets
 * there (a long backed beyond its whole notional).
 */
export function liquidationPrice(p: MarginInput, crossCollateral: string | null): string | null {
  const quantity = D(p.quantity);
  if (quantity.lte(0)) return null;
  const isolated = p.marginType === "isolated";
  if (!isolated && crossCollateral === null) return null;
  const cushion = D(positionMargin(p)).plus(isolated ? 0 : D(crossCollateral!).gt(0) ? crossCollateral! : 0);
  const move = cushion.div(quantity);
  const price = p.side === "long" ? D(p.entryPrice).minus(move) : D(p.entryPrice).plus(move);
  return price.gt(0) ? price.round(8).toString() : null;
}
