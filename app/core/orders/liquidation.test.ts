import { expect, test } from "vitest";
import { liquidationPrice, positionMargin } from "./liquidation.ts";

const long = { side: "long" as const, entryPrice: "3000", quantity: "2", leverage: 10, marginType: "isolated" };

test("margin: entry notional over leverage", () => {
  expect(positionMargin(long)).toBe("600");
  expect(positionMargin({ ...long, leverage: 0 })).toBe("6000");
});

test("isolated: the loss equals the margin at entry × (1 ∓ 1/leverage)", () => {
  expect(liquidationPrice(long, null)).toBe("2700");
  expect(liquidationPrice({ ...long, side: "short" }, null)).toBe("3300");
  // 1x long: the whole notional backs it, no positive price liquidates it.
  expect(liquidationPrice({ ...long, leverage: 1 }, null)).toBeNull();
});

test("cross: the margin plus the free collateral; unknown collateral, no figure", () => {
  // 600 margin + 400 free = 1000 over 2 ETH = a 500 move.
  expect(liquidationPrice({ ...long, marginType: "cross" }, "400")).toBe("2500");
  expect(liquidationPrice({ ...long, marginType: "cross", side: "short" }, "400")).toBe("3500");
  expect(liquidationPrice({ ...long, marginType: "cross" }, "-50")).toBe("2700"); // a negative balance adds nothing
  expect(liquidationPrice({ ...long, marginType: "cross" }, null)).toBeNull();
  expect(liquidationPrice({ ...long, quantity: "0" }, "1")).toBeNull();
});
