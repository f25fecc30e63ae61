// The texts of the Futures Positions columns (docs/spec/screens.md#states), pure so they are unit-tested.
import type { AdvancedControls } from "#app/core/orders/controls.ts";
import { D } from "#app/core/decimal.ts";
import { formatFractionPercent } from "#app/core/format.ts";
import { breakEvenApplies, hasStopLoss } from "#app/core/rules/engine.ts";

type Controls = AdvancedControls | null | undefined;

/** TP column: 'Manual' without take-profit config, 'Disabled' when none is enabled, else 'Multi-TP (enabled/total)'. */
export function takeProfitText(controls: Controls): string {
  const levels = controls?.takeProfits;
  if (!levels || levels.length === 0) return "Manual";
  const enabled = levels.filter((l) => l.enabled).length;
  return enabled === 0 ? "Disabled" : `Multi-TP (${enabled}/${levels.length})`;
}

/**
 * BE column: 'Inactive' without a stop loss (or with break-even off: there is nothing
 * that will move), 'Triggered' once the stop moved to the entry, else 'Active'.
 */
export function breakEvenText(controls: Controls, triggered: boolean): "Inactive" | "Triggered" | "Active" {
  if (!breakEvenApplies(controls)) return "Inactive";
  return triggered ? "Triggered" : "Active";
}

/**
 * SL column: 'None', the distance on the loss side ('0.5%'), or for a stop set by hand past the
 * entry (decision 048: stopLossOffset 0 or below) 'At entry' / '+0.3% locked'.
 */
export function stopLossText(controls: Controls): string {
  if (!hasStopLoss(controls)) return "None";
  const offset = controls!.stopLossOffset ?? 0;
  if (offset > 0) return formatFractionPercent(offset);
  if (offset === 0) return "At entry";
  return `+${formatFractionPercent(-offset)} locked`;
}

/** Trailing column: 'Inactive' when none is configured, 'Tracking' once armed, else 'Active'. */
export function trailingText(controls: Controls, active: boolean): "Inactive" | "Tracking" | "Active" {
  if (!controls?.trailingStop) return "Inactive";
  return active ? "Tracking" : "Active";
}

/** Status: PARTIAL when remainingQuantity is below quantity, otherwise the status upper-cased. */
export function positionStatusText(p: { status: string; quantity: string; remainingQuantity: string }): string {
  return D(p.remainingQuantity).lt(p.quantity) ? "PARTIAL" : p.status.toUpperCase();
}

/**
 * A trade's type in the detail row. docs/spec/screens.md says Entry for buy and Exit for sell, which is
 * right for longs; for a short the sell opens and the buy closes, so the type follows the
 * position's side: the order in the position's direction is the Entry, the other the Exit.
 */
export function tradeTypeText(positionSide: "long" | "short", tradeSide: "buy" | "sell"): "Entry" | "Exit" {
  return (positionSide === "long") === (tradeSide === "buy") ? "Entry" : "Exit";
}

/** Levels filled out of the enabled ones, for the TP cell's caption ("1 of 3 hit"). */
export function takeProfitProgress(controls: Controls, ruleState: unknown): string | null {
  const levels = controls?.takeProfits;
  if (!levels?.some((l) => l.enabled)) return null;
  const filled = (ruleState as { tpFilled?: unknown } | null)?.tpFilled;
  const count = Array.isArray(filled) ? filled.length : 0;
  return `${count} of ${levels.filter((l) => l.enabled).length} hit`;
}
