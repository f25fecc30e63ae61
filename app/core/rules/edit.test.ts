// editControls (decision 048): the checks against the side, levels kept by index, nothing changed.
import { describe, expect, test } from "vitest";
import { editControls, onTick } from "./edit.ts";

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
  test("its stop lies above the current price, on either side of the entry; its levels below the entry and the price", () => {
    // Past the entry (in profit) while still above the price: taken, its signed distance below 0.
    expect(editControls({ ...short, ruleState: {} }, { stopLoss: "99.5" })).toMatchObject({
      ok: true,
      changed: true,
      applied: { stopPrice: "99.5", advancedControls: { stopLossPrice: "99.5", stopLossOffset: -0.005 } },
    });
    expect(editControls({ ...short, ruleState: {} }, { stopLoss: "98.5" })).toMatchObject({
      ok: false,
      field: "stopLoss",
      error: "A short's stop loss must be above the current price (99), else it closes the position at once",
    });
    expect(editControls({ ...short, currentPrice: "103" }, { stopLoss: "102" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("above the current price (103)"),
    });
    // No price known: a stop past the entry cannot be checked, so it is refused.
    expect(editControls({ ...short, currentPrice: null, ruleState: {} }, { stopLoss: "99.5" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("No current price for this position yet"),
    });
    // TP1 has filled: the first level sent is TP2, and the message names it so, as the form does.
    expect(editControls(short, { takeProfits: [{ price: "99.5", close: "50" }] })).toMatchObject({
      ok: false,
      field: "takeProfits.0.price",
      error: expect.stringContaining("Take-profit 2 of a short must be below the current price (99)"),
    });
    expect(editControls({ ...short, ruleState: {} }, { takeProfits: [{ price: "99.5", close: "50" }] })).toMatchObject({
      error: expect.stringContaining("Take-profit 1 of a short must be below the current price (99)"),
    });
    const moved = editControls({ ...short, ruleState: {} }, { stopLoss: "102.5" });
    expect(moved).toMatchObject({
      ok: true,
      changed: true,
      applied: { stopPrice: "102.5", advancedControls: { stopLossPrice: "102.5", stopLossOffset: 0.025 } },
    });
  });

  test("break-even armed: a stop tighter than it is taken and stays in force, one that loosens it is refused", () => {
    const armed = {
      ...short,
      currentPrice: "97",
      breakEvenTriggered: true,
      stopPrice: "99.8",
      ruleState: { tpFilled: [0], breakEvenStop: "99.8" },
    };
    expect(editControls(armed, { stopLoss: "99.9" })).toMatchObject({
      ok: false,
      field: "stopLoss",
      error:
        "The stop is at break-even (99.8) since take-profit 1 filled: a stop above it would loosen it; turn break-even off to move it there",
    });
    const tighter = editControls(armed, { stopLoss: "98" });
    expect(tighter).toMatchObject({
      ok: true,
      changed: true,
      applied: { stopPrice: "98", breakEvenTriggered: true, ruleState: { breakEvenStop: "99.8" } },
    });
  });

  test("a price posted back as the form pre-fills it (on the tick) is no change", () => {
    const odd = {
      ...short,
      ruleState: {},
      advancedControls: { ...controls, stopLossOffset: 0.012345, takeProfits: null },
    }; // stop 101.2345
    expect(editControls(odd, { stopLoss: "101.23" }, { exitFeeRate: "0.0006", tick: "0.01" })).toMatchObject({
      ok: true,
      changed: false,
    });
    expect(onTick("101.2345", "0.01")).toBe("101.23");
    expect(onTick("2986.4925", "0.01")).toBe("2986.49");
    expect(onTick("2986.4925", null)).toBe("2986.4925");
    // Without the tick the rounded price is a move.
    expect(editControls(odd, { stopLoss: "101.23" })).toMatchObject({ ok: true, changed: true });
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
