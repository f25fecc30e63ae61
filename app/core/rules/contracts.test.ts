// Whole contracts for take-profit levels (docs/decisions/025-contracts-and-rounding.md):
// nearest contract half up, at least one while more than one remains, one left for the last
// level; the engine driven over TP1..TP3 with Coinbase's BTC contract (0.01 BTC).
import { describe, expect, test } from "vitest";
import { D } from "../decimal.ts";
import type { AdvancedControls } from "../orders/controls.ts";
import { applyCloseFill, closeQuantity } from "./close.ts";
import { minimumContracts, takeProfitSize, wholeContracts } from "./contracts.ts";
import { type RulePosition, evaluate } from "./engine.ts";
import { type RuleState, emptyRuleState, recordRequest, recordSkipped } from "./state.ts";
import { CONTRACT_TEST_TAKE_PROFITS } from "#tests/setup/fixtures.ts";

const BIP = { baseIncrement: "0.01", baseMinSize: "0.01" }; // one BIP-20DEC30-CDE contract
const size = (original: string, share: string, free = original, product = BIP) =>
  takeProfitSize({ original, share, free, product });

describe("takeProfitSize", () => {
  test("nearest whole contract, half up", () => {
    expect(size("0.05", "0.3")).toEqual({ kind: "close", quantity: "0.02", contracts: 2 }); // 1.5 → 2
    expect(size("0.07", "0.3")).toEqual({ kind: "close", quantity: "0.02", contracts: 2 }); // 2.1 → 2
    expect(size("0.1", "0.25")).toEqual({ kind: "close", quantity: "0.03", contracts: 3 }); // 2.5 → 3
    expect(size("0.1", "0.24")).toEqual({ kind: "close", quantity: "0.02", contracts: 2 }); // 2.4 → 2
  });

  test("at least one contract while more than one remains", () => {
    expect(size("0.02", "0.3")).toEqual({ kind: "close", quantity: "0.01", contracts: 1 }); // 0.6 → 1
    expect(size("0.1", "0.04")).toEqual({ kind: "close", quantity: "0.01", contracts: 1 }); // 0.4 → 0 → 1
  });

  test("one contract is always left for the last level", () => {
    expect(size("0.02", "0.3", "0.01")).toEqual({ kind: "skip", reason: "too-small" }); // TP2 of 2: one remains
    expect(size("0.05", "0.9", "0.05")).toEqual({ kind: "close", quantity: "0.04", contracts: 4 }); // 4.5 → 5, capped at 4
    expect(size("0.05", "0.3", "0.03")).toEqual({ kind: "close", quantity: "0.02", contracts: 2 });
  });

  test("a one-contract position is not split", () => {
    expect(size("0.01", "0.3")).toEqual({ kind: "skip", reason: "too-small" });
    expect(size("0.01", "0.6")).toEqual({ kind: "skip", reason: "too-small" });
    // Less than two contracts, with dust: still one close only (the last level's).
    expect(size("0.015", "0.5")).toEqual({ kind: "skip", reason: "too-small" });
  });

  test("a minimum of several increments", () => {
    const product = { baseIncrement: "0.01", baseMinSize: "0.05" };
    expect(minimumContracts(product).toString()).toBe("5");
    expect(size("0.2", "0.1", "0.2", product)).toEqual({ kind: "close", quantity: "0.05", contracts: 5 }); // 2 → 5
    expect(size("0.2", "0.1", "0.09", product)).toEqual({ kind: "skip", reason: "too-small" });
  });

  test("wholeContracts floors and refuses under the minimum", () => {
    expect(wholeContracts("0.029", BIP)).toBe("0.02");
    expect(wholeContracts("0.004", BIP)).toBe("0");
    expect(wholeContracts("0", BIP)).toBe("0");
    expect(closeQuantity("0.004", "0.02", "0", BIP)).toBe("0");
  });
});

const CONTROLS: AdvancedControls = {
  takeProfits: CONTRACT_TEST_TAKE_PROFITS,
  stopLossOffset: 0.02,
  breakEven: true,
  trailingStop: null,
};

/** TP1..TP3 at 101 000 / 102 000 / 103 000 for a long from 100 000; each close fills at once. */
function run(contracts: number, prices = ["101000", "102000", "103000"]) {
  const quantity = D(contracts).times("0.01").toString();
  const pos: RulePosition = {
    id: "p",
    symbol: "BTC-PERP",
    side: "long",
    quantity,
    remainingQuantity: quantity,
    entryPrice: "100000",
    advancedControls: CONTROLS,
    breakEvenTriggered: false,
    trailingStopActive: false,
    trailingBestPrice: null,
    maxDrawdown: "0",
    ruleState: emptyRuleState(),
  };
  const sent: string[] = [];
  let job = 0;
  for (const price of prices) {
    const ev = evaluate(pos, price, BIP);
    if (ev.skippedLevels.length) {
      pos.ruleState = recordSkipped(pos.ruleState as RuleState, ev.skippedLevels);
      sent.push(`${ev.skippedLevels.map((i) => `tp${i + 1}`).join("+")} skipped`);
    }
    for (const action of ev.actions) {
      pos.ruleState = recordRequest(pos.ruleState as RuleState, action, ++job);
      const q = closeQuantity(action.quantity, pos.remainingQuantity, "0", BIP);
      sent.push(`${action.name} ${D(q).div("0.01").toString()}`);
      const effect = applyCloseFill(pos, job);
      pos.ruleState = effect.ruleState;
      pos.breakEvenTriggered = effect.breakEvenTriggered;
      pos.remainingQuantity = D(pos.remainingQuantity).minus(q).toString();
    }
  }
  return { sent, remaining: pos.remainingQuantity };
}

describe("TP 30 / 30 / 40 % in whole BIP contracts", () => {
  test("2 contracts: 1, skipped, 1", () => {
    expect(run(2)).toEqual({ sent: ["tp1 1", "tp2 skipped", "tp3 1"], remaining: "0" });
  });
  test("5 contracts: 2, 2, 1", () => {
    expect(run(5)).toEqual({ sent: ["tp1 2", "tp2 2", "tp3 1"], remaining: "0" });
  });
  test("1 contract: TP1 and TP2 skipped, TP3 closes it", () => {
    expect(run(1)).toEqual({ sent: ["tp1 skipped", "tp2 skipped", "tp3 1"], remaining: "0" });
  });
  test("10 contracts: 3, 3, 4", () => {
    expect(run(10)).toEqual({ sent: ["tp1 3", "tp2 3", "tp3 4"], remaining: "0" });
  });
  test("a gap over TP1 and TP2 at once on 5 contracts: 60 % = 3, then the rest", () => {
    expect(run(5, ["102000", "103000"])).toEqual({ sent: ["tp2 3", "tp3 2"], remaining: "0" });
  });
});
