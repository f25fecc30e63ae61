import { describe, expect, test } from "vitest";
import { signalCaption, signalLabel, signalTargetText } from "./signal-text.ts";

describe("signal texts (issue 25)", () => {
  const plain = { action: "buy", symbol: "ETH-PERP", quantity: "0.5", price: null, payload: { action: "buy" } };
  const target = {
    action: "buy",
    symbol: "ETH-PERP",
    quantity: "1",
    price: "3000",
    payload: { market_position: "long", market_position_size: "2" },
  };
  test("a target alert shows its target, never the ignored quantity", () => {
    expect(signalTargetText(target.payload)).toBe("target long 2");
    expect(signalLabel(target)).toBe("BUY ETH-PERP (target long 2) @ 3000");
    expect(signalCaption(target)).toEqual({ action: "buy", symbol: "ETH-PERP", price: "3000", target: "long 2" });
    expect(JSON.stringify(signalCaption(target))).not.toContain("qty");
    expect(signalLabel({ ...target, action: "sell", payload: { market_position: "flat" } })).toBe(
      "SELL ETH-PERP (target flat) @ 3000",
    );
  });
  test("any other alert shows its quantity", () => {
    expect(signalTargetText(plain.payload)).toBeNull();
    expect(signalLabel(plain)).toBe("BUY 0.5 ETH-PERP");
    expect(signalCaption(plain)).toEqual({ action: "buy", symbol: "ETH-PERP", price: undefined, qty: "0.5" });
  });
});
