// "Apply Rules to Existing Positions": a position takes the controls the trading config
// gives its source now. What the price already did stays: levels taken stay taken (by
// index), break-even stays triggered when it still applies (and fires at once when it newly
// applies after a filled take-profit), the trailing state is dropped when the new controls
// have no trailing stop.
import type { AdvancedControls } from "../orders/controls.ts";
import { type BreakEvenCosts, breakEvenPrice } from "./breakeven.ts";
import { breakEvenApplies, stopPriceFor } from "./engine.ts";
import { type RuleState, parseRuleState } from "./state.ts";

export interface AppliedRules {
  advancedControls: AdvancedControls | null;
  breakEvenTriggered: boolean;
  trailingStopActive: boolean;
  trailingBestPrice: string | null;
  stopPrice: string | null;
  ruleState: RuleState;
}

export function applyControls(
  position: {
    side: "long" | "short";
    entryPrice: string;
    trailingStopActive: boolean;
    trailingBestPrice: string | null;
    ruleState: unknown;
  },
  controls: AdvancedControls | null,
  costs?: BreakEvenCosts | null,
): AppliedRules {
  let state = parseRuleState(position.ruleState);
  const breakEvenTriggered = breakEvenApplies(controls) && state.tpFilled.length > 0;
  // The break-even stop follows the new controls' offset (decision 046); none when it no longer applies.
  if (breakEvenTriggered)
    state = {
      ...state,
      breakEvenStop: breakEvenPrice(position.side, position.entryPrice, controls?.breakEvenOffset ?? null, costs),
    };
  else if (state.breakEvenStop !== undefined) {
    state = { ...state };
    delete state.breakEvenStop;
  }
  const keepTrailing = Boolean(controls?.trailingStop);
  return {
    advancedControls: controls,
    breakEvenTriggered,
    trailingStopActive: keepTrailing && position.trailingStopActive,
    trailingBestPrice: keepTrailing ? position.trailingBestPrice : null,
    stopPrice: stopPriceFor({
      side: position.side,
      entryPrice: position.entryPrice,
      advancedControls: controls,
      breakEvenTriggered,
      ruleState: state,
    }),
    ruleState: state,
  };
}
