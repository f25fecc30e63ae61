// The protection a new position carries (advancedControls), copied from the trading config
// when it opens, per the apply-to-signals / apply-to-manual switches.
import type { BreakEvenOffset } from "../rules/breakeven.ts";
import type { TradingConfig } from "../schemas/trading-config.ts";

export type OrderSource = "signal" | "manual" | "rule";

/** Fractions, as in the trading config: 0.005 = 0.5 %. */
export interface AdvancedControls {
  /** `price`: a level set by hand on the position (decision 048) keeps the exact price typed; priceDeviation stays its distance. */
  takeProfits: { portfolio: number; priceDeviation: number; enabled: boolean; price?: string }[] | null;
  stopLossOffset: number | null;
  /** A stop moved by hand on the position (decision 048): the exact price typed (stopLossOffset stays its distance from the entry). */
  stopLossPrice?: string | null;
  breakEven: boolean;
  /** What the break-even stop adds beyond entry + fees (decision 046). Absent in positions opened before it: no offset. */
  breakEvenOffset?: BreakEvenOffset | null;
  trailingStop: { activation: number; execute: number } | null;
}

export function controlsFor(config: TradingConfig, source: OrderSource): AdvancedControls | null {
  if (source === "rule") return null;
  const toSignals = source === "signal";
  const tp = toSignals ? config.applyTakeProfitToSignals : config.applyTakeProfitToManual;
  const sl = toSignals ? config.applyStopLossToSignals : config.applyStopLossToManual;
  const be = toSignals ? config.applyBreakEvenToSignals : config.applyBreakEvenToManual;
  const ts = toSignals ? config.applyTrailingStopToSignals : config.applyTrailingStopToManual;
  return {
    takeProfits: tp ? config.takeProfits.map((l) => ({ ...l })) : null,
    stopLossOffset: sl ? config.stopLossOffset : null,
    breakEven: be && config.breakEvenEnabled,
    ...(be && config.breakEvenEnabled ? { breakEvenOffset: { ...config.breakEvenOffset } } : {}),
    trailingStop: ts && config.trailingStopEnabled ? { ...config.trailingStop } : null,
  };
}
