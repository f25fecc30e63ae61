// Margin, maintenance margin and liquidation price of a position (issue 11; paper margin:
// docs/decisions/024-paper-margin.md). ONE rule, used by the Positions screen (through the
// simulator's getPositions) and by the simulator when it liquidates
// (exchange/simulator/liquidation.ts liquidateAccounts), so the price shown is the price
// the paper exchange liquidates at.
//
// - Initial margin = entry notional / leverage (what the simulator holds when it opens).
// - Maintenance margin = mark notional x the product's maintenance rate (MAINTENANCE_MARGIN_RATES).
// - Isolated: liquidated when the position's own equity (its margin + its unrealized P&L)
//   falls to its maintenance margin.
// - Cross: liquidated when the cross account's equity (free collateral + every cross
//   position's margin + unrealized P&L) falls to the cross positions' total maintenance
//   margin. For one position, the others held at their current marks, that is a price:
//   the position's cushion is its margin + the free collateral + the other cross positions'
//   (margin + unrealized P&L - maintenance).
// Solving cushion + (P - E) x Q = m x P x Q for a long gives P = (E x Q - cushion) / (Q x (1 - m));
// a short, cushion + (E - P) x Q = m x P x Q, gives P = (E x Q + cushion) / (Q x (1 + m)).
// The price is put on the product's tick towards the entry (a long's rounded up, a short's
// down): the exchange liquidates at or just before the exact figure, never after it.
// Coinbase reports its own figure (exchange/coinbase/adapter.ts), shown instead there.
// Pure decimals.
import { Big, D } from "../decimal.ts";
import { productOf } from "../products.ts";

/**
 * Maintenance margin rate per product, a fraction of the position's notional at the mark.
 * Of the order of what perpetual exchanges ask at their lowest tier: 0.5 % for BTC and ETH,
 * 1 % for the more volatile SOL and XRP (and any product not listed).
 */
export const MAINTENANCE_MARGIN_RATES: Readonly<Record<string, string>> = {
  "BTC-PERP": "0.005",
  "ETH-PERP": "0.005",
  "SOL-PERP": "0.01",
  "XRP-PERP": "0.01",
};
export const DEFAULT_MAINTENANCE_MARGIN_RATE = "0.01";

export const maintenanceRate = (symbol: string | undefined): string =>
  (symbol ? MAINTENANCE_MARGIN_RATES[symbol] : undefined) ?? DEFAULT_MAINTENANCE_MARGIN_RATE;

export interface MarginInput {
  /** The product (its maintenance rate and price tick); without it 1 % and 8 decimals. */
  symbol?: string;
  side: "long" | "short";
  entryPrice: string;
  /** What is still open. */
  quantity: string;
  leverage: number;
  marginType: string;
  /** The margin the exchange holds for it; default the initial margin (positionMargin). */
  margin?: string;
}

export function positionMargin(p: MarginInput): string {
  const leverage = p.leverage > 0 ? p.leverage : 1;
  return D(p.entryPrice).times(p.quantity).div(leverage).round(8).toString();
}

/** Maintenance margin at `mark`: mark notional x the product's rate. */
export function maintenanceMargin(p: Pick<MarginInput, "symbol" | "quantity">, mark: string): string {
  return D(mark).times(p.quantity).times(maintenanceRate(p.symbol)).toString();
}

/** (mark - entry) x quantity for a long, the reverse for a short. */
export function unrealized(p: Pick<MarginInput, "side" | "entryPrice" | "quantity">, mark: string): string {
  const perUnit = p.side === "long" ? D(mark).minus(p.entryPrice) : D(p.entryPrice).minus(mark);
  return perUnit.times(p.quantity).toString();
}

const tickOf = (symbol: string | undefined) => productOf(symbol)?.quoteIncrement ?? null;

/**
 * The mark price at which the position's equity falls to its maintenance margin; null when
 * nothing is open, when a cross position's cushion is unknown, or when no positive price gets
 * there (a long backed beyond its whole notional).
 *
 * `crossCushion`: for a cross position, what backs it besides its own margin (the free
 * collateral plus the other cross positions' margin + unrealized P&L - maintenance: see
 * accountLiquidationPrices); ignored for an isolated one.
 */
export function liquidationPrice(p: MarginInput, crossCushion: string | null): string | null {
  const quantity = D(p.quantity);
  if (quantity.lte(0)) return null;
  const isolated = p.marginType === "isolated";
  if (!isolated && crossCushion === null) return null;
  const cushion = D(p.margin ?? positionMargin(p)).plus(isolated ? 0 : crossCushion!);
  const rate = D(maintenanceRate(p.symbol));
  const entryNotional = D(p.entryPrice).times(quantity);
  const exact =
    p.side === "long"
      ? entryNotional.minus(cushion).div(quantity.times(D(1).minus(rate)))
      : entryNotional.plus(cushion).div(quantity.times(D(1).plus(rate)));
  const tick = tickOf(p.symbol);
  // Towards the entry: a long's up, a short's down (liquidated at or before the exact price).
  const mode = p.side === "long" ? Big.roundUp : Big.roundDown;
  const price = tick ? exact.div(tick).round(0, mode).times(tick) : exact.round(8, mode);
  return price.gt(0) ? price.toString() : null;
}

/** True when `mark` has reached the liquidation price (a long at or below it, a short at or above). */
export function isLiquidated(side: "long" | "short", liquidation: string | null, mark: string): boolean {
  if (liquidation === null) return false;
  return side === "long" ? D(mark).lte(liquidation) : D(mark).gte(liquidation);
}

export interface AccountPosition extends MarginInput {
  symbol: string;
  margin: string;
  /** The latest mark; null when unknown (the entry stands in for it). */
  mark: string | null;
}

/**
 * Every position's liquidation price in one account: isolated ones on their own margin,
 * cross ones on the free collateral (`available`, null when unknown) and the other cross
 * positions at their marks. Keyed by symbol (one net position per symbol).
 */
export function accountLiquidationPrices(
  positions: AccountPosition[],
  available: string | null,
): Map<string, string | null> {
  const cross = positions.filter((p) => p.marginType !== "isolated");
  // What each cross position adds to the account's cushion beyond its maintenance.
  const surplus = new Map(
    cross.map((p) => {
      const mark = p.mark ?? p.entryPrice;
      return [p.symbol, D(p.margin).plus(unrealized(p, mark)).minus(maintenanceMargin(p, mark))];
    }),
  );
  const out = new Map<string, string | null>();
  for (const p of positions) {
    if (p.marginType === "isolated") {
      out.set(p.symbol, liquidationPrice(p, null));
      continue;
    }
    if (available === null) {
      out.set(p.symbol, null);
      continue;
    }
    let cushion = D(available);
    for (const other of cross) if (other.symbol !== p.symbol) cushion = cushion.plus(surplus.get(other.symbol)!);
    out.set(p.symbol, liquidationPrice(p, cushion.toString()));
  }
  return out;
}
