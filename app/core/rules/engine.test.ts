// The rules engine over scripted price paths, long and short. Expectations are computed by
// hand (in the comments) and compared as exact decimal strings.
import { describe, expect, test } from "vitest";
import { D } from "../decimal.ts";
import type { AdvancedControls } from "../orders/controls.ts";
import { BUILTIN_PRODUCTS } from "../products.ts";
import { applyControls } from "./apply.ts";
import { applyCloseFill, closeQuantity } from "./close.ts";
import {
  type CloseAction,
  type RulePosition,
  type RuleProduct,
  evaluate,
  lastTakeProfitLevel,
  stopPriceFor,
} from "./engine.ts";
import {
  MAX_RULE_FAILURES,
  type RuleState,
  emptyRuleState,
  fillRequest,
  parseRuleState,
  recordRequest,
  recordSkipped,
  releaseRequest,
  ruleBackoffMs,
  ruleHeld,
} from "./state.ts";

const ETH = BUILTIN_PRODUCTS.find((p) => p.symbol === "ETH-PERP")!; // increment 0.001, min 0.001
const XRP = BUILTIN_PRODUCTS.find((p) => p.symbol === "XRP-PERP")!; // increment 1, min 1

const DEFAULT_CONTROLS: AdvancedControls = {
  takeProfits: [
    { portfolio: 0.2, priceDeviation: 0.005, enabled: true },
    { portfolio: 0.3, priceDeviation: 0.01, enabled: true },
    { portfolio: 0.5, priceDeviation: 0.015, enabled: true },
  ],
  stopLossOffset: 0.005,
  breakEven: true,
  trailingStop: { activation: 0.012, execute: 0.006 },
};

function position(overrides: Partial<RulePosition> = {}): RulePosition {
  return {
    id: "pos-1",
    symbol: "ETH-PERP",
    side: "long",
    quantity: "1",
    remainingQuantity: "1",
    entryPrice: "3000",
    advancedControls: DEFAULT_CONTROLS,
    breakEvenTriggered: false,
    trailingStopActive: false,
    trailingBestPrice: null,
    maxDrawdown: "0",
    ruleState: emptyRuleState(),
    ...overrides,
  };
}

interface Step {
  price: string;
  action?: string; // "tp1 0.2" | "sl all" ... what was requested
  closed?: string; // what the fill closed
}

/**
 * Drives a position over a price path the way the worker does: each tick is evaluated, every
 * action is requested (job ids 1, 2 ...) and, with `fill`, filled at once for
 * closeQuantity(...) — remaining shrinks, the rule state settles, break-even fires.
 */
function drive(start: RulePosition, prices: string[], product: RuleProduct = ETH, options: { fill?: boolean } = {}) {
  const pos: RulePosition = { ...start, ruleState: parseRuleState(start.ruleState) };
  const fill = options.fill ?? true;
  let jobId = 0;
  const steps: Step[] = [];
  const actions: CloseAction[] = [];
  for (const price of prices) {
    if (D(pos.remainingQuantity).lte(0)) break;
    const ev = evaluate(pos, price, product);
    pos.maxDrawdown = ev.state.maxDrawdown;
    pos.trailingStopActive = ev.state.trailingStopActive;
    pos.trailingBestPrice = ev.state.trailingBestPrice;
    if (ev.skippedLevels.length) pos.ruleState = recordSkipped(pos.ruleState as RuleState, ev.skippedLevels);
    const step: Step = { price };
    for (const action of ev.actions) {
      actions.push(action);
      const id = ++jobId;
      pos.ruleState = recordRequest(pos.ruleState as RuleState, action, id);
      step.action = `${action.name} ${action.quantity}`;
      if (fill) {
        const quantity = closeQuantity(action.quantity, pos.remainingQuantity, "0", product);
        step.closed = quantity;
        const effect = applyCloseFill(pos, id);
        pos.ruleState = effect.ruleState;
        pos.breakEvenTriggered = effect.breakEvenTriggered;
        pos.remainingQuantity = D(pos.remainingQuantity).minus(quantity).toString();
      }
    }
    steps.push(step);
  }
  return { pos, steps, actions };
}

const acted = (steps: Step[]) =>
  steps.filter((s) => s.action).map((s) => `${s.price}: ${s.action} → ${s.closed ?? "pending"}`);

describe("long: take profits, break-even, trailing", () => {
  // Entry 3000, quantity 1. TP1 3015 (0.5 %), TP2 3030 (1 %), TP3 3045 (1.5 %).
  // Stop 2985 (0.5 %). Trailing arms at 3036 (1.2 %), exits 0.6 % below the best.
  test("TP1, TP2, then the trailing stop arms, tracks and exits", () => {
    const { pos, steps, actions } = drive(position(), [
      "3010",
      "2995",
      "3015",
      "3020",
      "3030",
      "3036",
      "3040",
      "3025",
      "3021.76",
    ]);
    expect(acted(steps)).toEqual([
      "3015: tp1 0.2 → 0.2", // 20 % of the original 1
      "3030: tp2 0.3 → 0.3", // 30 % of the original 1
      "3021.76: trail all → 0.5", // best 3040 × (1 − 0.006) = 3021.76: the retrace closes what remains
    ]);
    expect(actions.map((a) => a.reason)).toEqual(["Take profit 1 hit", "Take profit 2 hit", "Trailing stop hit"]);
    expect(actions.map((a) => a.jobKey)).toEqual(["rule:pos-1:tp1", "rule:pos-1:tp2", "rule:pos-1:trail"]);
    expect(pos.remainingQuantity).toBe("0");
    expect(pos.breakEvenTriggered).toBe(true);
    expect(pos.trailingStopActive).toBe(true);
    expect(pos.trailingBestPrice).toBe("3040");
    expect(pos.maxDrawdown).toBe("0.1667"); // (3000 − 2995) / 3000 × 100 = 0.1666… rounded up (worst case)
    expect((pos.ruleState as RuleState).tpFilled).toEqual([0, 1]);
  });

  test("the trailing stop does not exit before the retrace reaches `execute`", () => {
    const { steps } = drive(position(), ["3036", "3040", "3021.77"]);
    expect(acted(steps)).toEqual(["3036: tp2 0.5 → 0.5"]); // gap from entry to 3036 takes TP1 + TP2 at once
  });

  test("every take-profit level in turn: the last closes what remains", () => {
    const { steps, actions, pos } = drive(position({ advancedControls: { ...DEFAULT_CONTROLS, trailingStop: null } }), [
      "3014.99",
      "3015",
      "3029.99",
      "3030",
      "3044.99",
      "3045",
    ]);
    expect(acted(steps)).toEqual(["3015: tp1 0.2 → 0.2", "3030: tp2 0.3 → 0.3", "3045: tp3 all → 0.5"]);
    expect(actions[2]!.closeQuantity).toBe("0.5");
    expect(pos.remainingQuantity).toBe("0");
  });

  test("stop loss at entry − offset closes everything", () => {
    const { steps, actions, pos } = drive(position(), ["2990", "2985.01", "2985"]);
    expect(acted(steps)).toEqual(["2985: sl all → 1"]);
    expect(actions[0]!.reason).toBe("Stop loss hit");
    expect(pos.maxDrawdown).toBe("0.5"); // 15 / 3000 × 100
  });

  test("break-even after TP1: the stop moves to entry + fees (decision 046), not the bare entry", () => {
    // No costs given (the drive's applyCloseFill): fees estimated at the 0.06 % taker rate:
    // (3000 + 3000 × 0.0006) / (1 − 0.0006) = 3001.8 / 0.9994 = 3003.6021…; no offset in these controls.
    const { steps, actions, pos } = drive(position(), ["3015", "3005", "3003.61", "3003.60"]);
    expect(acted(steps)).toEqual(["3015: tp1 0.2 → 0.2", "3003.60: sl all → 0.8"]);
    expect(actions[1]!.reason).toBe("Break-even stop hit");
    expect(pos.breakEvenTriggered).toBe(true);
    // Without break-even the stop stays at 2985: 3000 and 2990 close nothing.
    const off = drive(position({ advancedControls: { ...DEFAULT_CONTROLS, breakEven: false } }), [
      "3015",
      "2990",
      "3000",
    ]);
    expect(acted(off.steps)).toEqual(["3015: tp1 0.2 → 0.2"]);
    expect(off.pos.breakEvenTriggered).toBe(false);
  });

  test("a gap over several levels closes them all in one action", () => {
    const two = drive(position(), ["3032"]);
    expect(acted(two.steps)).toEqual(["3032: tp2 0.5 → 0.5"]); // 20 % + 30 % of 1
    expect(two.actions[0]).toMatchObject({
      levels: [0, 1],
      reason: "Take profits 1 and 2 hit",
      jobKey: "rule:pos-1:tp2",
    });
    const all = drive(position({ advancedControls: { ...DEFAULT_CONTROLS, trailingStop: null } }), ["3100"]);
    expect(acted(all.steps)).toEqual(["3100: tp3 all → 1"]);
    expect(all.actions[0]!.reason).toBe("Take profits 1, 2 and 3 hit");
    // After TP1 filled, a gap to TP3 takes TP2 and TP3 together: what remains (0.8).
    const rest = drive(position({ advancedControls: { ...DEFAULT_CONTROLS, trailingStop: null } }), ["3015", "3050"]);
    expect(acted(rest.steps)).toEqual(["3015: tp1 0.2 → 0.2", "3050: tp3 all → 0.8"]);
  });
});

describe("short: the mirror image", () => {
  // Entry 3000, quantity 1 short. TP1 2985, TP2 2970, TP3 2955. Stop 3015.
  // Trailing arms at 2964 (1.2 % below), exits 0.6 % above the best (lowest) price.
  const short = (overrides: Partial<RulePosition> = {}) => position({ side: "short", ...overrides });

  test("TP1, TP2 with the trailing stop arming, tracking and exiting", () => {
    const { steps, pos } = drive(short(), ["2990", "3010", "2985", "2964", "2960", "2977.75", "2977.76"]);
    expect(acted(steps)).toEqual([
      "2985: tp1 0.2 → 0.2",
      "2964: tp2 0.3 → 0.3", // 2964 ≤ 2970; the trailing stop arms on the same tick (best 2964)
      "2977.76: trail all → 0.5", // best 2960 × 1.006 = 2977.76
    ]);
    expect(pos.trailingBestPrice).toBe("2960");
    expect(pos.maxDrawdown).toBe("0.3334"); // (3010 − 3000) / 3000 × 100 = 0.3333… rounded up
    expect(pos.breakEvenTriggered).toBe(true);
  });

  test("stop loss at entry + offset, and at the entry after TP1", () => {
    expect(acted(drive(short(), ["3014.99", "3015"]).steps)).toEqual(["3015: sl all → 1"]);
    // (3000 − 1.8) / 1.0006 = 2996.4021…: a short's break-even stop sits below the entry.
    const be = drive(short(), ["2985", "2996.40", "2996.41"]);
    expect(acted(be.steps)).toEqual(["2985: tp1 0.2 → 0.2", "2996.41: sl all → 0.8"]);
    expect(be.actions[1]!.reason).toBe("Break-even stop hit");
  });

  test("each level, then a gap over the rest", () => {
    const controls = { ...DEFAULT_CONTROLS, trailingStop: null };
    expect(acted(drive(short({ advancedControls: controls }), ["2985", "2970", "2955"]).steps)).toEqual([
      "2985: tp1 0.2 → 0.2",
      "2970: tp2 0.3 → 0.3",
      "2955: tp3 all → 0.5",
    ]);
    expect(acted(drive(short({ advancedControls: controls }), ["2969"]).steps)).toEqual(["2969: tp2 0.5 → 0.5"]);
    expect(acted(drive(short({ advancedControls: controls }), ["2900"]).steps)).toEqual(["2900: tp3 all → 1"]);
  });

  test("a price moving against a short is its drawdown; one in its favour is not", () => {
    const ev = evaluate(short(), "3030", ETH);
    expect(ev.state.maxDrawdown).toBe("1"); // 30 / 3000 × 100
    expect(evaluate(short({ maxDrawdown: "1" }), "2950", ETH).state.maxDrawdown).toBe("1");
  });
});

describe("quantities", () => {
  test("rounded to the nearest increment (half up); the last level takes the rest", () => {
    // XRP (increment 1): 7 × 20 % = 1.4 → 1; 7 × 30 % = 2.1 → 2; the last closes 4.
    const xrp = position({
      symbol: "XRP-PERP",
      quantity: "7",
      remainingQuantity: "7",
      entryPrice: "2",
      advancedControls: { ...DEFAULT_CONTROLS, trailingStop: null },
    });
    expect(acted(drive(xrp, ["2.01", "2.02", "2.03"], XRP).steps)).toEqual([
      "2.01: tp1 1 → 1",
      "2.02: tp2 2 → 2",
      "2.03: tp3 all → 4",
    ]);
    // ETH (increment 0.001): 0.123 × 20 % = 0.0246 → 0.025; × 30 % = 0.0369 → 0.037; rest 0.061.
    const eth = position({
      quantity: "0.123",
      remainingQuantity: "0.123",
      advancedControls: { ...DEFAULT_CONTROLS, trailingStop: null },
    });
    expect(acted(drive(eth, ["3015", "3030", "3045"]).steps)).toEqual([
      "3015: tp1 0.025 → 0.025",
      "3030: tp2 0.037 → 0.037",
      "3045: tp3 all → 0.061",
    ]);
  });

  test("a share below one increment closes one while more than one remains", () => {
    // XRP 3: 0.6 → 1 (3 remain); 0.9 → 1 (2 remain, 1 left for the last); the last closes 1.
    const xrp = position({
      symbol: "XRP-PERP",
      quantity: "3",
      remainingQuantity: "3",
      entryPrice: "2",
      advancedControls: { ...DEFAULT_CONTROLS, trailingStop: null },
    });
    expect(acted(drive(xrp, ["2.01", "2.02", "2.03"], XRP).steps)).toEqual([
      "2.01: tp1 1 → 1",
      "2.02: tp2 1 → 1",
      "2.03: tp3 all → 1",
    ]);
  });

  test("a position of one increment: earlier levels are skipped and left for the last level", () => {
    // XRP 1: nothing can be split off; levels 1 and 2 are skipped; level 3 closes 1.
    const xrp = position({
      symbol: "XRP-PERP",
      quantity: "1",
      remainingQuantity: "1",
      entryPrice: "2",
      advancedControls: { ...DEFAULT_CONTROLS, trailingStop: null },
    });
    const run = drive(xrp, ["2.01", "2.01", "2.02", "2.03"], XRP);
    expect(acted(run.steps)).toEqual(["2.03: tp3 all → 1"]);
    expect((run.pos.ruleState as RuleState).tpSkipped).toEqual([0, 1]);
    // Skipped levels filled nothing: break-even has not fired before the last level.
    expect(drive(xrp, ["2.01", "2.02"], XRP).pos.breakEvenTriggered).toBe(false);
  });

  test("an earlier level always leaves the minimum size for the last level", () => {
    // Increment 0.01, minimum 0.05; 0.2 with levels 50 / 45 / 5 %: TP1 0.1 leaves 0.1;
    // TP2 0.09 would leave 0.01 (< 0.05): it is capped at 0.05; the last level closes 0.05.
    const product = { baseIncrement: "0.01", baseMinSize: "0.05" };
    const controls: AdvancedControls = {
      ...DEFAULT_CONTROLS,
      trailingStop: null,
      takeProfits: [
        { portfolio: 0.5, priceDeviation: 0.005, enabled: true },
        { portfolio: 0.45, priceDeviation: 0.01, enabled: true },
        { portfolio: 0.05, priceDeviation: 0.015, enabled: true },
      ],
    };
    const run = drive(
      position({ quantity: "0.2", remainingQuantity: "0.2", advancedControls: controls }),
      ["3015", "3030"],
      product,
    );
    expect(acted(run.steps)).toEqual(["3015: tp1 0.1 → 0.1", "3030: tp2 0.05 → 0.05"]);
    expect(acted(drive(run.pos, ["3045"], product).steps)).toEqual(["3045: tp3 all → 0.05"]);
  });

  test("closeQuantity never exceeds what remains less the pending closes", () => {
    expect(closeQuantity("0.2", "1", "0", ETH)).toBe("0.2");
    expect(closeQuantity("all", "1", "0.2", ETH)).toBe("0.8");
    expect(closeQuantity("0.5", "1", "0.7", ETH)).toBe("0.3");
    expect(closeQuantity("all", "1", "1", ETH)).toBe("0");
    expect(closeQuantity("0.0005", "1", "0", ETH)).toBe("0"); // below the minimum size
    expect(closeQuantity("0.12345", "1", "0", ETH)).toBe("0.123");
  });
});

describe("one trigger, one request", () => {
  test("a pending take-profit is not requested again; the stop closes what it leaves", () => {
    const run = drive(position(), ["3015", "3016", "3015", "2985", "2980"], ETH, { fill: false });
    expect(acted(run.steps)).toEqual(["3015: tp1 0.2 → pending", "2985: sl all → pending"]);
    expect(run.actions[1]!.closeQuantity).toBe("0.8"); // 1 − the pending 0.2
  });

  test("with TP1 pending, a gap to TP2 asks only for TP2", () => {
    const run = drive(position(), ["3015", "3031"], ETH, { fill: false });
    expect(run.actions.map((a) => [a.name, a.levels, a.quantity])).toEqual([
      ["tp1", [0], "0.2"],
      ["tp2", [1], "0.3"],
    ]);
  });

  test("a released request fires again under a new job key", () => {
    let state = recordRequest(emptyRuleState(), { name: "tp1", trigger: "tp", levels: [0], quantity: "0.2" }, 7);
    expect(evaluate(position({ ruleState: state }), "3016", ETH).actions).toEqual([]);
    state = releaseRequest(state, "tp1");
    const again = evaluate(position({ ruleState: state }), "3016", ETH).actions;
    expect(again.map((a) => a.jobKey)).toEqual(["rule:pos-1:tp1:2"]);
  });

  test("a kind of rule whose closes keep failing never stops firing: it backs off; cancellations do not count", () => {
    const T = 1_000_000;
    const sl = (state: RuleState, jobId: number) =>
      recordRequest(state, { name: "sl", trigger: "sl", levels: [], quantity: "all" }, jobId);
    let state = emptyRuleState();
    for (let i = 1; i <= 2; i++) state = releaseRequest(sl(state, i), "sl", { failed: true, now: T, remaining: "1" });
    state = releaseRequest(sl(state, 3), "sl", { now: T }); // cancelled: not counted
    expect(state.failures).toEqual({ sl: 2 });
    expect(evaluate(position({ ruleState: state }), "2980", ETH).actions.map((a) => a.jobKey)).toEqual([
      "rule:pos-1:sl:4",
    ]);
    state = releaseRequest(sl(state, 4), "sl", { failed: true, now: T, remaining: "1" });
    expect(state.failures).toEqual({ sl: MAX_RULE_FAILURES });
    // Still armed: the stop is requested again (the monitor waits out its hold first).
    expect(evaluate(position({ ruleState: state }), "2980", ETH).actions.map((a) => a.jobKey)).toEqual([
      "rule:pos-1:sl:5",
    ]);
    expect(state.holdUntil).toEqual({ sl: T + 60_000 });
    expect(ruleHeld(state, "sl", T + 59_999, "1")).toBe(true);
    expect(ruleHeld(state, "sl", T + 60_000, "1")).toBe(false);
    // Take profits are not held by the stop's failures.
    expect(evaluate(position({ ruleState: state }), "3016", ETH).actions.map((a) => a.name)).toEqual(["tp1"]);
    expect(ruleHeld(state, "tp1", T, "1")).toBe(false);
  });

  test("the back-off: 5 s, 15 s, 60 s, 2 min, then every 5 min", () => {
    expect([1, 2, 3, 4, 5, 6, 50].map(ruleBackoffMs)).toEqual([
      5_000, 15_000, 60_000, 120_000, 300_000, 300_000, 300_000,
    ]);
    let state = emptyRuleState();
    const holds: number[] = [];
    for (let i = 1; i <= 6; i++) {
      state = releaseRequest(
        recordRequest(state, { name: "trail", trigger: "trail", levels: [], quantity: "all" }, i),
        "trail",
        { failed: true, now: 0, remaining: "1" },
      );
      holds.push(state.holdUntil!.trail!);
    }
    expect(holds).toEqual([5_000, 15_000, 60_000, 120_000, 300_000, 300_000]);
    expect(state.failures).toEqual({ trail: 6 });
  });

  test("a fill of the kind, or a change of the position, starts the back-off again", () => {
    const fail = (state: RuleState, jobId: number, remaining: string, name = "sl") =>
      releaseRequest(
        recordRequest(
          state,
          { name, trigger: name === "sl" ? "sl" : "tp", levels: name === "sl" ? [] : [0], quantity: "all" },
          jobId,
        ),
        name,
        { failed: true, now: 0, remaining },
      );
    let state = fail(fail(fail(emptyRuleState(), 1, "1"), 2, "1"), 3, "1");
    expect(state.failures.sl).toBe(3);
    // The position changed (extended to 2): the old hold no longer applies, the count restarts.
    expect(ruleHeld(state, "sl", 1, "2")).toBe(false);
    expect(ruleHeld(state, "sl", 1, "1.000")).toBe(true); // the same quantity, however written
    state = fail(state, 4, "2");
    expect(state.failures.sl).toBe(1);
    expect(state.holdUntil?.sl).toBe(5_000);
    // A stop close that fills (position still open) clears the stop's failures and holds.
    state = fillRequest(recordRequest(state, { name: "sl", trigger: "sl", levels: [], quantity: "all" }, 5), "sl");
    expect(state.failures).toEqual({});
    expect(state.holdUntil).toBeUndefined();
    expect(state.failedAt).toBeUndefined();
    // A take-profit fill clears the take-profits' failures only.
    state = fail(fail(state, 6, "2", "tp1"), 7, "2");
    expect(state.failures).toEqual({ tp: 1, sl: 1 });
    state = fillRequest(recordRequest(state, { name: "tp1", trigger: "tp", levels: [0], quantity: "0.2" }, 8), "tp1");
    expect(state.failures).toEqual({ sl: 1 });
    expect(state.holdUntil).toEqual({ sl: 5_000 });
    expect(state.tpFilled).toEqual([0]);
  });

  test("rule states stored before the back-off (3 or more failures) fire again", () => {
    const old = { tpFilled: [], tpSkipped: [], requested: {}, attempts: { sl: 3, tp1: 4 }, failures: { sl: 3, tp: 5 } };
    expect(evaluate(position({ ruleState: old }), "2980", ETH).actions.map((a) => a.jobKey)).toEqual([
      "rule:pos-1:sl:4",
    ]);
    expect(evaluate(position({ ruleState: old }), "3016", ETH).actions.map((a) => a.jobKey)).toEqual([
      "rule:pos-1:tp1:5",
    ]);
    const state = parseRuleState(old);
    expect(ruleHeld(state, "sl", Date.now(), "1")).toBe(false);
    // Its next failure backs off (at the long end: 2 min), it is not a new alarm's count.
    const next = releaseRequest(
      recordRequest(state, { name: "sl", trigger: "sl", levels: [], quantity: "all" }, 9),
      "sl",
      { failed: true, now: 0, remaining: "1" },
    );
    expect(next.failures.sl).toBe(4);
    expect(next.holdUntil?.sl).toBe(120_000);
    expect(parseRuleState(JSON.parse(JSON.stringify(next)))).toEqual(next); // the new fields survive storage
  });

  test("applyCloseFill settles only the request its job carried", () => {
    const state = recordRequest(emptyRuleState(), { name: "tp1", trigger: "tp", levels: [0], quantity: "0.2" }, 7);
    const manual = applyCloseFill({ ...position(), ruleState: state }, 99);
    expect(manual).toMatchObject({ trigger: null, breakEvenTriggered: false, stopPrice: "2985" });
    const tp = applyCloseFill({ ...position(), ruleState: state }, 7);
    expect(tp).toMatchObject({
      trigger: "tp1",
      breakEvenTriggered: true,
      breakEvenNow: true,
      stopPrice: "3003.602161296778066840104062437462477486",
    });
    expect(tp.ruleState).toEqual({
      tpFilled: [0],
      tpSkipped: [],
      requested: {},
      attempts: {},
      failures: {},
      breakEvenStop: "3003.602161296778066840104062437462477486",
    });
  });
});

describe("a stop set by hand past the entry (decision 048)", () => {
  // Long entered at 3000, stop typed at 3010 (in profit: stopLossOffset −1/300); short at 3000, stop 2990.
  const inProfit = (side: "long" | "short", stop: string, controls: Partial<AdvancedControls> = {}) =>
    position({
      side,
      advancedControls: {
        ...DEFAULT_CONTROLS,
        stopLossOffset: side === "long" ? (3000 - Number(stop)) / 3000 : (Number(stop) - 3000) / 3000,
        stopLossPrice: stop,
        ...controls,
      },
    });

  test("a long's stop at 3010 fires at 3010, a short's at 2990 fires at 2990: Stop loss hit", () => {
    const long = drive(inProfit("long", "3010", { takeProfits: null }), ["3012", "3010.01", "3010"]);
    expect(acted(long.steps)).toEqual(["3010: sl all → 1"]);
    expect(long.actions[0]!.reason).toBe("Stop loss hit");
    const short = drive(inProfit("short", "2990", { takeProfits: null }), ["2985", "2989.99", "2990"]);
    expect(acted(short.steps)).toEqual(["2990: sl all → 1"]);
    expect(stopPriceFor(inProfit("short", "2990"))).toBe("2990");
  });

  test("break-even never loosens it: after TP1 the stop stays at the tighter stop set by hand", () => {
    // Long: TP1 at 3015 fills; break-even would be 3003.60…, the stop typed at 3010 is tighter and
    // stays: 3005 (above break-even, below the stop) closes.
    const { steps, actions, pos } = drive(inProfit("long", "3010"), ["3015", "3012", "3005"]);
    expect(acted(steps)).toEqual(["3015: tp1 0.2 → 0.2", "3005: sl all → 0.8"]);
    expect(pos.breakEvenTriggered).toBe(true);
    expect(actions[1]!.reason).toBe("Stop loss hit");
    expect(stopPriceFor(pos)).toBe("3010");
    // A stop typed looser than break-even (at the entry): the break-even stop is in force.
    const loose = drive(inProfit("long", "3000"), ["3015", "3003.6"]);
    expect(acted(loose.steps)).toEqual(["3015: tp1 0.2 → 0.2", "3003.6: sl all → 0.8"]);
    expect(loose.actions[1]!.reason).toBe("Break-even stop hit");
    // Short: break-even 2996.40…, the stop typed at 2990 is tighter: 2995 closes.
    const short = drive(inProfit("short", "2990"), ["2985", "2988", "2995"]);
    expect(acted(short.steps)).toEqual(["2985: tp1 0.2 → 0.2", "2995: sl all → 0.8"]);
  });

  test("the trailing stop never loosens it: the stop fires before a trail further away", () => {
    // Trailing arms at 3036 (1.2 %), best 3040: its exit 3040 × 0.994 = 3021.76; the stop typed at 3030 is tighter.
    const controls = { takeProfits: null, trailingStop: { activation: 0.012, execute: 0.006 } };
    const { steps, actions } = drive(inProfit("long", "3030", controls), ["3040", "3025"]);
    expect(acted(steps)).toEqual(["3025: sl all → 1"]);
    expect(actions[0]!.reason).toBe("Stop loss hit");
  });
});

describe("controls and state", () => {
  test("no controls, or no enabled level: nothing to do but track", () => {
    expect(evaluate(position({ advancedControls: null }), "9999", ETH).actions).toEqual([]);
    const disabled = {
      ...DEFAULT_CONTROLS,
      stopLossOffset: null,
      trailingStop: null,
      takeProfits: DEFAULT_CONTROLS.takeProfits!.map((l) => ({ ...l, enabled: false })),
    };
    expect(evaluate(position({ advancedControls: disabled }), "9999", ETH).actions).toEqual([]);
    expect(evaluate(position({ advancedControls: disabled }), "1", ETH).actions).toEqual([]);
  });

  test("stop prices, long and short, before and after break-even", () => {
    expect(stopPriceFor(position())).toBe("2985");
    expect(stopPriceFor(position({ side: "short" }))).toBe("3015");
    expect(stopPriceFor(position({ breakEvenTriggered: true }))).toBe("3003.602161296778066840104062437462477486"); // entry + estimated fees, never the bare entry
    expect(
      stopPriceFor(
        position({ breakEvenTriggered: true, ruleState: { ...emptyRuleState(), breakEvenStop: "3007.49" } }),
      ),
    ).toBe("3007.49"); // the one kept when it armed
    expect(stopPriceFor(position({ advancedControls: { ...DEFAULT_CONTROLS, stopLossOffset: null } }))).toBeNull();
  });

  test("the last level is the enabled one with the highest deviation", () => {
    expect(lastTakeProfitLevel(DEFAULT_CONTROLS.takeProfits)).toBe(2);
    expect(
      lastTakeProfitLevel([
        { portfolio: 0.5, priceDeviation: 0.02, enabled: true },
        { portfolio: 0.5, priceDeviation: 0.01, enabled: true },
        { portfolio: 0, priceDeviation: 0.05, enabled: false },
      ]),
    ).toBe(0);
    expect(lastTakeProfitLevel(null)).toBe(-1);
  });

  test("portfolioPercent: remaining × price / equity × 100, 2 decimals; changes are reported", () => {
    const ev = evaluate(position({ remainingQuantity: "0.5" }), "3000", ETH, {
      equity: "10000",
      portfolioPercent: "0",
    });
    expect(ev.state.portfolioPercent).toBe("15"); // 1500 / 10000 × 100
    expect(ev.stateChanged).toBe(true);
    const same = evaluate(position({ remainingQuantity: "0.5" }), "3000.01", ETH, {
      equity: "10000",
      portfolioPercent: "15",
    });
    expect(same.state.portfolioPercent).toBe("15"); // 15.00015 → 15.00
    expect(same.stateChanged).toBe(false);
    expect(evaluate(position(), "3000", ETH).state.portfolioPercent).toBeNull();
  });

  test("a trailing stop is dropped when the controls no longer have one", () => {
    const ev = evaluate(
      position({
        advancedControls: { ...DEFAULT_CONTROLS, trailingStop: null },
        trailingStopActive: true,
        trailingBestPrice: "3050",
      }),
      "3040",
      ETH,
    );
    expect(ev.state).toMatchObject({ trailingStopActive: false, trailingBestPrice: null });
  });

  test("applyControls keeps what the price did, and break-even fires when it newly applies", () => {
    const filled = recordRequest(emptyRuleState(), { name: "tp1", trigger: "tp", levels: [0], quantity: "0.2" }, 1);
    const state = applyCloseFill(
      { ...position({ advancedControls: { ...DEFAULT_CONTROLS, breakEven: false } }), ruleState: filled },
      1,
    ).ruleState;
    const base = {
      side: "long" as const,
      entryPrice: "3000",
      trailingStopActive: true,
      trailingBestPrice: "3040",
      ruleState: state,
    };
    expect(applyControls(base, DEFAULT_CONTROLS, { exitFeeRate: "0.0006", tick: "0.01" })).toMatchObject({
      breakEvenTriggered: true,
      stopPrice: "3003.61",
      trailingStopActive: true,
      trailingBestPrice: "3040",
    });
    expect(applyControls(base, { ...DEFAULT_CONTROLS, trailingStop: null, breakEven: false })).toMatchObject({
      breakEvenTriggered: false,
      stopPrice: "2985",
      trailingStopActive: false,
      trailingBestPrice: null,
    });
    expect(applyControls(base, null)).toMatchObject({
      advancedControls: null,
      breakEvenTriggered: false,
      stopPrice: null,
      trailingStopActive: false,
    });
  });

  test("deterministic: the same input gives the same output", () => {
    const a = evaluate(position(), "3032", ETH, { equity: "5000" });
    const b = evaluate(position(), "3032", ETH, { equity: "5000" });
    expect(a).toEqual(b);
  });
});
