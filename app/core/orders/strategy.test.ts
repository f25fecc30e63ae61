import { describe, expect, test } from "vitest";
import { controlsFor } from "./controls.ts";
import { capToMaxPosition, strategyConfig } from "./strategy.ts";
import { DEFAULT_TRADING_CONFIG } from "../schemas/trading-config.ts";

const product = { symbol: "ETH-PERP", baseIncrement: "0.001", baseMinSize: "0.001" };

describe("capToMaxPosition", () => {
  test("no max, or an order that fits, passes whole", () => {
    expect(capToMaxPosition({ current: "0", side: "buy", quantity: "5", max: null, product })).toEqual({
      quantity: "5",
      capped: false,
    });
    expect(capToMaxPosition({ current: "0.1", side: "buy", quantity: "0.05", max: "0.15", product })).toEqual({
      quantity: "0.05",
      capped: false,
    });
  });
  test("growing beyond the max is cut to what fits; at the max nothing fits", () => {
    expect(capToMaxPosition({ current: "0.1", side: "buy", quantity: "1", max: "0.15", product })).toEqual({
      quantity: "0.05",
      capped: true,
    });
    expect(capToMaxPosition({ current: "-0.1", side: "sell", quantity: "1", max: "0.15", product })).toEqual({
      quantity: "0.05",
      capped: true,
    });
    expect(capToMaxPosition({ current: "0.15", side: "buy", quantity: "1", max: "0.15", product })).toEqual({
      quantity: null,
      reason: "ETH-PERP position is at the strategy's max position size 0.15",
    });
  });
  test("a reduction always passes; a flip is cut to the max on the other side", () => {
    expect(capToMaxPosition({ current: "0.5", side: "sell", quantity: "0.3", max: "0.15", product })).toEqual({
      quantity: "0.3",
      capped: false,
    });
    expect(capToMaxPosition({ current: "0.1", side: "sell", quantity: "1", max: "0.15", product })).toEqual({
      quantity: "0.25",
      capped: true,
    });
  });
});

describe("strategyConfig", () => {
  test("sizing is the amount control, always on, with the strategy's type and value", () => {
    const config = strategyConfig(DEFAULT_TRADING_CONFIG, { amountType: "usd", amountValue: "300", rules: {} });
    expect(config).toMatchObject({
      applyAmountControlToSignals: true,
      signalAmountType: "usd",
      signalAmountValue: "300",
    });
    expect(controlsFor(config, "signal")).toEqual(controlsFor(DEFAULT_TRADING_CONFIG, "signal"));
  });
  test("an override applies even when Trading Rules do not apply that rule to signals; the rest stays", () => {
    const base = { ...DEFAULT_TRADING_CONFIG, applyStopLossToSignals: false, applyTrailingStopToSignals: false };
    const config = strategyConfig(base, {
      amountType: "multiplier",
      amountValue: "1",
      rules: { stopLossOffset: 0.02, breakEvenEnabled: false },
    });
    expect(controlsFor(config, "signal")).toEqual({
      takeProfits: DEFAULT_TRADING_CONFIG.takeProfits,
      stopLossOffset: 0.02,
      breakEven: false,
      trailingStop: null,
    });
  });
  test("a strategy's break-even offset overrides the Trading Rules one (decision 046)", () => {
    expect(controlsFor(DEFAULT_TRADING_CONFIG, "signal")?.breakEvenOffset).toEqual({ unit: "percent", value: 0.001 });
    const config = strategyConfig(DEFAULT_TRADING_CONFIG, {
      amountType: "multiplier",
      amountValue: "1",
      rules: { breakEvenOffset: { unit: "ticks", value: 4 } },
    });
    expect(controlsFor(config, "signal")).toMatchObject({
      breakEven: true,
      breakEvenOffset: { unit: "ticks", value: 4 },
    });
  });
});
