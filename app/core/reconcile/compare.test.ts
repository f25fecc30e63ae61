import { describe, expect, test } from "vitest";
import { adoptingFill, compareBooks, describeDrift } from "./compare.ts";

describe("compareBooks", () => {
  test("equal books: nothing", () => {
    expect(
      compareBooks(
        [{ symbol: "ETH-PERP", side: "long", quantity: "0.2" }],
        [{ symbol: "ETH-PERP", side: "long", quantity: "0.20" }],
      ),
    ).toEqual([]);
    expect(compareBooks([], [])).toEqual([]);
  });

  test("each kind, sorted by symbol; a skipped symbol is left out", () => {
    const findings = compareBooks(
      [
        { symbol: "SOL-PERP", side: "short", quantity: "3", entryPrice: "150", markPrice: "151" },
        { symbol: "BTC-PERP", side: "long", quantity: "0.02", entryPrice: "100000", markPrice: "100100" },
        { symbol: "DOGE-PERP", side: "long", quantity: "100" },
      ],
      [
        { symbol: "BTC-PERP", side: "long", quantity: "0.01" },
        { symbol: "ETH-PERP", side: "short", quantity: "1", markPrice: "3000" },
      ],
      new Set(["DOGE-PERP"]),
    );
    expect(findings.map((f) => [f.symbol, f.kind, f.appQuantity, f.exchangeQuantity])).toEqual([
      ["BTC-PERP", "quantity_mismatch", "0.01", "0.02"],
      ["ETH-PERP", "missing_on_exchange", "1", "0"],
      ["SOL-PERP", "unknown_position", "0", "3"],
    ]);
    expect(findings[1]!.markPrice).toBe("3000");
    expect(findings[2]).toMatchObject({ exchangeSide: "short", exchangeEntry: "150", markPrice: "151", appSide: null });
  });

  test("opposite sides of the same size are a mismatch", () => {
    expect(
      compareBooks(
        [{ symbol: "ETH-PERP", side: "short", quantity: "1" }],
        [{ symbol: "ETH-PERP", side: "long", quantity: "1" }],
      )[0]!.kind,
    ).toBe("quantity_mismatch");
  });
});

describe("adoptingFill", () => {
  test("the fill that makes the app equal the exchange", () => {
    expect(adoptingFill({ appSide: null, appQuantity: "0", exchangeSide: "short", exchangeQuantity: "3" })).toEqual({
      side: "sell",
      quantity: "3",
    });
    expect(
      adoptingFill({ appSide: "long", appQuantity: "0.01", exchangeSide: "long", exchangeQuantity: "0.02" }),
    ).toEqual({ side: "buy", quantity: "0.01" });
    expect(adoptingFill({ appSide: "short", appQuantity: "1", exchangeSide: null, exchangeQuantity: "0" })).toEqual({
      side: "buy",
      quantity: "1",
    });
    expect(adoptingFill({ appSide: "long", appQuantity: "1", exchangeSide: "short", exchangeQuantity: "1" })).toEqual({
      side: "sell",
      quantity: "2",
    });
    expect(adoptingFill({ appSide: "long", appQuantity: "1", exchangeSide: "long", exchangeQuantity: "1" })).toBeNull();
  });

  test("describeDrift names both sides", () => {
    expect(
      describeDrift({
        symbol: "SOL-PERP",
        kind: "unknown_position",
        appSide: null,
        appQuantity: "0",
        exchangeSide: "short",
        exchangeQuantity: "3",
      }),
    ).toBe("Position on the exchange the app does not know: SOL-PERP is short 3 on the exchange, flat in the app");
  });
});
