import { describe, expect, test } from "vitest";
import { DEFAULT_TRADING_CONFIG } from "#app/core/schemas/trading-config.ts";
import {
  breakEvenText,
  stopLossText,
  positionStatusText,
  takeProfitProgress,
  takeProfitText,
  tradeTypeText,
  trailingText,
} from "./position-texts.ts";

const controls = {
  takeProfits: DEFAULT_TRADING_CONFIG.takeProfits,
  stopLossOffset: 0.005,
  breakEven: true,
  trailingStop: { activation: 0.012, execute: 0.006 },
};

describe("Futures Positions column texts (docs/spec/screens.md#states)", () => {
  test("TP: Manual / Disabled / Multi-TP (enabled/total)", () => {
    expect(takeProfitText(null)).toBe("Manual");
    expect(takeProfitText({ ...controls, takeProfits: null })).toBe("Manual");
    expect(
      takeProfitText({ ...controls, takeProfits: controls.takeProfits.map((l) => ({ ...l, enabled: false })) }),
    ).toBe("Disabled");
    expect(takeProfitText(controls)).toBe("Multi-TP (3/3)");
    expect(
      takeProfitText({ ...controls, takeProfits: controls.takeProfits.map((l, i) => ({ ...l, enabled: i !== 1 })) }),
    ).toBe("Multi-TP (2/3)");
    expect(takeProfitProgress(controls, { tpFilled: [0] })).toBe("1 of 3 hit");
    expect(takeProfitProgress(null, {})).toBeNull();
  });

  test("BE: Inactive without a stop-loss offset, Triggered, else Active", () => {
    expect(breakEvenText(null, false)).toBe("Inactive");
    expect(breakEvenText({ ...controls, stopLossOffset: null }, true)).toBe("Inactive");
    expect(breakEvenText({ ...controls, breakEven: false }, false)).toBe("Inactive");
    expect(breakEvenText(controls, true)).toBe("Triggered");
    expect(breakEvenText(controls, false)).toBe("Active");
  });

  test("SL: None, the distance on the loss side, or a stop set by hand past the entry (decision 048)", () => {
    expect(stopLossText(null)).toBe("None");
    expect(stopLossText({ ...controls, stopLossOffset: null })).toBe("None");
    expect(stopLossText({ ...controls, stopLossOffset: 0.005 })).toBe("0.5%");
    expect(stopLossText({ ...controls, stopLossOffset: -0.003, stopLossPrice: "3009" })).toBe("+0.3% locked");
    expect(stopLossText({ ...controls, stopLossOffset: 0, stopLossPrice: "3000" })).toBe("At entry");
    expect(breakEvenText({ ...controls, stopLossOffset: -0.003, stopLossPrice: "3009" }, false)).toBe("Active");
  });

  test("Trailing: Inactive without one, Tracking when armed, else Active", () => {
    expect(trailingText({ ...controls, trailingStop: null }, true)).toBe("Inactive");
    expect(trailingText(controls, true)).toBe("Tracking");
    expect(trailingText(controls, false)).toBe("Active");
  });

  test("Status: PARTIAL below the original quantity, else upper-cased", () => {
    expect(positionStatusText({ status: "open", quantity: "1", remainingQuantity: "0.8" })).toBe("PARTIAL");
    expect(positionStatusText({ status: "open", quantity: "1", remainingQuantity: "1.000" })).toBe("OPEN");
  });

  test("Entry / Exit follow the position's side", () => {
    expect(tradeTypeText("long", "buy")).toBe("Entry");
    expect(tradeTypeText("long", "sell")).toBe("Exit");
    expect(tradeTypeText("short", "sell")).toBe("Entry");
    expect(tradeTypeText("short", "buy")).toBe("Exit");
  });
});
