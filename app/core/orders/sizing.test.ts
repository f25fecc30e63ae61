import { describe, expect, test } from "vitest";
import { PRODUCTS } from "../products.ts";
import { DEFAULT_TRADING_CONFIG } from "../schemas/trading-config.ts";
import { sizeSignalOrder } from "./sizing.ts";

const BTC = PRODUCTS.find((p) => p.symbol === "BTC-PERP")!;
const XRP = PRODUCTS.find((p) => p.symbol === "XRP-PERP")!;
const base = { ...DEFAULT_TRADING_CONFIG };

describe("sizeSignalOrder", () => {
  test("multiplier without amount control, rounded down to the increment", () => {
    expect(sizeSignalOrder({ signalQuantity: "0.01237", config: { ...base, orderSizeMultiplier: "2" }, product: BTC, price: null, available: null })).toMatchObject({ ok: true, quantity: "0.0247" });
  });
  test("below the minimum is refused with the reason", () => {
    const result = sizeSignalOrder({ signalQuantity: "0.00005", config: base, product: BTC, price: null, available: null });
    expect(result).toEqual({ ok: false, error: "Order size 0.00005 is below the minimum 0.0001 for BTC-PERP (signal quantity 0.00005 × multiplier 1)" });
  });
  test("usd notional", () => {
    const config = { ...base, applyAmountControlToSignals: true, signalAmountType: "usd" as const, signalAmountValue: "1000" };
    expect(sizeSignalOrder({ signalQuantity: "5", config, product: BTC, price: "95000", available: null })).toMatchObject({ ok: true, quantity: "0.0105" });
    expect(sizeSignalOrder({ signalQuantity: "5", config, product: BTC, price: null, available: null }).ok).toBe(false);
  });
  test("percentage of the available balance, with leverage", () => {
    const config = { ...base, applyAmountControlToSignals: true, signalAmountType: "percentage" as const, signalAmountValue: "10" };
    expect(sizeSignalOrder({ signalQuantity: "5", config, product: XRP, price: "2.2", available: "10000", leverage: 3 })).toMatchObject({ ok: true, quantity: "1363" });
  });
  test("contracts and multiplier under amount control", () => {
    const contracts = { ...base, applyAmountControlToSignals: true, signalAmountType: "contracts" as const, signalAmountValue: "25" };
    expect(sizeSignalOrder({ signalQuantity: "1", config: contracts, product: XRP, price: null, available: null })).toMatchObject({ ok: true, quantity: "25" });
    const multiplier = { ...base, applyAmountControlToSignals: true, signalAmountType: "multiplier" as const, signalAmountValue: "0.5" };
    expect(sizeSignalOrder({ signalQuantity: "0.02", config: multiplier, product: BTC, price: null, available: null })).toMatchObject({ ok: true, quantity: "0.01" });
  });
});
