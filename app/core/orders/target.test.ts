import { describe, expect, test } from "vitest";
import { planTargetOrder } from "./target.ts";

const product = { baseIncrement: "0.001", baseMinSize: "0.001" };
const plan = (
  target: { side: "long" | "short" | "flat"; size: string },
  position: { side: "long" | "short"; quantity: string } | null,
  pending: { side: "buy" | "sell"; quantity: string }[] = [],
) => planTargetOrder({ target, position, pending, product });

describe("planTargetOrder", () => {
  test("open, add, reduce, flip, close", () => {
    expect(plan({ side: "long", size: "2" }, null)).toMatchObject({
      order: { side: "buy", quantity: "2" },
      entry: true,
      reason: "flat → long 2",
    });
    expect(plan({ side: "long", size: "3" }, { side: "long", quantity: "2" })).toMatchObject({
      order: { side: "buy", quantity: "1" },
      entry: true,
    });
    expect(plan({ side: "long", size: "1" }, { side: "long", quantity: "2" })).toMatchObject({
      order: { side: "sell", quantity: "1" },
      entry: false,
    });
    expect(plan({ side: "short", size: "1" }, { side: "long", quantity: "1" })).toMatchObject({
      order: { side: "sell", quantity: "2" },
      entry: true,
      reason: "long 1 → short 1",
    });
    expect(plan({ side: "flat", size: "0" }, { side: "short", quantity: "1" })).toMatchObject({
      order: { side: "buy", quantity: "1" },
      entry: false,
    });
  });

  test("already there (a duplicated alert): nothing to send", () => {
    expect(plan({ side: "long", size: "2" }, { side: "long", quantity: "2" })).toMatchObject({
      order: null,
      reason: "Position already at the target (long 2)",
    });
    expect(plan({ side: "flat", size: "0" }, null)).toMatchObject({
      order: null,
      reason: "Position already at the target (flat)",
    });
    // Below the product's step: nothing.
    expect(plan({ side: "long", size: "2.0004" }, { side: "long", quantity: "2" }).order).toBeNull();
  });

  test("orders on their way count as filled", () => {
    expect(plan({ side: "long", size: "2" }, null, [{ side: "buy", quantity: "2" }]).order).toBeNull();
    expect(
      plan({ side: "long", size: "2" }, { side: "long", quantity: "1" }, [{ side: "sell", quantity: "1" }]),
    ).toMatchObject({ order: { side: "buy", quantity: "2" }, from: "0", to: "2" });
  });
});
