import { describe, expect, test } from "vitest";
import { marginBalance } from "./types.ts";

describe("marginBalance", () => {
  test("Coinbase's futures buying power (USD) wins over a spot USDC wallet", () => {
    const usd = { currency: "USD", available: "1200.5", hold: "300" };
    expect(
      marginBalance([
        { currency: "USDC", available: "50", hold: "0" },
        usd,
        { currency: "BTC", available: "1", hold: "0" },
      ]),
    ).toBe(usd);
  });
  test("the simulator's paper account is USDC", () => {
    const usdc = { currency: "USDC", available: "10000", hold: "0" };
    expect(marginBalance([usdc])).toBe(usdc);
  });
  test("no margin currency at all: a zero balance, never a made-up one", () => {
    expect(marginBalance([{ currency: "BTC", available: "1", hold: "0" }])).toEqual({
      currency: "USDC",
      available: "0",
      hold: "0",
    });
  });
});
