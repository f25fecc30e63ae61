// The honest break-even stop (issue 25, docs/decisions/046-honest-break-even-and-alert-accounting.md):
// once the first take-profit has filled, the stop moves to the price at which closing what
// remains loses nothing after fees: its share of the fees paid on the entry, plus the exit's
// own fee at the taker rate the app uses for the exchange holding the position, plus the
// offset the user sets (ticks of the product's price increment, or a percent of the entry).
// Pure: decimals in, a decimal string out. The worker (bookOrder, worker/execution.ts), the
// positions service (apply rules), the chart's levels and any replay call this one function.
import { Big } from "../decimal.ts";

/** How the user's break-even offset is expressed: whole price ticks, or a fraction of the entry (0.0005 = 0.05 %). */
export type BreakEvenOffsetUnit = "ticks" | "percent";

export interface BreakEvenOffset {
  unit: BreakEvenOffsetUnit;
  /** Ticks (a whole number), or a fraction of the entry price for "percent". */
  value: number;
}

/**
 * The taker fee rate the app uses for each exchange (a fraction): the simulator's taker fee
 * (exchange/simulator/margin.ts SIM_TAKER_FEE_RATE, the same "0.0006"), and the same
 * rate for Coinbase, the estimate the positions and trade details already use for fees not
 * paid yet. An unknown exchange takes the default.
 */
export const DEFAULT_TAKER_FEE_RATE = "0.0006";
const TAKER_FEE_RATES: Record<string, string> = { simulator: DEFAULT_TAKER_FEE_RATE, coinbase: DEFAULT_TAKER_FEE_RATE };
export const takerFeeRate = (exchange: string | null | undefined): string =>
  TAKER_FEE_RATES[exchange ?? ""] ?? DEFAULT_TAKER_FEE_RATE;

/** What the break-even stop covers besides the entry price. */
export interface BreakEvenCosts {
  /** Fees paid on the entry (quote currency). Absent: estimated at `exitFeeRate` (the entry was a taker too). */
  entryFee?: string | null;
  /** The quantity the entry fee was paid on (the position's size at its largest). */
  quantity?: string | null;
  /** The exit's fee rate (a fraction): takerFeeRate(position's exchange). */
  exitFeeRate: string;
  /** The product's price increment; the stop is rounded to it, away from the loss. Absent: not rounded (and a ticks offset counts 0). */
  tick?: string | null;
}

const ONE = new Big(1);
const ZERO = new Big(0);

function roundAway(value: Big, tick: string | null | undefined, up: boolean): Big {
  if (!tick) return value;
  const t = new Big(tick);
  if (t.lte(ZERO)) return value;
  return value
    .div(t)
    .round(0, up ? Big.roundUp : Big.roundDown)
    .times(t);
}

/**
 * The break-even stop of a long or short entered at `entryPrice`:
 * - long:  ((entry + entryFee/quantity) / (1 − exitFeeRate)) + offset, rounded UP to the tick;
 * - short: ((entry − entryFee/quantity) / (1 + exitFeeRate)) − offset, rounded DOWN to the tick.
 * A close of any quantity at that price nets ≥ 0 after its share of the entry fee and its own
 * exit fee (before the offset, which is the margin the user asks for: slippage, a profit).
 * `costs` absent: the entry fee and the exit fee are estimated at DEFAULT_TAKER_FEE_RATE.
 */
export function breakEvenPrice(
  side: "long" | "short",
  entryPrice: string,
  offset: BreakEvenOffset | null | undefined,
  costs?: BreakEvenCosts | null,
): string {
  const entry = new Big(entryPrice);
  const rate = new Big(costs?.exitFeeRate ?? DEFAULT_TAKER_FEE_RATE);
  const quantity = costs?.quantity ? new Big(costs.quantity) : ZERO;
  const perUnitFee =
    costs?.entryFee != null && quantity.gt(ZERO) ? new Big(costs.entryFee).abs().div(quantity) : entry.times(rate);
  const long = side === "long";
  const evenPrice = long ? entry.plus(perUnitFee).div(ONE.minus(rate)) : entry.minus(perUnitFee).div(ONE.plus(rate));
  const tick = costs?.tick ?? null;
  let extra = ZERO;
  if (offset && offset.value > 0) {
    extra =
      offset.unit === "ticks"
        ? tick
          ? new Big(tick).times(Math.floor(offset.value))
          : ZERO
        : entry.times(offset.value);
  }
  const stop = long ? evenPrice.plus(extra) : evenPrice.minus(extra);
  const rounded = roundAway(stop, tick, long);
  return (rounded.lt(ZERO) ? ZERO : rounded).toString();
}

/** The fee part of break-even in percent of the entry, as the screen states it ("0.12 %"): entry and exit at the taker rate. */
export function breakEvenFeePercent(exchange: string | null | undefined): string {
  return new Big(takerFeeRate(exchange)).times(2).times(100).toString();
}

/** How the screen names the offset: "2 ticks", "0.05 %", "no offset". */
export function describeBreakEvenOffset(offset: BreakEvenOffset | null | undefined): string {
  if (!offset || !(offset.value > 0)) return "no offset";
  if (offset.unit === "ticks") return `${Math.floor(offset.value)} tick${Math.floor(offset.value) === 1 ? "" : "s"}`;
  return `${new Big(offset.value).times(100).toString()} %`;
}

/** The sentence the Trading Rules screen and the position's chart show: what the break-even stop covers. */
export function describeBreakEven(
  offset: BreakEvenOffset | null | undefined,
  exchange: string | null | undefined,
): string {
  const what = describeBreakEvenOffset(offset);
  return `Break-even stop = entry + fees (${breakEvenFeePercent(exchange)} %) + offset${what === "no offset" ? " (none)" : ` (${what})`}`;
}
