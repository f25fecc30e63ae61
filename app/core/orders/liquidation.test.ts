import { expect, test } from "vitest";
import { D } from "../decimal.ts";
import {
  type AccountPosition,
  accountLiquidationPrices,
  isLiquidated,
  liquidationPrice,
  maintenanceMargin,
  maintenanceRate,
  positionMargin,
  unrealized,
} from "./liquidation.ts";

const long = {
  symbol: "ETH-PERP",
  side: "long" as const,
  entryPrice: "3000",
  quantity: "2",
  leverage: 10,
  marginType: "isolated",
};

test("margin: entry notional over leverage; maintenance: mark notional × the product's rate", () => {
  expect(positionMargin(long)).toBe("600");
  expect(positionMargin({ ...long, leverage: 0 })).toBe("6000");
  expect(maintenanceRate("BTC-PERP")).toBe("0.005");
  expect(maintenanceRate("SOL-PERP")).toBe("0.01");
  expect(maintenanceRate("DOGE-PERP")).toBe("0.01");
  expect(maintenanceMargin(long, "2700")).toBe("27"); // 2 × 2700 × 0.5 %
});

test("isolated: the position's margin + its P&L falls to its maintenance margin, on the tick towards the entry", () => {
  // (6000 − 600) / (2 × 0.995) = 2713.5678… → up to 2713.57; (6000 + 600) / (2 × 1.005) = 3283.5820… → down to 3283.58.
  expect(liquidationPrice(long, null)).toBe("2713.57");
  expect(liquidationPrice({ ...long, side: "short" }, null)).toBe("3283.58");
  // The held margin when given (the simulator's own figure) rather than entry / leverage.
  expect(liquidationPrice({ ...long, margin: "1000" }, null)).toBe("2512.57");
  // 1x long: the whole notional backs it, no positive price liquidates it.
  expect(liquidationPrice({ ...long, leverage: 1 }, null)).toBeNull();
  // No product: 1 % maintenance, 8 decimals: 5400 / 1.98.
  expect(liquidationPrice({ ...long, symbol: undefined }, null)).toBe("2727.27272728");
});

test("the decision's figure: a 10x isolated BTC long at 95,000 is liquidated at 85,929.7, the short at 103,980", () => {
  const btc = {
    symbol: "BTC-PERP",
    side: "long" as const,
    entryPrice: "95000",
    quantity: "0.1",
    leverage: 10,
    marginType: "isolated",
  };
  expect(liquidationPrice(btc, null)).toBe("85929.7"); // 8550 / 0.0995 = 85929.648…
  expect(liquidationPrice({ ...btc, side: "short" }, null)).toBe("103980"); // 10450 / 0.1005 = 103980.099…
});

test("at the price, the equity is (within a tick) down to the maintenance margin, and not one tick before", () => {
  for (const p of [
    long,
    { ...long, side: "short" as const },
    { ...long, leverage: 3 },
    { ...long, symbol: "SOL-PERP", entryPrice: "180", quantity: "7.31", leverage: 5 },
  ]) {
    const price = liquidationPrice(p, null)!;
    const equity = (mark: string) => D(positionMargin(p)).plus(unrealized(p, mark)).minus(maintenanceMargin(p, mark));
    expect(equity(price).lte(D("0.01").times(p.quantity))).toBe(true);
    expect(equity(price).gte(0)).toBe(true); // rounded towards the entry: not later than the exact price
    const before = p.side === "long" ? D(price).plus("0.01").toString() : D(price).minus("0.01").toString();
    expect(equity(before).gt(0)).toBe(true);
    expect(isLiquidated(p.side, price, price)).toBe(true);
    expect(isLiquidated(p.side, price, before)).toBe(false);
  }
  expect(isLiquidated("long", null, "1")).toBe(false);
});

test("cross: the margin plus the cushion; unknown cushion, no figure", () => {
  // 600 margin + 400 free = 1000: (6000 − 1000) / 1.99 = 2512.56… → 2512.57; (6000 + 1000) / 2.01 → 3482.58.
  expect(liquidationPrice({ ...long, marginType: "cross" }, "400")).toBe("2512.57");
  expect(liquidationPrice({ ...long, marginType: "cross", side: "short" }, "400")).toBe("3482.58");
  // A negative cushion (the other positions' losses) brings the price closer: 5450 / 1.99 = 2738.69… → 2738.70.
  expect(liquidationPrice({ ...long, marginType: "cross" }, "-50")).toBe("2738.7");
  expect(liquidationPrice({ ...long, marginType: "cross" }, null)).toBeNull();
  expect(liquidationPrice({ ...long, quantity: "0" }, "1")).toBeNull();
});

test("an account: isolated positions on their own, cross ones on the free collateral and the other cross positions", () => {
  const eth: AccountPosition = { ...long, marginType: "cross", margin: "600", mark: "3000" };
  const btc: AccountPosition = {
    symbol: "BTC-PERP",
    side: "short",
    entryPrice: "95000",
    quantity: "0.1",
    leverage: 10,
    marginType: "cross",
    margin: "950",
    mark: "96000",
  };
  const sol: AccountPosition = {
    symbol: "SOL-PERP",
    side: "long",
    entryPrice: "180",
    quantity: "10",
    leverage: 5,
    marginType: "isolated",
    margin: "360",
    mark: "150",
  };
  const prices = accountLiquidationPrices([eth, btc, sol], "1000");
  // BTC adds 950 − 100 (its loss) − 48 (its maintenance at 96,000) = 802: ETH's cushion 1000 + 802.
  // (6000 − 600 − 1802) / 1.99 = 1808.04…
  expect(prices.get("ETH-PERP")).toBe("1808.05");
  expect(prices.get("ETH-PERP")).toBe(liquidationPrice(eth, "1802"));
  // ETH adds 600 + 0 − 30 = 570: BTC's cushion 1570.
  expect(prices.get("BTC-PERP")).toBe(liquidationPrice(btc, "1570"));
  expect(prices.get("SOL-PERP")).toBe(liquidationPrice(sol, null)); // 1800 − 360 over 10 × 0.99
  expect(prices.get("SOL-PERP")).toBe("145.455");
  // At ETH's price the account's cross equity is at its total maintenance margin.
  const at = prices.get("ETH-PERP")!;
  const equity = D(1000).plus(600).plus(unrealized(eth, at)).plus(950).plus(unrealized(btc, "96000"));
  const maintenance = D(maintenanceMargin(eth, at)).plus(maintenanceMargin(btc, "96000"));
  expect(equity.minus(maintenance).abs().lte("0.02")).toBe(true);
  // Unknown balance: no cross figure, the isolated one still.
  const unknown = accountLiquidationPrices([eth, sol], null);
  expect(unknown.get("ETH-PERP")).toBeNull();
  expect(unknown.get("SOL-PERP")).toBe("145.455");
});
