// The Manual Trading screen's protection list follows the apply-to-manual switches.
import { expect, test } from "vitest";
import { DEFAULT_TRADING_CONFIG } from "#app/core/schemas/trading-config.ts";
import { manualProtectionLines } from "./manual-protection.ts";

test("defaults: three take-profit levels, 0.5% stop, breakeven, trailing 1.2% / 0.6%", () => {
  expect(manualProtectionLines(DEFAULT_TRADING_CONFIG)).toEqual([
    { label: "Take profit", on: true, value: "20% at +0.5%, 30% at +1.0%, 50% at +1.5%" },
    { label: "Stop loss", on: true, value: "0.5% from the entry price" },
    { label: "Breakeven", on: true, value: "Stop moves to the entry after the first take profit" },
    { label: "Trailing stop", on: true, value: "Arms at +1.2%, closes on a 0.6% retrace" },
  ]);
});

test("switched off for manual positions (or globally): Off", () => {
  const lines = manualProtectionLines({
    ...DEFAULT_TRADING_CONFIG,
    applyTakeProfitToManual: false,
    applyStopLossToManual: false,
    breakEvenEnabled: false,
    applyTrailingStopToManual: false,
  });
  expect(lines.map((l) => [l.label, l.value, l.on])).toEqual([
    ["Take profit", "Off", false],
    ["Stop loss", "Off", false],
    ["Breakeven", "Off", false],
    ["Trailing stop", "Off", false],
  ]);
  const none = manualProtectionLines({
    ...DEFAULT_TRADING_CONFIG,
    takeProfits: DEFAULT_TRADING_CONFIG.takeProfits.map((l) => ({ ...l, enabled: false })),
  });
  expect(none[0]).toEqual({ label: "Take profit", on: false, value: "No level enabled" });
});
