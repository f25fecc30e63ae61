// The ledger must give exactly what matchFifo + periodStats give, whether the fills come in
// one batch or a few at a time, for every window position.
import { describe, expect, test } from "vitest";
import { D } from "../decimal.ts";
import { type ExecutedFill, closedTradesPnl, matchFifo } from "./fifo.ts";
import { StatsLedger } from "./ledger.ts";
import { periodStats } from "./performance-stats.ts";

const DAY = 24 * 60 * 60 * 1000;

/** A deterministic random walk of fills over 60 days: longs, shorts, flips, partial closes, rebates. */
function randomFills(n: number, seed: number, start = Date.UTC(2026, 8, 1)): ExecutedFill[] {
  let state = seed >>> 0;
  const rand = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const symbols = ["BTC-PERP", "ETH-PERP", "SOL-PERP"];
  const fills: ExecutedFill[] = [];
  let t = start;
  for (let i = 0; i < n; i++) {
    t += Math.floor(rand() * ((60 * DAY) / n) * 2);
    const symbol = symbols[Math.floor(rand() * symbols.length)]!;
    const price = (1000 + Math.floor(rand() * 200000) / 100).toFixed(2);
    fills.push({
      id: `f${String(i).padStart(5, "0")}`,
      symbol,
      side: rand() < 0.5 ? "buy" : "sell",
      quantity: (Math.floor(rand() * 1000) / 100 + 0.01).toFixed(2),
      price,
      fee: rand() < 0.05 ? "-0.01" : (Math.floor(rand() * 500) / 1000).toFixed(3),
      executedAt: rand() < 0.1 && fills.length > 0 ? fills[fills.length - 1]!.executedAt : t,
      leverage: rand() < 0.3 ? 1 + Math.floor(rand() * 10) : null,
    });
  }
  return fills;
}

describe("StatsLedger", () => {
  test("one batch or many small ones: the same P&L and statistics as matchFifo + periodStats at every moment", () => {
    const fills = randomFills(1200, 42); // several blocks of 256 matches
    const whole = new StatsLedger();
    whole.append(fills);
    const pieces = new StatsLedger();
    for (let i = 0; i < fills.length; i += 7) pieces.append(fills.slice(i, i + 7));

    expect(whole.closedTradesPnl()).toEqual(closedTradesPnl(fills));
    expect(pieces.closedTradesPnl()).toEqual(closedTradesPnl(fills));
    const { matches } = matchFifo(fills);
    expect(matches.length).toBeGreaterThan(512);
    const last = fills[fills.length - 1]!.executedAt;
    // Windows that hold everything, part, or nothing.
    for (const now of [last, last + 3 * DAY, last + 20 * DAY, last + 40 * DAY, last + 100 * DAY]) {
      const expected = periodStats(matches, now);
      expect(whole.periodStats(now)).toEqual(expected);
      expect(pieces.periodStats(now)).toEqual(expected);
      const since = now - DAY;
      const net = matches.filter((m) => m.exitTime >= since).reduce((acc, m) => acc.plus(m.netPnl), D(0));
      expect(whole.netPnlSince(since)).toBe(net.toString());
    }
  });

  test("statistics after each append match a fresh computation (the memo is dropped)", () => {
    const fills = randomFills(120, 7);
    const ledger = new StatsLedger();
    for (let i = 0; i < fills.length; i += 30) {
      ledger.append(fills.slice(i, i + 30));
      const seen = fills.slice(0, i + 30);
      const now = seen[seen.length - 1]!.executedAt;
      expect(ledger.periodStats(now)).toEqual(periodStats(matchFifo(seen).matches, now));
      expect(ledger.fills).toBe(seen.length);
    }
  });

  test("empty: zero statistics, profitFactor null", () => {
    const ledger = new StatsLedger();
    expect(ledger.closedTradesPnl()).toEqual({ totalPnL: "0", realizedMatches: 0, closingTrades: 0 });
    expect(ledger.periodStats(Date.now())).toEqual(periodStats([], Date.now()));
    expect(ledger.netPnlSince(0)).toBe("0");
  });

  test("fills of other symbols may come late (each symbol in order): the same as matchFifo over all of them", () => {
    const fills = randomFills(1000, 99);
    // Deliver ETH late: every other symbol first, then ETH's fills, in 5 batches interleaved.
    const eth = fills.filter((f) => f.symbol === "ETH-PERP");
    const rest = fills.filter((f) => f.symbol !== "ETH-PERP");
    const ledger = new StatsLedger();
    ledger.append(rest.slice(0, 150));
    ledger.append(eth.slice(0, 40));
    ledger.append(rest.slice(150));
    ledger.append(eth.slice(40));
    const last = fills[fills.length - 1]!.executedAt;
    const { matches } = matchFifo(fills);
    expect(ledger.closedTradesPnl()).toEqual(closedTradesPnl(fills));
    for (const now of [last, last + 5 * DAY, last + 30 * DAY])
      expect(ledger.periodStats(now)).toEqual(periodStats(matches, now));
    expect(ledger.netPnlSince(last - 10 * DAY)).toBe(
      matches
        .filter((m) => m.exitTime >= last - 10 * DAY)
        .reduce((acc, m) => acc.plus(m.netPnl), D(0))
        .toString(),
    );
  });

  test("refuses a fill already applied or before the last fill of its symbol, and changes nothing", () => {
    const ledger = new StatsLedger();
    const fills = randomFills(30, 3).filter((f) => f.symbol === "BTC-PERP");
    expect(fills.length).toBeGreaterThan(3);
    ledger.append(fills.slice(1, 3));
    const before = ledger.closedTradesPnl();
    expect(ledger.canAppend([fills[0]!])).toBe(false); // earlier than BTC's last
    expect(ledger.canAppend([fills[2]!])).toBe(false); // already applied
    expect(ledger.canAppend([fills[3]!])).toBe(true);
    expect(() => ledger.append([fills[3]!, fills[0]!])).toThrow(/not after/);
    expect(ledger.closedTradesPnl()).toEqual(before);
    expect(ledger.fills).toBe(2);
  });
});
