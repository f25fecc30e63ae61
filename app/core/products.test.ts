// The product catalog and the ticker mapping rule (docs/spec/webhook.md#symbols,
// docs/decisions/051-every-coinbase-perpetual.md).
import { afterEach, describe, expect, test } from "vitest";
import {
  BUILTIN_PRODUCTS,
  type ProductSpec,
  isKnownSymbol,
  listSymbols,
  listedExtras,
  productOf,
  resolveSymbol,
  setCatalog,
  symbolsText,
} from "./products.ts";
import { DOGE_PRODUCT } from "#tests/setup/fixtures.ts";

/** A listed product shaped like DOGE-PERP, under another symbol. */
const listed = (symbol: string, extra: Partial<ProductSpec> = {}): ProductSpec => ({
  ...DOGE_PRODUCT,
  symbol,
  base: symbol.replace(/-PERP$/, ""),
  ...extra,
});

afterEach(() => setCatalog([]));

describe("the ticker mapping rule", () => {
  test.each([
    ["BTC-PERP", "BTC-PERP"],
    ["btc-perp", "BTC-PERP"],
    ["BTCUSD", "BTC-PERP"],
    ["BTCUSDT", "BTC-PERP"],
    ["BTCUSDC", "BTC-PERP"],
    ["BTCUSDT.P", "BTC-PERP"],
    ["BINANCE:BTCUSDT.P", "BTC-PERP"],
    ["COINBASE:BTC-USD", "BTC-PERP"],
    ["BYBIT:BTC_USDT", "BTC-PERP"],
    ["BTCPERP", "BTC-PERP"],
    ["BTC-PERPETUAL", "BTC-PERP"],
    ["XBTUSD", "BTC-PERP"],
    ["BITMEX:XBTUSD", "BTC-PERP"],
    [" ethusdt.p ", "ETH-PERP"],
    ["SOLUSD", "SOL-PERP"],
    ["XRPUSDT.P", "XRP-PERP"],
  ])("%s is %s", (ticker, symbol) => {
    expect(resolveSymbol(ticker)?.symbol).toBe(symbol);
  });

  test.each(["DOGEUSDT.P", "BTCEUR", "USD", "", ":", "ETHBTC", "AAPL"])("%s is no product", (ticker) => {
    expect(resolveSymbol(ticker)).toBeNull();
  });

  test("a product read from Coinbase's list maps the same way", () => {
    setCatalog([listed("DOGE-PERP")]);
    expect(resolveSymbol("BINANCE:DOGEUSDT.P")?.symbol).toBe("DOGE-PERP");
    expect(resolveSymbol("dogeusd")).toMatchObject({ symbol: "DOGE-PERP", coinbaseContractSize: "1000" });
  });
});

describe("the catalog", () => {
  test("built in: the four products, in their order", () => {
    expect(listSymbols()).toEqual(["BTC-PERP", "ETH-PERP", "SOL-PERP", "XRP-PERP"]);
    expect(listedExtras()).toEqual([]);
    expect(symbolsText()).toBe("BTC-PERP, ETH-PERP, SOL-PERP, XRP-PERP");
  });

  test("listed products come after the built-in ones, sorted; a built-in one keeps its increments", () => {
    setCatalog([
      listed("ZEC-PERP"),
      listed("DOGE-PERP"),
      listed("BTC-PERP", { baseIncrement: "0.01", coinbaseContractSize: "0.01", coinbaseProductId: "BIP-20DEC30-CDE" }),
    ]);
    expect(listSymbols()).toEqual(["BTC-PERP", "ETH-PERP", "SOL-PERP", "XRP-PERP", "DOGE-PERP", "ZEC-PERP"]);
    expect(productOf("BTC-PERP")).toMatchObject({
      baseIncrement: BUILTIN_PRODUCTS[0]!.baseIncrement,
      coinbaseContractSize: "0.01",
      coinbaseProductId: "BIP-20DEC30-CDE",
    });
    expect(listedExtras().map((p) => p.symbol)).toEqual(["DOGE-PERP", "ZEC-PERP"]);
    expect(isKnownSymbol("DOGE-PERP")).toBe(true);
    setCatalog([]);
    expect(isKnownSymbol("DOGE-PERP")).toBe(false);
  });

  test("a long list is named by its first six and a count", () => {
    setCatalog(["AVAX", "DOGE", "LINK", "LTC", "ZEC"].map((b) => listed(`${b}-PERP`)));
    expect(symbolsText()).toBe("BTC-PERP, ETH-PERP, SOL-PERP, XRP-PERP, AVAX-PERP, DOGE-PERP and 3 more");
  });

  test("the catalog is one per process, whichever copy of the module sets it (globalThis)", () => {
    setCatalog([listed("DOGE-PERP")]);
    const held = (globalThis as Record<symbol, { symbols: string[] }>)[Symbol.for("perpdesk.productCatalog")];
    expect(held!.symbols).toContain("DOGE-PERP");
  });
});
