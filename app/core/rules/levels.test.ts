import { describe, expect, test } from "vitest";
import type { AdvancedControls } from "../orders/controls.ts";
import { type ChartPosition, chartLevels, chartMarkers } from "./levels.ts";

const controls: AdvancedControls = {
  takeProfits: [
    { portfolio: 0.5, priceDeviation: 0.01, enabled: true },
    { portfolio: 0.3, priceDeviation: 0.02, enabled: false },
    { portfolio: 0.5, priceDeviation: 0.03, enabled: true },
  ],
  stopLossOffset: 0.02,
  breakEven: true,
  trailingStop: { activation: 0.015, execute: 0.005 },
};
const long: ChartPosition = {
  side: "long",
  entryPrice: "3000",
  advancedControls: controls,
  breakEvenTriggered: false,
  trailingStopActive: false,
  trailingBestPrice: null,
  ruleState: null,
};

describe("chart levels: the prices the rules act on", () => {
  test("a long before any trigger: entry, enabled TPs above, SL below, BE at entry + fees (decision 046), trailing activation", () => {
    // BE: (3000 + 3000 × 0.0006) / (1 − 0.0006) = 3003.6021…, up to the 0.01 tick.
    expect(chartLevels(long, { exitFeeRate: "0.0006", tick: "0.01" }).map((l) => [l.kind, l.title, l.price])).toEqual([
      ["entry", "Entry", "3000"],
      ["tp", "TP1", "3030"],
      ["tp", "TP3", "3090"],
      ["sl", "SL", "2940"],
      ["breakeven", "BE", "3003.61"],
      ["trailing", "Trail on", "3045"],
    ]);
  });

  test("a short mirrors them; after TP1 with break-even the stop is the one kept when it armed; a tracking trail exits from the best price", () => {
    const short = {
      ...long,
      side: "short" as const,
      breakEvenTriggered: true,
      trailingStopActive: true,
      trailingBestPrice: "2900",
      ruleState: { tpFilled: [0], breakEvenStop: "2996.4" },
    };
    const levels = chartLevels(short);
    expect(levels.map((l) => [l.title, l.price])).toEqual([
      ["Entry", "3000"],
      ["TP1", "2970"],
      ["TP3", "2910"],
      ["BE stop", "2996.4"],
      ["Trail", "2914.5"],
    ]);
    expect(levels[1]!.note).toBe("filled");
    expect(levels[2]!.note).toBe("-3 %, closes 50 %");
  });

  test("each mark the trader can act on names its edit field (decision 048): not the entry, not a level taken", () => {
    const levels = chartLevels({ ...long, ruleState: { tpFilled: [0] } });
    expect(levels.map((l) => [l.title, l.edit ?? null])).toEqual([
      ["Entry", null],
      ["TP1", null],
      ["TP3", "tp3"],
      ["SL", "stopLoss"],
      ["BE", "breakEven"],
      ["Trail on", "trailing"],
    ]);
  });

  test("a stop set by hand past the entry: its price and what it locks in; after break-even it stays beside the BE stop when tighter", () => {
    const byHand = {
      ...controls,
      stopLossOffset: -0.005,
      stopLossPrice: "3015",
      trailingStop: null,
      takeProfits: null,
    };
    const before = chartLevels({ ...long, advancedControls: byHand });
    expect(before.find((l) => l.kind === "sl")).toMatchObject({
      price: "3015",
      note: "+0.5 % from the entry: locks in a profit",
      edit: "stopLoss",
    });
    const after = chartLevels({
      ...long,
      advancedControls: byHand,
      breakEvenTriggered: true,
      ruleState: { tpFilled: [0], breakEvenStop: "3003.61" },
    });
    expect(after.map((l) => [l.title, l.price])).toEqual([
      ["Entry", "3000"],
      ["BE stop", "3003.61"],
      ["SL", "3015"],
    ]);
    expect(after[1]!.note).toBe("break-even armed (entry + fees + offset); the stop set by hand is tighter");
    // A short's stop below its entry is in profit too; one above, a loss.
    const short = { ...long, side: "short" as const };
    expect(chartLevels({ ...short, advancedControls: { ...byHand, stopLossPrice: "2990" } })[1]!.note).toBe(
      "-0.33 % from the entry: locks in a profit",
    );
    expect(chartLevels({ ...short, advancedControls: { ...byHand, stopLossPrice: "3030" } })[1]!.note).toBe(
      "+1 % from the entry",
    );
  });

  test("no controls: the entry only; no break-even without a stop loss", () => {
    expect(chartLevels({ ...long, advancedControls: null }).map((l) => l.kind)).toEqual(["entry"]);
    expect(
      chartLevels({
        ...long,
        advancedControls: { ...controls, stopLossOffset: null, trailingStop: null, takeProfits: null },
      }).map((l) => l.kind),
    ).toEqual(["entry"]);
  });

  test("markers: executed fills only, entry in the position's direction, oldest first", () => {
    const fill = (side: "buy" | "sell", price: string, at: string, status = "executed", qty = "1") => ({
      side,
      status,
      executedPrice: price,
      executedQuantity: qty,
      executedAt: at,
      updatedAt: at,
    });
    const markers = chartMarkers("long", [
      fill("sell", "3030", "2026-11-26T10:05:00.000Z"),
      fill("buy", "3000", "2026-11-26T10:00:00.000Z"),
      fill("sell", "3100", "2026-11-26T10:07:00.000Z", "failed"),
      fill("sell", "3100", "2026-11-26T10:08:00.000Z", "executed", "0"),
    ]);
    expect(markers.map((m) => [m.kind, m.side, m.price])).toEqual([
      ["entry", "buy", "3000"],
      ["exit", "sell", "3030"],
    ]);
    expect(chartMarkers("short", [fill("sell", "3000", "2026-11-26T10:00:00.000Z")])[0]!.kind).toBe("entry");
  });
});
