// What a close order may take and what its fill does to the rule state. Pure: the
// close-position task (worker/tasks/close-position.ts) and bookOrder (worker/execution.ts)
// call these under the symbol lock.
import { D, floorToIncrement } from "../decimal.ts";
import type { AdvancedControls } from "../orders/controls.ts";
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

export interface RuleFillEffect {
  ruleState: RuleState;
  breakEvenTriggered: boolean;
  /** Break-even fired with this fill: the stop moved to the entry price. */
  breakEvenNow: boolean;
  stopPrice: string | null;
  /** The trigger name the fill belonged to ("tp1", "sl" ...), null for a close the rules did not request. */
  trigger: string | null;
}

/**
 * A close of the position filled (job `jobId`): the request it carried is settled — its
 * take-profit levels become filled, and after the first take-profit the stop moves to the
 * entry when break-even applies (breakEvenTriggered).
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
    }
  }
  return {
    ruleState: state,
    breakEvenTriggered,
    breakEvenNow,
    stopPrice: stopPriceFor({ ...position, breakEvenTriggered }),
    trigger: found?.name ?? null,
  };
}
