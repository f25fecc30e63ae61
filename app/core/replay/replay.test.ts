// The what-if replay on a hand-computed fixture (docs/decisions/047-replay.md): one ETH alert,
// four 1-minute candles, a fee rate of 0.1 % so the figures are easy to check by hand.
import { describe, expect, test } from "vitest";
import type { AdvancedControls } from "../orders/controls.ts";
import { BUILTIN_PRODUCTS } from "../products.ts";
import { type ReplayAlert, type ReplayCandle, type ReplayMarket, replayRules, replaySummary } from "./replay.ts";

const T0 = Date.UTC(2026, 10, 1, 0, 0, 0); // 2026-11-01 00:00 UTC
const M = 60_000;
const ETH = BUILTIN_PRODUCTS.find((p) => p.symbol === "ETH-PERP")!; // increment 0.001, minimum 0.001
const period = { from: T0, to: T0 + 10 * M };

const candle = (minute: number, open: string, high: string, low: string, close: string): ReplayCandle => ({
  time: T0 + minute * M,
  open,
  high,
  low,
  close,
});
// m0: the entry minute (followed from the entry 100 to its close 100: nothing).
// m1: open 100, low 99.8, high 101.5: crosses TP1 101 on the way up.
// m2: open 101.2, low 99.9: crosses the entry 100 on the way down (a break-even stop there).
// m3: open 100.5, low 100.4, high 102.3, close 102: crosses TP2 102.
const CANDLES = [
  candle(0, "100", "100.5", "99.5", "100"),
  candle(1, "100", "101.5", "99.8", "101.2"),
  candle(2, "101.2", "101.4", "99.9", "100.5"),
  candle(3, "100.5", "102.3", "100.4", "102"),
];

const market = (candles: ReplayCandle[] = CANDLES, funding: Partial<ReplayMarket["funding"]> = {}): ReplayMarket => ({
  candles: new Map([["ETH-PERP", candles]]),
  products: new Map([["ETH-PERP", ETH]]),
  feeRate: "0.001",
  funding: { intervalMs: 3_600_000, defaultRate: "0", rates: new Map(), ...funding },
  balance: "10000",
});

const alert = (over: Partial<ReplayAlert> = {}): ReplayAlert => ({
  id: "a1",
  symbol: "ETH-PERP",
  action: "buy",
  orderType: "market",
  quantity: "1",
  price: "100",
  at: T0 + 30_000,
  target: null,
  sizing: {
    orderSizeMultiplier: "1",
    applyAmountControlToSignals: false,
    signalAmountType: "multiplier",
    signalAmountValue: "1",
  },
  leverage: 1,
  maxPositionSize: null,
  ...over,
});

const TPS = [
  { portfolio: 0.5, priceDeviation: 0.01, enabled: true }, // TP1 101, closes 0.5
  { portfolio: 0.5, priceDeviation: 0.02, enabled: true }, // TP2 102, the last level: closes what remains
];
const withBreakEven: AdvancedControls = { takeProfits: TPS, stopLossOffset: 0.01, breakEven: true, trailingStop: null }; // SL 99, then 100
const withoutBreakEven: AdvancedControls = { ...withBreakEven, breakEven: false };
const none: AdvancedControls = { takeProfits: null, stopLossOffset: null, breakEven: false, trailingStop: null };

describe("replay: hand-computed", () => {
  test("break-even on: TP1 at 101, then the stop moved to break-even (entry + fees, decision 046) closes the rest", () => {
    const { run, summary } = replaySummary([alert()], market(), withBreakEven, period);
    // Break-even stop of the long: (entry + entry fee per unit) / (1 − exit fee rate), rounded UP
    // to ETH's tick 0.01: (100 + 0.1 / 1) / 0.999 = 100.2002… → 100.21.
    expect(run.fills.map((f) => [f.kind, f.side, f.quantity, f.price, f.fee])).toEqual([
      ["entry", "buy", "1", "100", "0.1"], // fee 1 × 100 × 0.001
      ["tp1", "sell", "0.5", "101", "0.0505"], // m1 on the way from 99.8 to 101.5
      ["sl", "sell", "0.5", "100.21", "0.050105"], // m2 on the way from 101.2 to 99.9: the break-even stop
    ]);
    // Match 1: (101 − 100) × 0.5 = 0.5 gross − (0.05 entry share + 0.0505) = 0.3995.
    // Match 2: (100.21 − 100) × 0.5 = 0.105 gross − (0.05 + 0.050105) = 0.004895 (break-even kept it ≥ 0).
    // Total 0.404395; fees 0.1 + 0.0505 + 0.050105 = 0.200605.
    expect(run.matches.map((m) => m.netPnl)).toEqual(["0.3995", "0.004895"]);
    expect(summary.pnl).toBe("0.404395");
    expect(summary.fees).toBe("0.200605");
    expect(summary.trades).toBe(2);
    expect(summary.wins).toBe(2);
    expect(summary.winRate).toBe("100.00");
    expect(summary.positions).toBe(1);
    expect(summary.tpHitRates).toEqual(["100.00", "0.00"]); // TP1 filled, TP2 never
    expect(summary.maxDrawdown).toBe("0");
    expect(summary.equity.map((p) => p.equity)).toEqual(["0", "0.3995", "0.404395"]);
  });

  test("break-even off: the stop stays at 99, TP2 at 102 closes the rest in m3", () => {
    const { run, summary } = replaySummary([alert()], market(), withoutBreakEven, period);
    expect(run.fills.map((f) => [f.kind, f.quantity, f.price])).toEqual([
      ["entry", "1", "100"],
      ["tp1", "0.5", "101"],
      ["tp2", "0.5", "102"],
    ]);
    // Match 2: (102 − 100) × 0.5 = 1 gross − (0.05 + 0.051) = 0.899. Total 0.3995 + 0.899 = 1.2985.
    expect(summary.pnl).toBe("1.2985");
    expect(summary.winRate).toBe("100.00");
    expect(summary.tpHitRates).toEqual(["100.00", "100.00"]);
    expect(summary.maxDrawdown).toBe("0");
  });

  test("no rules: the position is closed at the period's end at the last close (102), fee included", () => {
    const { run, summary } = replaySummary([alert()], market(), none, period);
    expect(run.fills.map((f) => [f.kind, f.quantity, f.price, f.fee])).toEqual([
      ["entry", "1", "100", "0.1"],
      ["end", "1", "102", "0.102"],
    ]);
    // (102 − 100) × 1 = 2 − (0.1 + 0.102) = 1.798.
    expect(summary.pnl).toBe("1.798");
    expect(summary.tpHitRates).toEqual([]);
  });

  test("stop and take-profit in the same minute: the adverse extreme comes first, the stop fills at its level", () => {
    // m1 reaches both 98.5 (below the stop 99) and 101.5 (above TP1 101): open → low → high.
    const both = [candle(0, "100", "100", "100", "100"), candle(1, "100", "101.5", "98.5", "101")];
    const { run, summary } = replaySummary([alert()], market(both), withBreakEven, period);
    expect(run.fills.map((f) => [f.kind, f.quantity, f.price])).toEqual([
      ["entry", "1", "100"],
      ["sl", "1", "99"],
    ]);
    // (99 − 100) × 1 = −1 − (0.1 + 0.099) = −1.199; the equity falls from its peak 0 to −1.199.
    expect(summary.pnl).toBe("-1.199");
    expect(summary.maxDrawdown).toBe("-1.199");
    expect(summary.winRate).toBe("0.00");
    expect(summary.tpHitRates).toEqual(["0.00", "0.00"]);
    // A short sees the high first: the same candle stops a short at 101 (entry 100, SL +1 %).
    const short = replayRules([alert({ action: "sell" })], market(both), withBreakEven, period);
    expect(short.fills.map((f) => [f.kind, f.side, f.price])).toEqual([
      ["entry", "sell", "100"],
      ["sl", "buy", "101"],
    ]);
  });

  test("a gap through the stop fills at the candle's open, not at the level", () => {
    const gap = [candle(0, "100", "100", "100", "100"), candle(1, "98", "98.5", "97", "98")];
    const run = replayRules([alert()], market(gap), withBreakEven, period);
    expect(run.fills.map((f) => [f.kind, f.price])).toEqual([
      ["entry", "100"],
      ["sl", "98"],
    ]);
  });

  test("trailing stop: arms at its activation, tracks the best price, closes at the retrace level", () => {
    const trailing: AdvancedControls = {
      takeProfits: null,
      stopLossOffset: null,
      breakEven: false,
      trailingStop: { activation: 0.01, execute: 0.005 },
    };
    // m1 (long path 100 → 99.9 → 101.5 → 101.4): arms at 101 on the way up, best 101.5, exit 101.5 × 0.995 = 100.9925;
    //   the close 101.4 stays above it.
    // m2 (101.4 → 100.5 → 101.6 → 100.8): the low comes first, crossing 100.9925: closed there (101.6 comes too late).
    const candles = [
      candle(0, "100", "100", "100", "100"),
      candle(1, "100", "101.5", "99.9", "101.4"),
      candle(2, "101.4", "101.6", "100.5", "100.8"),
    ];
    const { run, summary } = replaySummary([alert()], market(candles), trailing, period);
    expect(run.fills.map((f) => [f.kind, f.quantity, f.price])).toEqual([
      ["entry", "1", "100"],
      ["trail", "1", "100.9925"],
    ]);
    // 0.9925 − (0.1 + 0.1009925) = 0.7915075.
    expect(summary.pnl).toBe("0.7915075");
  });

  test("an alert that sells closes the position; an alert without a price fills at its minute's open", () => {
    const exit = alert({ id: "a2", action: "sell", price: null, at: T0 + 2 * M + 5_000 });
    const run = replayRules([alert(), exit], market(), none, period);
    expect(run.fills.map((f) => [f.kind, f.side, f.quantity, f.price])).toEqual([
      ["entry", "buy", "1", "100"],
      ["exit", "sell", "1", "101.2"], // m2's open
    ]);
    // 1.2 − (0.1 + 0.1012) = 0.9988.
    expect(run.matches.map((m) => m.netPnl)).toEqual(["0.9988"]);
  });

  test("funding: a long open over a boundary pays notional at the open × the stored rate (else the configured one)", () => {
    const hour = 3_600_000;
    const candles = [
      candle(0, "100", "100", "100", "100"),
      candle(60, "100", "100", "100", "100"),
      candle(120, "110", "110", "110", "110"),
    ];
    const long = { ...period, to: T0 + 3 * hour };
    const stored = new Map([[`ETH-PERP|${T0 + hour}`, "0.0002"]]);
    const { run, summary } = replaySummary(
      [alert()],
      market(candles, { defaultRate: "0.0001", rates: stored }),
      none,
      long,
    );
    // 01:00: 1 × 100 × 0.0002 (stored) = 0.02 paid; 02:00: 1 × 110 × 0.0001 (configured) = 0.011 paid.
    expect(run.funding.map((f) => f.amount)).toEqual(["-0.02", "-0.011"]);
    expect(summary.funding).toBe("-0.031");
    // Closed at the end at 110: 10 − (0.1 + 0.11) = 9.79, less 0.031 funding = 9.759.
    expect(summary.pnl).toBe("9.759");
  });

  test("deterministic: the same input gives the same figures", () => {
    const alerts = [alert(), alert({ id: "a2", action: "sell", price: "101", at: T0 + 3 * M + 1 })];
    const first = replaySummary(alerts, market(), withBreakEven, period);
    const second = replaySummary(alerts, market(), withBreakEven, period);
    expect(second).toEqual(first);
  });

  test("sizing as the pipeline sizes: below the product's minimum is skipped with the sizing's reason", () => {
    const run = replayRules([alert({ quantity: "0.0004" })], market(), none, period);
    expect(run.fills).toEqual([]);
    expect(run.skipped[0]!.reason).toMatch(/below the minimum 0.001 for ETH-PERP/);
  });
});
