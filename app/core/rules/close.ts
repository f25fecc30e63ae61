// What a close order may take and what its fill does to the rule state. Pure: the
// close-position task (worker/tasks/close-position.ts) and bookOrder (worker/execution.ts)
// call these under the symbol lock.
import { D, floorToIncrement } from "../decimal.ts";
import type { AdvancedControls } from "../orders/controls.ts";
import { type BreakEvenCosts, breakEvenPrice } from "./breakeven.ts";
import { breakEvenApplies, stopPriceFor } from "./engine.ts";
import { type RuleState, fillRequest, findRequestByJob, parseRuleState } from "./state.ts";

/**
 * The quantity a close may send: min(requested, remaining − closes already pending), rounded
 * DOWN to the base increment; "0" when that is below the minimum size (nothing to send).
 * `requested` is a decimal or "all".
 */
export function closeQuantity(
  requested: string,
  remaining: string,
  pendingCloses: string,
  product: { baseIncrement: string; baseMinSize: string },
): string {
  const free = D(remaining).minus(pendingCloses);
  if (free.lte(0)) return "0";
  const wanted = requested === "all" || D(requested).gt(free) ? free : D(requested);
  const quantity = floorToIncrement(wanted, product.baseIncrement);
  return D(quantity).lt(product.baseMinSize) || D(quantity).lte(0) ? "0" : quantity;
}

/** How a close's reason names the exchange that holds a position. */
export const holderName = (exchange: string) =>
  exchange === "simulator" ? "the simulator" : exchange === "coinbase" ? "Coinbase" : exchange;

/** What a close can send, or why it sends nothing (the one rule for the web's Close and the worker's close task). */
export type CloseSize =
  | { ok: true; quantity: string }
  | { ok: false; kind: "closing" | "share" | "undersized"; reason: string };

/**
 * The product a close is sized with on the exchange that holds the position
 * (docs/decisions/039-positions-stay-on-their-exchange.md): on the simulator, a close of
 * everything takes any multiple of the simulator's own increment, so a remainder under one
 * Coinbase contract (opened before "Use Coinbase contract sizes" was on) still closes there.
 * Everything else is sized as that exchange trades it (`traded`).
 */
export function closingProduct<P extends { baseIncrement: string; baseMinSize: string }>(
  traded: P,
  native: { baseIncrement: string; baseMinSize: string } | null,
  holder: string,
  requested: string,
): { baseIncrement: string; baseMinSize: string } {
  return holder === "simulator" && requested === "all" && native ? native : traded;
}

/**
 * The product an order is sized with when it only REDUCES a position the simulator holds:
 * the simulator's own steps (any multiple of its increment), so an exit of a position opened
 * before "Use Coinbase contract sizes" was on is never floored to nothing (decision 039).
 * Entries, and anything on a live exchange, are sized as the active exchange trades them.
 */
export function reducingProduct<P extends { baseIncrement: string; baseMinSize: string }>(
  traded: P,
  native: P | null,
  open: { side: "long" | "short"; exchange: string } | null,
  side: "buy" | "sell",
): P {
  const reduces = open !== null && (open.side === "long") === (side === "sell");
  return reduces && open.exchange === "simulator" && native ? native : traded;
}

/**
 * The close `requested` ("all" or a quantity) of a position with `remaining` open and
 * `pending` already being closed, in `product`'s sizes, or the true reason nothing is sent:
 * another close already takes what remains; a take-profit share under one contract while
 * whole contracts remain (left for the last level); or what remains is under the smallest
 * order the exchange takes.
 */
export function sizeClose(input: {
  requested: string;
  remaining: string;
  pending: string;
  product: { baseIncrement: string; baseMinSize: string };
  symbol: string;
  base: string;
  exchangeLabel: string;
}): CloseSize {
  const { product } = input;
  const quantity = closeQuantity(input.requested, input.remaining, input.pending, product);
  if (quantity !== "0") return { ok: true, quantity };
  const free = D(input.remaining).minus(input.pending);
  if (free.lte(0)) return { ok: false, kind: "closing", reason: "what remains is already being closed" };
  const whole = floorToIncrement(free, product.baseIncrement);
  if (input.requested !== "all" && D(whole).gte(product.baseMinSize) && D(whole).gt(0)) {
    return {
      ok: false,
      kind: "share",
      reason: `${input.requested} ${input.symbol} is less than the minimum ${product.baseMinSize} (whole ${product.baseIncrement} contracts): left for the last level`,
    };
  }
  return {
    ok: false,
    kind: "undersized",
    reason: `${free.toString()} ${input.base} is less than the smallest order ${input.exchangeLabel} takes for ${input.symbol} (${product.baseMinSize} ${input.base}, in steps of ${product.baseIncrement}): no order can close it there; Adopt on its drift alarm (Positions) takes it off the book if the exchange does not hold it`,
  };
}

export interface RuleFillEffect {
  ruleState: RuleState;
  breakEvenTriggered: boolean;
  /** Break-even fired with this fill: the stop moved to the break-even price (entry + fees + offset). */
  breakEvenNow: boolean;
  stopPrice: string | null;
  /** The trigger name the fill belonged to ("tp1", "sl" ...), null for a close the rules did not request. */
  trigger: string | null;
}

/**
 * A close of the position filled (job `jobId`): the request it carried is settled — its
 * take-profit levels become filled, and after the first take-profit the stop moves to the
 * break-even price when break-even applies (breakEvenTriggered): entry + the fees of entry
 * and exit + the offset (breakeven.ts), from `costs` (the fees the position paid, the exit's
 * taker rate, the tick), kept in the rule state so the engine's stop stays where it armed.
 * Without `costs` the fees are estimated at the default taker rate.
 */
export function applyCloseFill(
  position: {
    side: "long" | "short";
    entryPrice: string;
    advancedControls: AdvancedControls | null;
    breakEvenTriggered: boolean;
    ruleState: unknown;
  },
  jobId: number | null,
  costs?: BreakEvenCosts | null,
): RuleFillEffect {
  let state = parseRuleState(position.ruleState);
  const found = jobId == null ? null : findRequestByJob(state, jobId);
  let breakEvenTriggered = position.breakEvenTriggered;
  let breakEvenNow = false;
  if (found) {
    state = fillRequest(state, found.name);
    if (found.request.trigger === "tp" && !breakEvenTriggered && breakEvenApplies(position.advancedControls)) {
      breakEvenTriggered = true;
      breakEvenNow = true;
      state = {
        ...state,
        breakEvenStop: breakEvenPrice(
          position.side,
          position.entryPrice,
          position.advancedControls?.breakEvenOffset ?? null,
          costs,
        ),
      };
    }
  }
  return {
    ruleState: state,
    breakEvenTriggered,
    breakEvenNow,
    stopPrice: stopPriceFor({ ...position, breakEvenTriggered, ruleState: state }),
    trigger: found?.name ?? null,
  };
}
