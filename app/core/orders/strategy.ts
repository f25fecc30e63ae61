// What a strategy changes in how a signal trades (docs/decisions/027-strategies.md), pure:
// - its sizing is the trading config's amount control, always on, with the strategy's type
//   and value (sizing.ts sizes it);
// - its rule overrides replace the Trading Rules fields they name, and an overridden rule
//   applies to the strategy's positions whatever the "apply to signals" switch says; what is
//   not overridden comes from Trading Rules as for any signal (controls.ts);
// - its max position size caps how far an order may grow (or flip) its position.
import { D, floorToIncrement } from "../decimal.ts";
import type { ProductSpec } from "../products.ts";
import type { StrategyRules } from "../schemas/strategy.ts";
import type { TradingConfig } from "../schemas/trading-config.ts";

export interface StrategyTrading {
  amountType: TradingConfig["signalAmountType"];
  amountValue: string;
  rules: StrategyRules;
}

/** The trading config as the strategy's signals see it (feed to sizeSignalOrder and controlsFor). */
export function strategyConfig(config: TradingConfig, strategy: StrategyTrading): TradingConfig {
  const r = strategy.rules;
  const out: TradingConfig = {
    ...config,
    applyAmountControlToSignals: true,
    signalAmountType: strategy.amountType,
    signalAmountValue: strategy.amountValue,
  };
  if (r.takeProfits !== undefined)
    Object.assign(out, { takeProfits: r.takeProfits.map((l) => ({ ...l })), applyTakeProfitToSignals: true });
  if (r.stopLossOffset !== undefined)
    Object.assign(out, { stopLossOffset: r.stopLossOffset, applyStopLossToSignals: true });
  if (r.breakEvenEnabled !== undefined)
    Object.assign(out, { breakEvenEnabled: r.breakEvenEnabled, applyBreakEvenToSignals: true });
  if (r.breakEvenOffset !== undefined) Object.assign(out, { breakEvenOffset: { ...r.breakEvenOffset } });
  if (r.trailingStopEnabled !== undefined || r.trailingStop !== undefined) {
    Object.assign(out, {
      trailingStopEnabled: r.trailingStopEnabled ?? config.trailingStopEnabled,
      trailingStop: { ...(r.trailingStop ?? config.trailingStop) },
      applyTrailingStopToSignals: true,
    });
  }
  return out;
}

/**
 * An order against the max position size: `current` is the signed size now (long +, the
 * strategy's orders in flight counted), the order grows or flips it. Returns the quantity
 * that keeps |position| ≤ max (floored to the increment), the whole order when it fits or
 * only reduces, or null with the reason when nothing of it fits.
 */
export function capToMaxPosition(input: {
  current: string;
  side: "buy" | "sell";
  quantity: string;
  max: string | null;
  product: Pick<ProductSpec, "symbol" | "baseIncrement" | "baseMinSize">;
}): { quantity: string; capped: boolean } | { quantity: null; reason: string } {
  if (!input.max) return { quantity: input.quantity, capped: false };
  const current = D(input.current);
  const delta = input.side === "buy" ? D(input.quantity) : D(input.quantity).neg();
  const after = current.plus(delta);
  if (
    after.abs().lte(input.max) ||
    (after.abs().lte(current.abs()) && (after.eq(0) || after.gt(0) === current.gt(0)))
  ) {
    return { quantity: input.quantity, capped: false };
  }
  // How far the order may move the position: to +max or -max in its direction.
  const limit = input.side === "buy" ? D(input.max).minus(current) : current.plus(input.max);
  const quantity = limit.gt(0) ? floorToIncrement(limit, input.product.baseIncrement) : "0";
  if (D(quantity).lt(input.product.baseMinSize) || D(quantity).eq(0)) {
    return {
      quantity: null,
      reason: `${input.product.symbol} position is at the strategy's max position size ${D(input.max).toString()}`,
    };
  }
  return { quantity, capped: true };
}
