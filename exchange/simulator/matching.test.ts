import { describe, expect, test } from "vitest";
import {
  FLAT,
  type PositionState,
  applyFill,
  crossesLimit,
  marketableLimitFillPrice,
  moneyDown,
  moneyUp,
  openingQuantity,
  q,
  reduceOnlyQuantity,
  takerFillPrice,
  unrealizedLoss,
  unrealizedPnl,
} from "./matching.ts";

/** A fill at 1x cross margin with no fee. */
const feeFreeCross = (side: "buy" | "sell", quantity: string, price: string) => ({
  side,
  quantity,
  price,
  feeRate: "0",
  leverage: 1,
  marginType: "cross" as const,
});
const long = (quantity: string, entryPrice: string, margin: string, leverage = 1): PositionState => ({
  side: "long",
  quantity,
  entryPrice,
  margin,
  leverage,
  marginType: "cross",
  realizedPnl: "0",
});

describe("simulator matching arithmetic", () => {
  test("taker fill prices move against the taker and land on the tick", () => {
    // 180.123 x 1.0005 = 180.2130615 -> up to 180.214; x 0.9995 = 180.0329385 -> down to 180.032
    expect(takerFillPrice("buy", "180.123", "0.0005", "0.001")).toBe("180.214");
    expect(takerFillPrice("sell", "180.123", "0.0005", "0.001")).toBe("180.032");
    expect(takerFillPrice("buy", "95000", "0.0005", "0.1")).toBe("95047.5");
    expect(takerFillPrice("sell", "95000", "0", "0.1")).toBe("95000");
    // never below one tick
    expect(takerFillPrice("sell", "0.0001", "0.5", "0.0001")).toBe("0.0001");
  });

  test("limits cross at or through their price; a marketable limit never fills worse than its limit", () => {
    expect(crossesLimit("buy", "100", "100")).toBe(true);
    expect(crossesLimit("buy", "99.9", "100")).toBe(false);
    expect(crossesLimit("sell", "100", "100")).toBe(true);
    expect(crossesLimit("sell", "100.1", "100")).toBe(false);
    expect(marketableLimitFillPrice("buy", "110", "100", "0.0005", "0.01")).toBe("100.05");
    expect(marketableLimitFillPrice("buy", "100.02", "100", "0.0005", "0.01")).toBe("100.02");
    expect(marketableLimitFillPrice("sell", "99.98", "100", "0.0005", "0.01")).toBe("99.98");
    expect(marketableLimitFillPrice("sell", "90", "100", "0.0005", "0.01")).toBe("99.95");
  });

  test("opening from flat takes notional / leverage as margin plus the fee", () => {
    const fill = applyFill(null, {
      side: "sell",
      quantity: "2",
      price: "3398.3",
      feeRate: "0.0006",
      leverage: 5,
      marginType: "cross",
    });
    expect(fill).toMatchObject({
      closedQuantity: "0",
      openedQuantity: "2",
      marginRequired: "1359.32",
      fee: "4.07796",
      openFee: "4.07796",
      closeFee: "0",
      realizedPnl: "0",
      availableDelta: "-1363.39796",
      holdDelta: "1359.32",
    });
    expect(fill.position).toMatchObject({
      side: "short",
      quantity: "2",
      entryPrice: "3398.3",
      margin: "1359.32",
      leverage: 5,
    });
  });

  test("partial closes release margin pro rata and the last close releases the rest exactly", () => {
    const first = applyFill(long("3", "100", "1000", 1), feeFreeCross("sell", "1", "110"));
    expect(first.marginReleased).toBe("333.333333333333333333");
    expect(first.realizedPnl).toBe("10");
    expect(first.position).toMatchObject({
      side: "long",
      quantity: "2",
      margin: "666.666666666666666667",
      realizedPnl: "10",
    });
    const second = applyFill(first.position, feeFreeCross("sell", "2", "90"));
    expect(second.marginReleased).toBe("666.666666666666666667");
    expect(second.realizedPnl).toBe("-20");
    expect(second.position).toMatchObject({ side: "flat", quantity: "0", margin: "0", realizedPnl: "-10" });
  });

  test("a flip closes, then opens the rest at the fill price; fees split by quantity", () => {
    const fill = applyFill(long("1", "3000", "1500", 2), {
      side: "sell",
      quantity: "3",
      price: "2900",
      feeRate: "0.0006",
      leverage: 2,
      marginType: "cross",
    });
    expect(fill).toMatchObject({
      closedQuantity: "1",
      openedQuantity: "2",
      realizedPnl: "-100",
      marginReleased: "1500",
      marginRequired: "2900",
      fee: "5.22",
      closeFee: "1.74",
      openFee: "3.48",
      settlement: "1398.26",
    });
    expect(fill.position).toMatchObject({ side: "short", quantity: "2", entryPrice: "2900", margin: "2900" });
  });

  test("extending averages the entry, rounded to 18 places", () => {
    const fill = applyFill(long("1", "3000", "3000"), feeFreeCross("buy", "2", "3100"));
    expect(fill.position.entryPrice).toBe("3066.666666666666666667");
    expect(fill.position.margin).toBe("9200");
    expect(unrealizedPnl("long", "3", fill.position.entryPrice, "3100")).toBe("99.999999999999999999");
  });

  test("reduce-only and opening quantities", () => {
    const position = long("1.5", "100", "150");
    expect(reduceOnlyQuantity(position, "sell", "5")).toBe("1.5");
    expect(reduceOnlyQuantity(position, "sell", "0.5")).toBe("0.5");
    expect(reduceOnlyQuantity(position, "buy", "1")).toBe("0");
    expect(reduceOnlyQuantity(null, "sell", "1")).toBe("0");
    expect(reduceOnlyQuantity(FLAT, "sell", "1")).toBe("0");
    expect(openingQuantity(position, "sell", "2")).toBe("0.5");
    expect(openingQuantity(position, "sell", "1")).toBe("0");
    expect(openingQuantity(position, "buy", "1")).toBe("1");
    expect(openingQuantity(null, "sell", "1")).toBe("1");
  });

  test("rounding helpers", () => {
    expect(q("1.0000000000000000005")).toBe("1.000000000000000001");
    expect(moneyUp("100.001")).toBe("100.01");
    expect(moneyDown("99.999")).toBe("99.99");
  });
});

test("unrealizedLoss: what an open position's loss takes from the free collateral (profits count for nothing)", () => {
  const cross = {
    side: "long" as const,
    quantity: "2",
    entryPrice: "3000",
    margin: "600",
    leverage: 10,
    marginType: "cross" as const,
    realizedPnl: "0",
  };
  expect(unrealizedLoss(cross, "2900")).toBe("-200"); // the account carries a cross position's whole loss
  expect(unrealizedLoss(cross, "3100")).toBe("0");
  expect(unrealizedLoss({ ...cross, side: "short" }, "3100")).toBe("-200");
  const isolated = { ...cross, marginType: "isolated" as const };
  expect(unrealizedLoss(isolated, "2900")).toBe("0"); // its own 600 of margin carries it
  expect(unrealizedLoss(isolated, "2650")).toBe("-100"); // 700 lost, 100 beyond its margin
  expect(unrealizedLoss(null, "1")).toBe("0");
  expect(unrealizedLoss(cross, null)).toBe("0");
});
