// Paper margin checks (docs/decisions/024-paper-margin.md): a new order that opens exposure
// must fit in the free collateral less the unrealized losses of the open positions
// (unrealizedLoss); reduce-only orders are never refused for margin.
import { type Big, D } from "#app/core/decimal.ts";
import { listOtherSimPositions } from "#db/queries/simulator.ts";
import type { Db } from "#db/queries/util.ts";
import { type PositionState, moneyDown, moneyUp, unrealizedLoss } from "./matching.ts";
import { getPrices } from "./price-feed.ts";
import { positionRowToState } from "./rows.ts";

/** The simulator's default taker fee (what a market order pays), also used by the web's margin pre-check. */
export const SIM_TAKER_FEE_RATE = "0.0006";

export const insufficientMargin = (needs: string, available: string, currency: string) =>
  `Insufficient margin: order needs ${moneyUp(needs)} ${currency}, available ${moneyDown(available)} ${currency}`;

/** The refusal when the free collateral, less the open positions' unrealized losses, cannot carry `needs`; null when it can. */
export function marginShortfall(needs: Big, free: Big, loss: string, currency: string): string | null {
  const usable = free.plus(loss);
  if (!needs.gt(usable)) return null;
  const counted = D(loss).lt(0)
    ? ` (unrealized losses of open positions ${moneyUp(D(loss).neg())} ${currency} counted)`
    : "";
  return `${insufficientMargin(needs.toString(), usable.toString(), currency)}${counted}`;
}

/**
 * The unrealized losses the account's open positions take from its free collateral
 * (matching.ts unrealizedLoss) at the stored prices: every position but `symbol`'s, plus
 * `own` (what stays open of `symbol`'s position after the order's closing part) at `ownMark`.
 */
export async function accountLoss(
  trx: Db,
  profileId: string,
  symbol: string,
  own: PositionState | null,
  ownMark: string | null,
): Promise<string> {
  const rows = await listOtherSimPositions(trx, profileId, symbol);
  let loss = D(unrealizedLoss(own, ownMark));
  if (rows.length === 0) return loss.toString();
  const prices = await getPrices(trx);
  for (const row of rows)
    loss = loss.plus(unrealizedLoss(positionRowToState(row), prices.get(row.symbol)?.price ?? null));
  return loss.toString();
}

/** What stays open of `position` once `closed` of it is closed (null when nothing does). */
export function remainingOf(position: PositionState | null, closed: string): PositionState | null {
  if (!position || position.side === "flat") return null;
  const rest = D(position.quantity).minus(closed);
  if (rest.lte(0)) return null;
  return {
    ...position,
    quantity: rest.toString(),
    margin: D(position.margin).times(rest).div(position.quantity).toString(),
  };
}
