// The honest break-even stop (decision 046), computed by hand in the comments.
import { describe, expect, test } from "vitest";
import { D } from "../decimal.ts";
import { SIM_TAKER_FEE_RATE } from "#exchange/simulator/margin.ts";
import { breakEvenFeePercent, breakEvenPrice, describeBreakEven, takerFeeRate } from "./breakeven.ts";
import { applyCloseFill } from "./close.ts";
import { evaluate } from "./engine.ts";
import { emptyRuleState, recordRequest } from "./state.ts";

const ETH_TICK = "0.01";
const RATE = "0.0006";

/** Net of a close of `quantity` at `exit`: gross, less its share of the entry fee, less its own exit fee at RATE. */
function netOfClose(
  side: "long" | "short",
  entry: string,
  exit: string,
  quantity: string,
  entryFee: string,
  entryQuantity: string,
) {
  const gross = side === "long" ? D(exit).minus(entry).times(quantity) : D(entry).minus(exit).times(quantity);
  return gross.minus(D(entryFee).times(quantity).div(entryQuantity)).minus(D(exit).times(quantity).times(RATE));
}

describe("break-even price", () => {
  test("the issue's 0.8 ETH long: entry 3401.70 closes at ≥ 0 after fees, not at 3399.99 (−4.63)", () => {
    // Entry fee 0.8 × 3401.70 × 0.0006 = 1.632816 (2.04102 per ETH).
    // (3401.70 + 2.04102) / (1 − 0.0006) = 3403.74102 / 0.9994 = 3405.7845…, up to the tick: 3405.79.
    const costs = { entryFee: "1.632816", quantity: "0.8", exitFeeRate: RATE, tick: ETH_TICK };
    const bare = breakEvenPrice("long", "3401.70", null, costs);
    expect(bare).toBe("3405.79");
    // 0.8 × 5.79 ... : gross (3405.79 − 3401.70) × 0.8 = 3.272; − 1.632816 − 0.8 × 3405.79 × 0.0006 (1.6347792) = 0.0044048
    expect(netOfClose("long", "3401.70", bare, "0.8", "1.632816", "0.8").toString()).toBe("0.0044048");
    // The old stop (the entry itself) lost: (3401.70 − 3401.70) × 0.8 − 1.632816 − 1.632816 < 0
    expect(netOfClose("long", "3401.70", "3401.70", "0.8", "1.632816", "0.8").lt(0)).toBe(true);
    // With the default offset 0.05 % of the entry (1.70085): 3405.7845… + 1.70085 = 3407.4853…, up: 3407.49.
    const withOffset = breakEvenPrice("long", "3401.70", { unit: "percent", value: 0.0005 }, costs);
    expect(withOffset).toBe("3407.49");
    // A remainder after TP1 (0.64 of the 0.8) at the same stop also nets ≥ 0: the fee share is per unit.
    expect(netOfClose("long", "3401.70", withOffset, "0.64", "1.632816", "0.8").gte(0)).toBe(true);
  });

  test("short: the stop sits below the entry by the fees, rounded down to the tick", () => {
    // Entry 3000, 1 ETH short, entry fee 1.8: (3000 − 1.8) / 1.0006 = 2996.4021…, down: 2996.40.
    const costs = { entryFee: "1.8", quantity: "1", exitFeeRate: RATE, tick: ETH_TICK };
    const stop = breakEvenPrice("short", "3000", null, costs);
    expect(stop).toBe("2996.4");
    // gross (3000 − 2996.40) × 1 = 3.6; − 1.8 − 2996.40 × 0.0006 (1.79784) = 0.00216
    expect(netOfClose("short", "3000", stop, "1", "1.8", "1").toString()).toBe("0.00216");
    // 3 ticks of offset: 2996.4021… − 0.03 = 2996.3721…, down: 2996.37.
    expect(breakEvenPrice("short", "3000", { unit: "ticks", value: 3 }, costs)).toBe("2996.37");
    // 0.1 % of the entry (3): 2993.4021…, down: 2993.40.
    expect(breakEvenPrice("short", "3000", { unit: "percent", value: 0.001 }, costs)).toBe("2993.4");
  });

  test("offset in ticks and in percent, long", () => {
    const costs = { entryFee: "1.8", quantity: "1", exitFeeRate: RATE, tick: ETH_TICK };
    // (3000 + 1.8) / 0.9994 = 3003.6021…; + 5 ticks (0.05) = 3003.6521…, up: 3003.66.
    expect(breakEvenPrice("long", "3000", { unit: "ticks", value: 5 }, costs)).toBe("3003.66");
    // + 0.2 % of 3000 (6) = 3009.6021…, up: 3009.61.
    expect(breakEvenPrice("long", "3000", { unit: "percent", value: 0.002 }, costs)).toBe("3009.61");
    // No offset: 3003.61.
    expect(breakEvenPrice("long", "3000", { unit: "ticks", value: 0 }, costs)).toBe("3003.61");
  });

  test("the entry fee really paid counts (a maker entry pays less than the taker estimate)", () => {
    // Maker entry at 0.02 %: fee 0.6 on 1 ETH at 3000: (3000.6) / 0.9994 = 3002.4014…, up: 3002.41.
    expect(
      breakEvenPrice("long", "3000", null, { entryFee: "0.6", quantity: "1", exitFeeRate: RATE, tick: ETH_TICK }),
    ).toBe("3002.41");
    // Fee unknown: estimated at the exit rate (1.8): 3003.61.
    expect(breakEvenPrice("long", "3000", null, { exitFeeRate: RATE, tick: ETH_TICK })).toBe("3003.61");
  });

  test("the rate per exchange, and what the screen says it covers", () => {
    expect(takerFeeRate("simulator")).toBe(SIM_TAKER_FEE_RATE);
    expect(takerFeeRate("coinbase")).toBe("0.0006");
    expect(breakEvenFeePercent("simulator")).toBe("0.12");
    expect(describeBreakEven({ unit: "percent", value: 0.0005 }, "simulator")).toBe(
      "Break-even stop = entry + fees (0.12 %) + offset (0.05 %)",
    );
    expect(describeBreakEven({ unit: "ticks", value: 2 }, "coinbase")).toBe(
      "Break-even stop = entry + fees (0.12 %) + offset (2 ticks)",
    );
    expect(describeBreakEven(null, null)).toBe("Break-even stop = entry + fees (0.12 %) + offset (none)");
  });

  test("the engine acts at the stop kept when break-even armed (applyCloseFill with the costs)", () => {
    const controls = {
      takeProfits: [
        { portfolio: 0.2, priceDeviation: 0.005, enabled: true },
        { portfolio: 0.8, priceDeviation: 0.01, enabled: true },
      ],
      stopLossOffset: 0.005,
      breakEven: true,
      breakEvenOffset: { unit: "percent" as const, value: 0.0005 },
      trailingStop: null,
    };
    const position = {
      id: "p",
      symbol: "ETH-PERP",
      side: "long" as const,
      quantity: "0.8",
      remainingQuantity: "0.8",
      entryPrice: "3401.70",
      advancedControls: controls,
      breakEvenTriggered: false,
      trailingStopActive: false,
      trailingBestPrice: null,
      maxDrawdown: "0",
      ruleState: recordRequest(emptyRuleState(), { name: "tp1", trigger: "tp", levels: [0], quantity: "0.16" }, 1),
    };
    const effect = applyCloseFill(position, 1, {
      entryFee: "1.632816",
      quantity: "0.8",
      exitFeeRate: RATE,
      tick: ETH_TICK,
    });
    expect(effect).toMatchObject({ breakEvenNow: true, stopPrice: "3407.49" });
    const armed = { ...position, remainingQuantity: "0.64", breakEvenTriggered: true, ruleState: effect.ruleState };
    const product = { baseIncrement: "0.001", baseMinSize: "0.001" };
    expect(evaluate(armed, "3407.50", product).actions).toEqual([]);
    const hit = evaluate(armed, "3407.49", product);
    expect(hit.actions.map((a) => `${a.name} ${a.reason}`)).toEqual(["sl Break-even stop hit"]);
    expect(hit.state.stopPrice).toBe("3407.49");
  });
});
