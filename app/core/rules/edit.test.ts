// editControls (decision 048): the checks against the side, levels kept by index, nothing changed.
import { describe, expect, test } from "vitest";
import { editControls } from "./edit.ts";

const controls = {
  takeProfits: [
    { portfolio: 0.2, priceDeviation: 0.01, enabled: true },
    { portfolio: 0.3, priceDeviation: 0.02, enabled: true },
    { portfolio: 0.5, priceDeviation: 0.03, enabled: true },
  ],
  stopLossOffset: 0.01,
  breakEven: true,
  trailingStop: null,
};
const short = {
  side: "short" as const,
  entryPrice: "100",
  currentPrice: "99",
  advancedControls: controls,
  breakEvenTriggered: false,
  trailingStopActive: false,
  trailingBestPrice: null,
  stopPrice: "101",
  ruleState: { tpFilled: [0] },
};

describe("editing a short", () => {
  test("its stop lies above the entry and the price, its levels below both", () => {
    expect(editControls(short, { stopLoss: "99.5" })).toMatchObject({
      ok: false,
      field: "stopLoss",
      error: expect.stringContaining("A short's stop loss must be above its entry price (100)"),
    });
    expect(editControls({ ...short, currentPrice: "103" }, { stopLoss: "102" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("above the current price (103)"),
    });
    expect(editControls(short, { takeProfits: [{ price: "99.5", close: "50" }] })).toMatchObject({
      ok: false,
      field: "takeProfits.0.price",
      error: expect.stringContaining("Take-profit 1 of a short must be below the current price (99)"),
    });
    const moved = editControls({ ...short, ruleState: {} }, { stopLoss: "102.5" });
    expect(moved).toMatchObject({
      ok: true,
      changed: true,
      applied: { stopPrice: "102.5", advancedControls: { stopLossPrice: "102.5", stopLossOffset: 0.025 } },
    });
  });

  test("a filled level keeps its index; the others are replaced, a slot left over disabled", () => {
    const edited = editControls(short, { takeProfits: [{ price: "95", close: "80" }] });
    if (!edited.ok) throw new Error(edited.error);
    expect(edited.applied.advancedControls!.takeProfits).toEqual([
      controls.takeProfits[0],
      { portfolio: 0.8, priceDeviation: 0.05, enabled: true, price: "95" },
      { ...controls.takeProfits[2], enabled: false },
    ]);
  });

  test("the same values posted back change nothing; break-even needs a stop", () => {
    expect(
      editControls(short, {
        stopLoss: "101",
        takeProfits: [
          { price: "98", close: "30" },
          { price: "97", close: "50" },
        ],
        breakEven: true,
        trailing: false,
      }),
    ).toMatchObject({ ok: true, changed: false });
    expect(editControls(short, { stopLoss: "", breakEven: true })).toMatchObject({
      ok: false,
      error: "Break-even moves the stop loss: set a stop loss",
    });
    expect(editControls(short, { stopLoss: "", breakEven: false })).toMatchObject({
      ok: true,
      changed: true,
      applied: { stopPrice: null },
    });
  });
});
