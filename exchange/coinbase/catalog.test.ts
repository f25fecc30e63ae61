// Which of Coinbase's futures become products, and how (docs/decisions/051-every-coinbase-perpetual.md).
import { describe, expect, test } from "vitest";
import type { WireProduct } from "./advanced-trade.ts";
import { type CatalogFetch, catalogUrl, fetchFutures, parsePerpetuals } from "./catalog.ts";
import { DOGE_PRODUCT } from "#tests/setup/fixtures.ts";

/** A CDE perpetual-style contract as Coinbase lists it (EXPIRING, a five-year expiry, "… PERP"). */
const cde = (id: string, root: string, extra: Partial<WireProduct> & Record<string, unknown> = {}): WireProduct => ({
  product_id: id,
  price: "0.38",
  base_increment: "1",
  base_min_size: "1",
  price_increment: "0.00001",
  quote_increment: "0.00001",
  quote_min_size: "0",
  status: "",
  trading_disabled: false,
  product_type: "FUTURE",
  base_currency_id: "",
  quote_currency_id: "USD",
  display_name: `${root} PERP`,
  product_venue: "FCM",
  future_product_details: {
    contract_size: "1000",
    contract_root_unit: root,
    contract_expiry: "2030-12-20T16:00:00Z",
    contract_expiry_type: "EXPIRING",
  },
  ...extra,
});

describe("parsePerpetuals", () => {
  test("a CDE perpetual becomes {ROOT}-PERP, sizes in the base asset", () => {
    const { products, skipped } = parsePerpetuals([cde("DOP-20DEC30-CDE", "DOGE")]);
    expect(skipped).toEqual([]);
    expect(products).toEqual([{ ...DOGE_PRODUCT, displayName: "DOGE PERP" }]);
  });

  test("an expiry type PERPETUAL counts without PERP in the name; the minimum is at least one step", () => {
    const [p] = parsePerpetuals([
      cde("AVP-20DEC30-CDE", "AVAX", {
        display_name: "Avalanche",
        base_increment: "2",
        base_min_size: "1",
        quote_min_size: "5",
        future_product_details: { contract_size: "0.5", contract_root_unit: "avax", contract_expiry_type: "PERPETUAL" },
      }),
    ]).products;
    expect(p).toMatchObject({ symbol: "AVAX-PERP", baseIncrement: "1", baseMinSize: "1", minMarketFunds: "5" });
  });

  test("not taken: spot, dated futures, INTX, closed, incomplete; said why where it looked like a perpetual", () => {
    const { products, skipped } = parsePerpetuals([
      { product_id: "BTC-USD", product_type: "SPOT", price: "95000" },
      cde("BIT-26DEC26-CDE", "BTC", { display_name: "BTC 26 DEC 26" }),
      cde("BTC-PERP-INTX", "BTC", { product_venue: "INTX" }),
      cde("LCP-20DEC30-CDE", "LTC", { trading_disabled: true }),
      cde("XLP-20DEC30-CDE", "XLM", { price: "", mid_market_price: "" }),
      cde("NOP-20DEC30-CDE", "", {}),
      cde("HBP-20DEC30-CDE", "HBAR", {
        future_product_details: { contract_root_unit: "HBAR", contract_size: "0", contract_expiry_type: "EXPIRING" },
      }),
    ]);
    expect(products).toEqual([]);
    expect(skipped).toEqual([
      { productId: "BTC-PERP-INTX", reason: "on the international exchange (INTX), which the app does not trade" },
      { productId: "LCP-20DEC30-CDE", reason: "not open for trading" },
      { productId: "XLP-20DEC30-CDE", reason: "no price" },
      { productId: "NOP-20DEC30-CDE", reason: "no contract root unit" },
      { productId: "HBP-20DEC30-CDE", reason: "no contract size" },
    ]);
  });

  test("two perpetuals of one root: the later expiry is kept, whatever the order", () => {
    const near = cde("DOA-20DEC29-CDE", "DOGE", {
      future_product_details: {
        contract_size: "100",
        contract_root_unit: "DOGE",
        contract_expiry: "2029-12-20T16:00:00Z",
      },
    });
    const far = cde("DOP-20DEC30-CDE", "DOGE");
    for (const list of [
      [near, far],
      [far, near],
    ]) {
      const { products, skipped } = parsePerpetuals(list);
      expect(products.map((p) => p.coinbaseProductId)).toEqual(["DOP-20DEC30-CDE"]);
      expect(skipped).toEqual([{ productId: "DOA-20DEC29-CDE", reason: expect.stringContaining("DOP-20DEC30-CDE") }]);
    }
  });

  test("garbage in the list is passed over", () => {
    expect(parsePerpetuals([null, 5, {}, { product_id: 7 }] as never).products).toEqual([]);
  });
});

describe("fetchFutures", () => {
  test("asks the public list of futures; says why when it cannot", async () => {
    const urls: string[] = [];
    const ok: CatalogFetch = async (url) => {
      urls.push(url);
      return { ok: true, status: 200, json: async () => ({ products: [cde("DOP-20DEC30-CDE", "DOGE")] }) };
    };
    expect(await fetchFutures({ fetchImpl: ok })).toHaveLength(1);
    expect(urls).toEqual(["https://api.coinbase.com/api/v3/brokerage/market/products?product_type=FUTURE"]);
    expect(catalogUrl({ COINBASE_API_URL: "http://127.0.0.1:9/" })).toBe(
      "http://127.0.0.1:9/api/v3/brokerage/market/products?product_type=FUTURE",
    );
    await expect(
      fetchFutures({ fetchImpl: async () => ({ ok: false, status: 503, json: async () => ({}) }) }),
    ).rejects.toThrow("Coinbase answered HTTP 503");
    await expect(
      fetchFutures({ fetchImpl: async () => ({ ok: true, status: 200, json: async () => ({}) }) }),
    ).rejects.toThrow("Coinbase's answer has no product list");
    const hang: CatalogFetch = (_url, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
    await expect(fetchFutures({ fetchImpl: hang, timeoutMs: 20 })).rejects.toThrow(
      "Coinbase did not answer within the time limit",
    );
  });
});
