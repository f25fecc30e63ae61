import { describe, expect, test } from "vitest";
import { BUILTIN_PRODUCTS } from "../products.ts";
import { DEFAULT_TRADING_CONFIG } from "../schemas/trading-config.ts";
import { staticCoinbaseProduct } from "../exchange/contract-sizes.ts";
import { sizeSignalOrder } from "./sizing.ts";

const BTC = BUILTIN_PRODUCTS.find((p) => p.symbol === "BTC-PERP")!;
const XRP = BUILTIN_PRODUCTS.find((p) => p.symbol === "XRP-PERP")!;
const base = { ...DEFAULT_TRADING_CONFIG };

describe("sizeSignalOrder", () => {
  test("multiplier without amount control, rounded down to the increment", () => {
    expect(
      sizeSignalOrder({
        signalQuantity: "0.01237",
        config: { ...base, orderSizeMultiplier: "2" },
        product: BTC,
        price: null,
        available: null,
      }),
    ).toMatchObject({ ok: true, quantity: "0.0247" });
  });
  test("below the minimum is refused with the reason", () => {
    const result = sizeSignalOrder({
      signalQuantity: "0.00005",
      config: base,
      product: BTC,
      price: null,
      available: null,
    });
    expect(result).toEqual({
      ok: false,
      error: "Order size 0.00005 is below the minimum 0.0001 for BTC-PERP (signal quantity 0.00005 × multiplier 1)",
    });
  });
  test("usd notional", () => {
    const config = {
      ...base,
      applyAmountControlToSignals: true,
      signalAmountType: "usd" as const,
      signalAmountValue: "1000",
    };
    expect(
      sizeSignalOrder({ signalQuantity: "5", config, product: BTC, price: "95000", available: null }),
    ).toMatchObject({ ok: true, quantity: "0.0105" });
    expect(sizeSignalOrder({ signalQuantity: "5", config, product: BTC, price: null, available: null }).ok).toBe(false);
  });
  test("percentage of the available balance, with leverage", () => {
    const config = {
      ...base,
      applyAmountControlToSignals: true,
      signalAmountType: "percentage" as const,
      signalAmountValue: "10",
    };
    expect(
      sizeSignalOrder({ signalQuantity: "5", config, product: XRP, price: "2.2", available: "10000", leverage: 3 }),
    ).toMatchObject({ ok: true, quantity: "1363" });
  });
  test("contracts and multiplier under amount control", () => {
    const contracts = {
      ...base,
      applyAmountControlToSignals: true,
      signalAmountType: "contracts" as const,
      signalAmountValue: "25",
    };
    expect(
      sizeSignalOrder({ signalQuantity: "1", config: contracts, product: XRP, price: null, available: null }),
    ).toMatchObject({ ok: true, quantity: "25" });
    const multiplier = {
      ...base,
      applyAmountControlToSignals: true,
      signalAmountType: "multiplier" as const,
      signalAmountValue: "0.5",
    };
    expect(
      sizeSignalOrder({ signalQuantity: "0.02", config: multiplier, product: BTC, price: null, available: null }),
    ).toMatchObject({ ok: true, quantity: "0.01" });
  });
  test("contracts are the exchange's: on Coinbase 1 = one BIP contract (0.01 BTC), and the size is whole contracts", () => {
    const BIP = staticCoinbaseProduct(BTC); // increment = minimum = contract size 0.01
    const contracts = (value: string) => ({
      ...base,
      applyAmountControlToSignals: true,
      signalAmountType: "contracts" as const,
      signalAmountValue: value,
    });
    expect(
      sizeSignalOrder({ signalQuantity: "1", config: contracts("1"), product: BIP, price: null, available: null }),
    ).toEqual({ ok: true, quantity: "0.01", basis: "1 contracts of 0.01 BTC" });
    expect(
      sizeSignalOrder({ signalQuantity: "1", config: contracts("3"), product: BIP, price: null, available: null }),
    ).toMatchObject({ ok: true, quantity: "0.03" });
    // XRP: one XPP contract is 500 XRP.
    expect(
      sizeSignalOrder({
        signalQuantity: "1",
        config: contracts("2"),
        product: staticCoinbaseProduct(XRP),
        price: null,
        available: null,
      }),
    ).toMatchObject({ ok: true, quantity: "1000" });
    // Without a contract size (the simulator's own spec): 1 contract = 1 BTC, as before.
    expect(
      sizeSignalOrder({ signalQuantity: "1", config: contracts("1"), product: BTC, price: null, available: null }),
    ).toMatchObject({ ok: true, quantity: "1" });
    // Other amount types are rounded DOWN to whole contracts, and refused under one.
    const usd = {
      ...base,
      applyAmountControlToSignals: true,
      signalAmountType: "usd" as const,
      signalAmountValue: "2000",
    };
    expect(
      sizeSignalOrder({ signalQuantity: "1", config: usd, product: BIP, price: "95000", available: null }),
    ).toMatchObject({ ok: true, quantity: "0.02" });
    expect(
      sizeSignalOrder({ signalQuantity: "0.004", config: base, product: BIP, price: null, available: null }),
    ).toMatchObject({ ok: false });
  });
});
