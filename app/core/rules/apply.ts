// "Apply Rules to Existing Positions": a position takes the controls the trading config
// gives its source now. What the price already did stays: levels taken stay taken (by
// index), break-even stays triggered when it still applies (and fires at once when it newly
// applies after a filled take-profit), the trailing state is dropped when the new controls
// have no trailing stop.
import type { AdvancedControls } from "../orders/controls.ts";
import { breakEvenApplies, stopPriceFor } from "./engine.ts";
import { parseRuleState } from "./state.ts";

export interface AppliedRules {
  advancedControls: AdvancedControls | null;
  breakEvenTriggered: boolean;
  trailingStopActive: boolean;
  trailingBestPrice: string | null;
  stopPrice: string | null;
}

export function applyControls(
  position: { side: "long" | "short"; entryPrice: string; trailingStopActive: boolean; trailingBestPrice: string | null; ruleState: unknown },
  controls: AdvancedControls | null,
): AppliedRules {
  const state = parseRuleState(position.ruleState);
  const breakEvenTriggered = breakEvenApplies(controls) && state.tpFilled.length > 0;
  const keepTrailing = Boolean(controls?.trailingStop);
  return {
    advancedControls: controls,
    breakEvenTriggered,
    trailingStopActive: keepTrailing && position.trailingStopActive,
    trailingBestPrice: keepTrailing ? position.trailingBestPrice : null,
    stopPrice: stopPriceFor({ side: position.side, entryPrice: position.entryPrice, advancedControls: controls, breakEvenTriggered }),
  };
}
