import { describe, expect, test } from "vitest";
import { applyFill, realizedPnl } from "./net-position.ts";

describe("applyFill", () => {
  test("opens a position from flat", () => {
    expect(applyFill(null, { side: "buy", quantity: "0.5", price: "100" })).toEqual({
      reduced: null,
      position: { side: "long", quantity: "0.5", remaining: "0.5", entryPrice: "100", isNew: true },
    });
  });

  test("extends at a volume-weighted entry", () => {
    const effect = applyFill(
      { side: "long", quantity: "1", remaining: "1", entryPrice: "100" },
      { side: "buy", quantity: "3", price: "200" },
    );
    expect(effect.position).toEqual({ side: "long", quantity: "4", remaining: "4", entryPrice: "175", isNew: false });
  });

  // Each fill's whole effect: what it realised and the position it leaves.
  test.each<[string, ...Parameters<typeof applyFill>, ReturnType<typeof applyFill>]>([
    [
      "reduces a long and realises P&L exactly (no float drift)",
      { side: "long", quantity: "0.3", remaining: "0.3", entryPrice: "0.1" },
      { side: "sell", quantity: "0.1", price: "0.3" },
      {
        reduced: { quantity: "0.1", realizedPnl: "0.02" },
        position: { side: "long", quantity: "0.3", remaining: "0.2", entryPrice: "0.1", isNew: false },
      },
    ],
    [
      "closes a short exactly and goes flat",
      { side: "short", quantity: "2", remaining: "2", entryPrice: "50" },
      { side: "buy", quantity: "2", price: "45.5" },
      { reduced: { quantity: "2", realizedPnl: "9" }, position: null },
    ],
    [
      "flips: closes what is open, opens the rest the other way",
      { side: "long", quantity: "1", remaining: "1", entryPrice: "100" },
      { side: "sell", quantity: "2.5", price: "90" },
      {
        reduced: { quantity: "1", realizedPnl: "-10" },
        position: { side: "short", quantity: "1.5", remaining: "1.5", entryPrice: "90", isNew: true },
      },
    ],
  ])("%s", (_name, open, fill, effect) => {
    expect(applyFill(open, fill)).toEqual(effect);
  });

  test("realizedPnl for both sides", () => {
    expect(realizedPnl("long", "100", "110", "2")).toBe("20");
    expect(realizedPnl("short", "100", "110", "2")).toBe("-20");
  });
});
