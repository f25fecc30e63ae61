// What a take-profit level closes when its share is not a whole number of contracts
// (docs/decisions/025-contracts-and-rounding.md). A "contract" is the product's base
// increment as the ACTIVE exchange trades it (exchange/trading-product.ts):
// on Coinbase one CDE contract (BIP: 0.01 BTC), on the simulator its own increment, or
// Coinbase's contract when "Use Coinbase contract sizes" is on.
//
// For the levels before the last enabled one:
// - the share (original quantity × the levels' fractions) is rounded to the NEAREST whole
//   contract, half up (1.5 → 2, 0.6 → 1, 0.4 → 0);
// - at least the minimum size (one contract) while more than that remains;
// - never so much that less than the minimum would be left for the last level: the close is
//   capped at what remains less one minimum;
// - when what remains cannot be split (one contract, or less than two minimums) the level
//   closes nothing: it is recorded as skipped and its share goes to the last level.
// The last enabled level (and a stop or trailing exit) closes whatever remains.
import { Big } from "../decimal.ts";

export interface ContractProduct {
  baseIncrement: string;
  baseMinSize: string;
}

export type TakeProfitSize =
  | { kind: "close"; quantity: string; contracts: number }
  | { kind: "skip"; reason: "too-small" };

const ZERO = new Big(0);

/** Whole increments in `value` (rounded down). */
function unitsDown(value: Big, inc: Big): Big {
  return value.div(inc).round(0, Big.roundDown);
}

/** The minimum size in whole increments (at least one). */
export function minimumContracts(product: ContractProduct): Big {
  const inc = new Big(product.baseIncrement);
  if (inc.lte(ZERO)) return new Big(1);
  const min = new Big(product.baseMinSize);
  const units = min.div(inc).round(0, Big.roundUp);
  return units.lt(1) ? new Big(1) : units;
}

/**
 * The quantity an earlier (not the last) take-profit level closes.
 * `original`: the position's largest size (shares are taken of it); `share`: the sum of the
 * fractions of the levels hit; `free`: what remains less the closes already pending.
 */
export function takeProfitSize(input: {
  original: string | Big;
  share: string | Big;
  free: string | Big;
  product: ContractProduct;
}): TakeProfitSize {
  const inc = new Big(input.product.baseIncrement);
  const free = new Big(input.free);
  if (inc.lte(ZERO)) {
    // No increment (never for a traded product): no rounding, the whole share.
    const wanted = new Big(input.original).times(input.share);
    const min = new Big(input.product.baseMinSize);
    if (free.minus(wanted).lt(min) || wanted.lt(min)) return { kind: "skip", reason: "too-small" };
    return { kind: "close", quantity: wanted.toString(), contracts: 0 };
  }
  const minUnits = minimumContracts(input.product);
  const freeUnits = unitsDown(free, inc);
  const cap = freeUnits.minus(minUnits); // leave at least the minimum for the last level
  if (cap.lt(minUnits)) return { kind: "skip", reason: "too-small" };
  let units = new Big(input.original).times(input.share).div(inc).round(0, Big.roundHalfUp);
  if (units.lt(minUnits)) units = minUnits;
  if (units.gt(cap)) units = cap;
  return { kind: "close", quantity: units.times(inc).toString(), contracts: units.toNumber() };
}

/** What a close of everything can send: what remains, rounded DOWN to whole increments ("0": under the minimum). */
export function wholeContracts(quantity: string | Big, product: ContractProduct): string {
  const inc = new Big(product.baseIncrement);
  const value = new Big(quantity);
  if (value.lte(ZERO)) return "0";
  const floored = inc.lte(ZERO) ? value : unitsDown(value, inc).times(inc);
  return floored.lt(new Big(product.baseMinSize)) || floored.lte(ZERO) ? "0" : floored.toString();
}
