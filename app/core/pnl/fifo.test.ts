// FIFO matching against hand-computed fixtures: the arithmetic is in the comments.
import { describe, expect, test } from "vitest";
import { type ExecutedFill, closedTradesPnl, matchFifo } from "./fifo.ts";

let seq = 0;
const fill = (
  side: "buy" | "sell",
  quantity: string,
  price: string,
  fee: string,
  executedAt: number,
  extra: Partial<ExecutedFill> = {},
): ExecutedFill => ({
  id: extra.id ?? `t${++seq}`,
  symbol: "BTC-PERP",
  side,
  quantity,
  price,
  fee,
  executedAt,
  ...extra,
});

describe("matchFifo", () => {
  test("a long opened and closed whole: gross, both fees, net", () => {
    const result = matchFifo([
      fill("buy", "2", "100", "0.2", 1_000, { id: "b1", leverage: 3 }),
      fill("sell", "2", "110", "0.22", 61_000, { id: "s1" }),
    ]);
    // gross (110 − 100) × 2 = 20; fees 0.2 + 0.22 = 0.42; net 20 − 0.42 = 19.58
    expect(result.matches).toEqual([
      {
        symbol: "BTC-PERP",
        side: "long",
        quantity: "2",
        entryPrice: "100",
        exitPrice: "110",
        entryTime: 1_000,
        exitTime: 61_000,
        grossPnl: "20",
        fees: "0.42",
        netPnl: "19.58",
        entryTradeId: "b1",
        exitTradeId: "s1",
        leverage: 3,
      },
    ]);
    expect(result.realizedMatches).toBe(1);
    expect(result.totalPnL).toBe("19.58");
    expect(result.openLots).toEqual([]);
  });

  test("a sell with nothing open opens a short; a buy closes it", () => {
    const result = matchFifo([
      fill("sell", "1.5", "200", "0.3", 0, { id: "s1" }),
      fill("buy", "1.5", "180", "0.27", 10, { id: "b1" }),
    ]);
    // short: gross (200 − 180) × 1.5 = 30; fees 0.3 + 0.27 = 0.57; net 29.43
    expect(result.matches).toHaveLength(1);
    expect(result.matches[0]).toMatchObject({
      side: "short",
      quantity: "1.5",
      entryPrice: "200",
      exitPrice: "180",
      grossPnl: "30",
      fees: "0.57",
      netPnl: "29.43",
      entryTradeId: "s1",
      exitTradeId: "b1",
      leverage: 1,
    });
    expect(result.totalPnL).toBe("29.43");
  });

  test("partial closes across several lots, fees pro rata on both sides", () => {
    const result = matchFifo([
      fill("buy", "1", "100", "0.1", 1, { id: "L1" }),
      fill("buy", "3", "120", "0.36", 2, { id: "L2" }),
      fill("sell", "2", "130", "0.26", 3, { id: "S1" }),
      fill("sell", "2", "90", "0.18", 4, { id: "S2" }),
    ]);
    // S1 (2 @ 130, fee 0.26) closes all of L1 and 1 of L2's 3:
    //   m1 L1: gross (130 − 100) × 1 = 30; entry fee all of L1's 0.1; exit 0.26 × 1/2 = 0.13
    //          fees 0.23, net 29.77
    //   m2 L2: gross (130 − 120) × 1 = 10; entry 0.36 × 1/3 = 0.12; exit the rest 0.26 − 0.13 = 0.13
    //          fees 0.25, net 9.75
    // S2 (2 @ 90, fee 0.18) closes L2's remaining 2:
    //   m3 L2: gross (90 − 120) × 2 = −60; entry what L2 has left 0.36 − 0.12 = 0.24; exit 0.18
    //          fees 0.42, net −60.42
    // total 29.77 + 9.75 − 60.42 = −20.9
    expect(
      result.matches.map((m) => [m.entryTradeId, m.exitTradeId, m.quantity, m.grossPnl, m.fees, m.netPnl]),
    ).toEqual([
      ["L1", "S1", "1", "30", "0.23", "29.77"],
      ["L2", "S1", "1", "10", "0.25", "9.75"],
      ["L2", "S2", "2", "-60", "0.42", "-60.42"],
    ]);
    expect(result.realizedMatches).toBe(3);
    expect(result.totalPnL).toBe("-20.9");
    expect(result.openLots).toEqual([]);
  });

  test("a flip closes the long, opens a short with the rest of the fee, and flips back", () => {
    const result = matchFifo([
      fill("buy", "1", "100", "0.1", 0, { id: "B1", leverage: 2 }),
      fill("sell", "3", "110", "0.33", 1_000, { id: "S1", leverage: 4 }),
      fill("buy", "0.5", "100", "0.05", 2_000, { id: "B2" }),
      fill("buy", "2.5", "105", "0.25", 3_000, { id: "B3", leverage: 5 }),
    ]);
    // S1 (3 @ 110, fee 0.33): closes B1's 1 → m1 gross 10; fees 0.1 + 0.33 × 1/3 = 0.1 + 0.11 = 0.21; net 9.79
    //   then opens a short of 2 @ 110 carrying 0.33 − 0.11 = 0.22 of fee (leverage 4)
    // B2 (0.5 @ 100, fee 0.05): m2 short gross (110 − 100) × 0.5 = 5; fees 0.22 × 0.5/2 = 0.055 + 0.05 = 0.105
    //   net 4.895; the short keeps 1.5 and 0.22 − 0.055 = 0.165 of fee
    // B3 (2.5 @ 105, fee 0.25): m3 short gross (110 − 105) × 1.5 = 7.5; fees 0.165 + 0.25 × 1.5/2.5 = 0.165 + 0.15
    //   = 0.315; net 7.185; then opens a long of 1 @ 105 carrying 0.25 − 0.15 = 0.1 (leverage 5)
    // total 9.79 + 4.895 + 7.185 = 21.87
    expect(
      result.matches.map((m) => [
        m.side,
        m.entryTradeId,
        m.exitTradeId,
        m.quantity,
        m.grossPnl,
        m.fees,
        m.netPnl,
        m.leverage,
      ]),
    ).toEqual([
      ["long", "B1", "S1", "1", "10", "0.21", "9.79", 2],
      ["short", "S1", "B2", "0.5", "5", "0.105", "4.895", 4],
      ["short", "S1", "B3", "1.5", "7.5", "0.315", "7.185", 4],
    ]);
    expect(result.matches[1]).toMatchObject({ entryTime: 1_000, exitTime: 2_000, entryPrice: "110", exitPrice: "100" });
    expect(result.totalPnL).toBe("21.87");
    expect(result.openLots).toEqual([
      {
        symbol: "BTC-PERP",
        side: "long",
        quantity: "1",
        entryPrice: "105",
        fee: "0.1",
        entryTime: 3_000,
        entryTradeId: "B3",
        leverage: 5,
      },
    ]);
  });

  test("symbols are matched independently", () => {
    const result = matchFifo([
      fill("buy", "1", "100", "0", 1, { id: "btc-in" }),
      fill("sell", "1", "10", "0", 2, { id: "eth-in", symbol: "ETH-PERP" }), // opens an ETH short, does not close BTC
      fill("buy", "1", "8", "0", 3, { id: "eth-out", symbol: "ETH-PERP" }), // ETH short: (10 − 8) × 1 = 2
      fill("sell", "1", "90", "0", 4, { id: "btc-out" }), // BTC long: (90 − 100) × 1 = −10
    ]);
    expect(result.matches.map((m) => [m.symbol, m.side, m.entryTradeId, m.exitTradeId, m.netPnl])).toEqual([
      ["ETH-PERP", "short", "eth-in", "eth-out", "2"],
      ["BTC-PERP", "long", "btc-in", "btc-out", "-10"],
    ]);
    expect(result.totalPnL).toBe("-8"); // 2 − 10
  });

  test("a fee split in thirds: shares rounded to 18 decimals, the last share takes the rest", () => {
    const result = matchFifo([
      fill("buy", "3", "10", "1", 1),
      fill("sell", "1", "10", "0", 2),
      fill("sell", "1", "10", "0", 3),
      fill("sell", "1", "10", "0", 4),
    ]);
    // 1 × 1/3 = 0.333…3 (18 places), twice; the last piece 1 − 0.666666666666666666 = 0.333333333333333334
    expect(result.matches.map((m) => m.fees)).toEqual([
      "0.333333333333333333",
      "0.333333333333333333",
      "0.333333333333333334",
    ]);
    expect(result.totalPnL).toBe("-1"); // gross 0 each; the three shares add up to the fee exactly
  });

  test("exact decimals, no float drift", () => {
    // (0.3 − 0.1) × 0.3 = 0.06; fee 0.01 → net 0.05 (floats would give 0.049999…)
    const result = matchFifo([fill("buy", "0.3", "0.1", "0", 1), fill("sell", "0.3", "0.3", "0.01", 2)]);
    expect(result.matches[0]).toMatchObject({ grossPnl: "0.06", netPnl: "0.05" });
  });

  test("orders by execution time (stable), ignores empty fills, keeps unmatched lots open", () => {
    const result = matchFifo([
      fill("sell", "1", "120", "0", 20, { id: "exit" }),
      fill("buy", "1", "100", "0", 10, { id: "first" }),
      fill("buy", "0", "1", "0", 15, { id: "empty" }),
      fill("buy", "1", "110", "0.11", 10, { id: "second" }), // same time as "first": stays after it
    ]);
    // exit closes "first" (FIFO): (120 − 100) × 1 = 20; "second" stays open with its fee
    expect(result.matches.map((m) => [m.entryTradeId, m.exitTradeId, m.netPnl])).toEqual([["first", "exit", "20"]]);
    expect(result.openLots).toEqual([
      {
        symbol: "BTC-PERP",
        side: "long",
        quantity: "1",
        entryPrice: "110",
        fee: "0.11",
        entryTime: 10,
        entryTradeId: "second",
        leverage: 1,
      },
    ]);
    expect(result.totalPnL).toBe("20");
  });

  test("nothing executed: no matches, total 0", () => {
    expect(matchFifo([])).toEqual({ matches: [], realizedMatches: 0, totalPnL: "0", openLots: [] });
    expect(closedTradesPnl([])).toEqual({ totalPnL: "0", realizedMatches: 0, closingTrades: 0 });
  });

  test("closedTradesPnl is the response shape: total net P&L, the number of matches and of the fills that closed something", () => {
    // the partial-closes fixture above: 29.77 + 9.75 − 60.42 = −20.9 over 3 matches
    expect(
      closedTradesPnl([
        fill("buy", "1", "100", "0.1", 1),
        fill("buy", "3", "120", "0.36", 2),
        fill("sell", "2", "130", "0.26", 3),
        fill("sell", "2", "90", "0.18", 4),
      ]),
    ).toEqual({ totalPnL: "-20.9", realizedMatches: 3, closingTrades: 2 });
  });
});
