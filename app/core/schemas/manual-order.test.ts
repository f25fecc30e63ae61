// The manual order's bounds match the webhook's (issue 10): one typo of many zeros, or a
// 10 MB number, is a field message, never an order.
import { describe, expect, test } from "vitest";
import { ManualOrderSchema } from "./manual-order.ts";
import { MAX_PRICE, MAX_QUANTITY } from "./webhook-signal.ts";

const base = { symbol: "BTC-PERP", side: "buy", orderType: "market", amountType: "quantity", quantity: "0.01" };
const issue = (input: Record<string, string>) => {
  const parsed = ManualOrderSchema.safeParse({ ...base, ...input });
  return parsed.success ? null : parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`);
};

describe("manual order caps", () => {
  test("at the webhook's caps: accepted", () => {
    expect(issue({ quantity: MAX_QUANTITY })).toBeNull();
    expect(issue({ orderType: "limit", price: MAX_PRICE })).toBeNull();
    expect(issue({ amountType: "usd", quantity: MAX_QUANTITY })).toBeNull();
  });

  test("above them: the field's message", () => {
    expect(issue({ quantity: "1000000000.1" })).toEqual(["quantity: Amount must be at most 1,000,000,000"]);
    expect(issue({ amountType: "usd", quantity: "99999999999" })).toEqual([
      "quantity: Amount must be at most 1,000,000,000",
    ]);
    expect(issue({ orderType: "limit", price: "1000000000001" })).toEqual([
      "price: Price must be at most 1,000,000,000,000",
    ]);
  });

  test.each(["1e9", "1".repeat(41), "0x10", "-1", "NaN", "Infinity", " "])("quantity %j is refused", (quantity) => {
    expect(issue({ quantity })).not.toBeNull();
  });
});
