// The product as the active exchange trades it (decision 025): Coinbase's contract from
// getProduct (cached, the last figures or the static sizes when Coinbase cannot be read), the
// simulator's own spec, or Coinbase's contract sizes with the simulator's setting.
import { describe, expect, test } from "vitest";
import { createTradingProductResolver } from "./trading-product.ts";
import type { Product } from "#app/core/exchange/types.ts";

function fakeCoinbase() {
  const calls: string[] = [];
  let down = false;
  const exchange = {
    name: "coinbase",
    async getProduct(symbol: string): Promise<Product> {
      calls.push(symbol);
      if (down) throw new Error("network down");
      return {
        symbol,
        base: "BTC",
        quote: "USD",
        baseIncrement: "0.01",
        baseMinSize: "0.01",
        quoteIncrement: "5",
        minMarketFunds: "1",
        price: "95000",
        status: "online",
      };
    },
  };
  return { exchange, calls, setDown: (value: boolean) => (down = value) };
}

describe("trading products", () => {
  test("Coinbase: one contract is the increment and the minimum, kept for cacheMs", async () => {
    let clock = 0;
    const fake = fakeCoinbase();
    const products = createTradingProductResolver(null, { exchange: fake.exchange, cacheMs: 1000, now: () => clock });
    expect(await products.product("BTCUSD")).toMatchObject({
      symbol: "BTC-PERP",
      baseIncrement: "0.01",
      baseMinSize: "0.01",
      contractSize: "0.01",
      basis: "coinbase",
      quoteIncrement: "0.1",
    });
    await products.product("BTC-PERP");
    expect(fake.calls).toEqual(["BTC-PERP"]);
    clock = 1500;
    fake.setDown(true);
    expect(await products.product("BTC-PERP")).toMatchObject({ baseIncrement: "0.01", basis: "coinbase" }); // the last figures
    products.forget("BTC-PERP");
    expect(await products.product("BTC-PERP")).toMatchObject({ baseIncrement: "0.01", basis: "coinbase-static" });
    // While Coinbase is down it is asked again only every 10 s, not on every tick.
    const asked = fake.calls.length;
    await products.product("BTC-PERP");
    expect(fake.calls.length).toBe(asked);
    clock += 10_001;
    fake.setDown(false);
    expect(await products.product("BTC-PERP")).toMatchObject({ basis: "coinbase" });
    expect(fake.calls.length).toBe(asked + 1);
    fake.setDown(true);
    expect(await products.product("SOL-PERP")).toMatchObject({
      baseIncrement: "5",
      baseMinSize: "5",
      contractSize: "5",
      basis: "coinbase-static",
    });
    expect(await products.product("DOGE-PERP")).toBeNull();
  });

  test("simulator: its own spec, or Coinbase's contract sizes with the setting", async () => {
    let on = false;
    let clock = 0;
    const products = createTradingProductResolver(null, { coinbaseContractsOn: async () => on, now: () => clock });
    expect(await products.product("ETH-PERP")).toMatchObject({
      baseIncrement: "0.001",
      baseMinSize: "0.001",
      contractSize: null,
      basis: "simulator",
    });
    on = true;
    clock = 2000; // the setting is read at most once a second
    expect(await products.product("ETH-PERP")).toMatchObject({
      baseIncrement: "0.1",
      baseMinSize: "0.1",
      contractSize: "0.1",
      basis: "coinbase-static",
    });
    expect(await products.product("XRP-PERP")).toMatchObject({ baseIncrement: "500", contractSize: "500" });
  });
});
