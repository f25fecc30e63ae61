// CoinbaseAdapter and the portfolios provider through the MSW fake: every method, the
// contract conversion, success:false refusals, positions in both documented shapes.
import { beforeEach, describe, expect, test } from "vitest";
import {
  InsufficientFundsError,
  InvalidOrderError,
  OrderNotFoundError,
  SizeRefusalError,
  TemporaryError,
} from "#app/core/exchange/errors.ts";
import { makeCdpKey } from "#tests/msw/coinbase.ts";
import { useCoinbaseFake } from "#tests/msw/server.ts";
import { CoinbaseAdapter, PortfoliosProfilesProvider, checkCreateAnswer, money } from "./adapter.ts";
import { AdvancedTradeClient } from "./advanced-trade.ts";
import { COINBASE_SIZE_CODES } from "./refusals.ts";

const key = makeCdpKey("ec");
const msw = useCoinbaseFake({ cdpKeys: [key] });
const client = (keys: typeof key | null = key) =>
  new AdvancedTradeClient({ keys, readTimeoutMs: 300, writeTimeoutMs: 300, backoffMs: 1 });
const adapter = (options: Partial<ConstructorParameters<typeof CoinbaseAdapter>[0]> = {}) =>
  new CoinbaseAdapter({ client: client(), fillWaitMs: 1000, fillPollMs: 5, ...options });

beforeEach(() => {
  msw.reset();
});

describe("orders", () => {
  test("a market buy: base quantity -> whole contracts (rounded down), our client order id, leverage and margin type; booked back in base units", async () => {
    const order = await adapter().placeOrder({
      clientOrderId: "job-7",
      symbol: "BTC-PERP",
      side: "buy",
      type: "market",
      quantity: "0.057",
      leverage: 3,
      marginType: "isolated",
    });
    const [sent] = msw.fake.requestsTo("/orders", "POST");
    expect(sent!.body).toEqual({
      client_order_id: "job-7",
      product_id: "BIP-20DEC30-CDE",
      side: "BUY",
      order_configuration: { market_market_ioc: { base_size: "5" } },
      leverage: "3",
      margin_type: "ISOLATED",
    });
    expect(order).toMatchObject({
      clientOrderId: "job-7",
      symbol: "BTC-PERP",
      side: "buy",
      type: "market",
      status: "filled",
      quantity: "0.05",
      filledQuantity: "0.05",
      averagePrice: "95000",
      fee: "1.43", // 0.05 × 95000 × 0.0003, rounded by the fake
      leverage: 3,
      marginType: "isolated",
    });
  });

  test("under one contract is refused before anything is sent", async () => {
    const error = await adapter()
      .placeOrder({ clientOrderId: "job-8", symbol: "SOL-PERP", side: "buy", type: "market", quantity: "4.9" })
      .catch((e) => e);
    expect(error).toBeInstanceOf(SizeRefusalError);
    expect(error.code).toBe("UNDER_ONE_CONTRACT");
    expect(error.message).toBe("Quantity 4.9 SOL is less than one SLP-20DEC30-CDE contract (5 SOL): order not sent");
    expect(msw.fake.requestsTo("/orders", "POST")).toHaveLength(0);
  });

  test("size refusals are known by Coinbase's code, whatever the message says; other refusals are not", () => {
    const refusal = (error_response: Record<string, string>) => {
      try {
        checkCreateAnswer({ success: false, error_response }, "BIP-20DEC30-CDE");
      } catch (error) {
        return error as InvalidOrderError;
      }
      throw new Error("not refused");
    };
    for (const code of COINBASE_SIZE_CODES) {
      for (const field of ["new_order_failure_reason", "preview_failure_reason", "error"]) {
        const error = refusal({ error: "UNKNOWN_FAILURE_REASON", message: "the venue said no", [field]: code });
        expect(error, `${code} in ${field}`).toBeInstanceOf(SizeRefusalError);
        expect((error as SizeRefusalError).code).toBe(code);
      }
    }
    // Coinbase's usual shape: the new-order reason unknown, the size in the preview reason.
    const tooLarge = refusal({
      error: "UNKNOWN_FAILURE_REASON",
      message: "",
      error_details: "",
      new_order_failure_reason: "UNKNOWN_FAILURE_REASON",
      preview_failure_reason: "PREVIEW_INVALID_BASE_SIZE_TOO_LARGE",
    });
    expect(tooLarge).toMatchObject({
      code: "PREVIEW_INVALID_BASE_SIZE_TOO_LARGE",
      message:
        "Coinbase refused the BIP-20DEC30-CDE order: PREVIEW_INVALID_BASE_SIZE_TOO_LARGE (UNKNOWN_FAILURE_REASON)",
    });
    // A message about the size without a size code is not a size refusal (the wording is Coinbase's to change).
    const worded = refusal({
      error: "INVALID_ARGUMENT",
      message: "size exceeds the position: base size too small, less than one contract",
      new_order_failure_reason: "COMMANDER_REJECTED_NEW_ORDER",
    });
    expect(worded).toBeInstanceOf(InvalidOrderError);
    expect(worded).not.toBeInstanceOf(SizeRefusalError);
    // Insufficient funds stays its own class.
    const poor = refusal({
      error: "INSUFFICIENT_FUND",
      message: "Insufficient balance",
      new_order_failure_reason: "INSUFFICIENT_FUND",
    });
    expect(poor).toBeInstanceOf(InsufficientFundsError);
    expect(poor).not.toBeInstanceOf(SizeRefusalError);
  });

  test("the fake's size refusals carry codes: a close larger than the position, a size that is not whole contracts", async () => {
    const a = adapter();
    await a.placeOrder({ clientOrderId: "job-30", symbol: "ETH-PERP", side: "buy", type: "market", quantity: "0.5" }); // 5 contracts
    const over = await a
      .placeOrder({
        clientOrderId: "job-31",
        symbol: "ETH-PERP",
        side: "sell",
        type: "market",
        quantity: "0.8",
        reduceOnly: true,
      })
      .catch((e) => e);
    expect(over).toBeInstanceOf(SizeRefusalError);
    expect(over.code).toBe("PREVIEW_INVALID_BASE_SIZE_TOO_LARGE");
    expect(await a.getPositions()).toMatchObject([{ symbol: "ETH-PERP", side: "long", quantity: "0.5" }]);
    const half = await client().createOrder({
      client_order_id: "job-32",
      product_id: "ETP-20DEC30-CDE",
      side: "BUY",
      order_configuration: { market_market_ioc: { base_size: "0.5" } },
    });
    expect(() => checkCreateAnswer(half, "ETP-20DEC30-CDE")).toThrow(
      expect.objectContaining({ code: "PREVIEW_INVALID_SIZE_PRECISION" }),
    );
  });

  test("a limit order rests (open), priced to the product's tick; cancel (batch_cancel) cancels it; cancelling again reports it cancelled", async () => {
    const a = adapter();
    const order = await a.placeOrder({
      clientOrderId: "job-9",
      symbol: "ETH-PERP",
      side: "sell",
      type: "limit",
      quantity: "0.35",
      price: "3500.26",
    });
    expect(msw.fake.requestsTo("/orders", "POST")[0]!.body).toMatchObject({
      side: "SELL",
      order_configuration: { limit_limit_gtc: { base_size: "3", limit_price: "3500.5", post_only: false } },
    });
    expect(order).toMatchObject({
      status: "open",
      type: "limit",
      quantity: "0.3",
      price: "3500.5",
      filledQuantity: "0",
      averagePrice: null,
    });
    const cancelled = await a.cancelOrder(order.orderId);
    expect(cancelled.status).toBe("cancelled");
    expect(msw.fake.requestsTo("/orders/batch_cancel", "POST")[0]!.body).toEqual({ order_ids: [order.orderId] });
    expect((await a.cancelOrder(order.orderId)).status).toBe("cancelled");
    await expect(a.cancelOrder("nope")).rejects.toThrow(OrderNotFoundError);
  });

  test("HTTP 200 with success:false is a refusal with Coinbase's reason; insufficient funds has its own class", async () => {
    /** A market buy of 1 ETH that Coinbase answers with HTTP 200, success:false and `errorResponse`: what it throws. */
    const refusedWith = (clientOrderId: string, errorResponse: Record<string, string>) => {
      msw.fake.fail({ path: "/orders", status: 200, body: { success: false, error_response: errorResponse } });
      return adapter()
        .placeOrder({ clientOrderId, symbol: "ETH-PERP", side: "buy", type: "market", quantity: "1" })
        .catch((e) => e);
    };
    const poor = await refusedWith("job-10", {
      error: "INSUFFICIENT_FUND",
      message: "Insufficient balance in source account",
      error_details: "",
      new_order_failure_reason: "INSUFFICIENT_FUND",
    });
    expect(poor).toBeInstanceOf(InsufficientFundsError);
    expect(poor.message).toBe(
      "Coinbase refused the ETP-20DEC30-CDE order: INSUFFICIENT_FUND (Insufficient balance in source account)",
    );

    const bad = await refusedWith("job-11", {
      error: "UNSUPPORTED_ORDER_CONFIGURATION",
      message: "",
      preview_failure_reason: "PREVIEW_INVALID_LIMIT_PRICE",
    });
    expect(bad).toBeInstanceOf(InvalidOrderError);
    expect(bad).not.toBeInstanceOf(InsufficientFundsError);
    expect(bad.message).toBe(
      "Coinbase refused the ETP-20DEC30-CDE order: PREVIEW_INVALID_LIMIT_PRICE (UNSUPPORTED_ORDER_CONFIGURATION)",
    );
    expect(() => checkCreateAnswer({ success: false }, "X")).toThrow(
      "Coinbase refused the X order: UNKNOWN_FAILURE_REASON",
    );
  });

  test("a market order that is not final at once is followed up until it fills", async () => {
    msw.reset({ cdpKeys: [key], fillAfterPolls: 2 });
    const order = await adapter().placeOrder({
      clientOrderId: "job-12",
      symbol: "XRP-PERP",
      side: "buy",
      type: "market",
      quantity: "1200",
    });
    expect(order).toMatchObject({ status: "filled", quantity: "1000", filledQuantity: "1000", averagePrice: "2.2" });
    expect(msw.fake.requestsTo(/^\/orders\/historical\/[^/]+$/, "GET").length).toBe(3);
  });

  test("findOrderByClientId pages through recent orders; null when Coinbase never received it", async () => {
    const a = adapter();
    for (let i = 0; i < 3; i++)
      await a.placeOrder({
        clientOrderId: `job-${100 + i}`,
        symbol: "ETH-PERP",
        side: "buy",
        type: "market",
        quantity: "0.1",
      });
    const found = await a.findOrderByClientId("job-100");
    expect(found).toMatchObject({ clientOrderId: "job-100", status: "filled", filledQuantity: "0.1" });
    const listed = msw.fake.requestsTo("/orders/historical/batch", "GET")[0]!;
    expect(listed.query.getAll("product_ids")).toEqual([
      "BIP-20DEC30-CDE",
      "ETP-20DEC30-CDE",
      "SLP-20DEC30-CDE",
      "XPP-20DEC30-CDE",
    ]);
    expect(await a.findOrderByClientId("job-999")).toBeNull();
  });

  test("getOrder: an unknown id is OrderNotFoundError", async () => {
    await expect(adapter().getOrder("missing")).rejects.toThrow(OrderNotFoundError);
  });

  test("a reduce-only market order goes to /orders/close_position with a size; closePosition closes it all", async () => {
    const a = adapter();
    await a.placeOrder({ clientOrderId: "job-20", symbol: "ETH-PERP", side: "buy", type: "market", quantity: "0.5" });
    const partial = await a.placeOrder({
      clientOrderId: "job-21",
      symbol: "ETH-PERP",
      side: "sell",
      type: "market",
      quantity: "0.2",
      reduceOnly: true,
    });
    expect(msw.fake.requestsTo("/orders/close_position", "POST")[0]!.body).toEqual({
      client_order_id: "job-21",
      product_id: "ETP-20DEC30-CDE",
      size: "2",
    });
    expect(partial).toMatchObject({ side: "sell", status: "filled", filledQuantity: "0.2" });
    expect(await a.getPositions()).toMatchObject([{ symbol: "ETH-PERP", side: "long", quantity: "0.3" }]);
    const rest = await a.closePosition({ clientOrderId: "job-22", symbol: "ETH-PERP" });
    expect(rest.filledQuantity).toBe("0.3");
    expect(await a.getPositions()).toEqual([]);
  });

  test("fills: in base units, our symbols", async () => {
    const a = adapter();
    const order = await a.placeOrder({
      clientOrderId: "job-30",
      symbol: "SOL-PERP",
      side: "sell",
      type: "market",
      quantity: "12",
    });
    const fills = await a.getFills({ orderId: order.orderId });
    expect(fills).toEqual([
      expect.objectContaining({
        orderId: order.orderId,
        symbol: "SOL-PERP",
        side: "sell",
        price: "180",
        quantity: "10",
        fee: "0.54",
        liquidity: "TAKER",
      }),
    ]);
    expect(msw.fake.requestsTo("/orders/historical/fills")[0]!.query.getAll("order_ids")).toEqual([order.orderId]);
  });
});

describe("account and market data", () => {
  test("balances: wallets from /accounts, the futures account from /cfm/balance_summary as USD", async () => {
    expect(await adapter().getBalances()).toEqual([
      { currency: "BTC", available: "0.5", hold: "0" },
      { currency: "USD", available: "20000", hold: "150" },
      { currency: "USDC", available: "1000", hold: "0" },
    ]);
  });

  test.each(["strings", "money"] as const)("positions from /cfm/positions (%s shape)", async (positionShape) => {
    msw.reset({ cdpKeys: [key], positionShape });
    const a = adapter();
    await a.placeOrder({ clientOrderId: "job-40", symbol: "BTC-PERP", side: "sell", type: "market", quantity: "0.03" });
    msw.fake.setPrice("BIP-20DEC30-CDE", "94000");
    expect(await a.getPositions()).toEqual([
      {
        symbol: "BTC-PERP",
        side: "short",
        quantity: "0.03",
        entryPrice: "95000",
        markPrice: "94000",
        unrealizedPnl: "30",
        leverage: positionShape === "money" ? 3 : 1,
        marginType: "cross",
        // Reported by Coinbase in the money shape (the fake: 30 % above a short's entry); absent in the other.
        liquidationPrice: positionShape === "money" ? "123500" : null,
      },
    ]);
  });

  test("products and one product: our symbols, contract-size steps, 24 h change and volume in the base asset", async () => {
    const products = await adapter().getProducts();
    expect(products.map((p) => p.symbol)).toEqual(["BTC-PERP", "ETH-PERP", "SOL-PERP", "XRP-PERP"]);
    expect(products[0]).toEqual({
      symbol: "BTC-PERP",
      base: "BTC",
      quote: "USD",
      baseIncrement: "0.01",
      baseMinSize: "0.01",
      quoteIncrement: "5",
      minMarketFunds: "0",
      price: "95000",
      priceChange24h: "2.5",
      volume24h: "1200",
      status: "online",
    });
    const sol = await adapter().getProduct("SOL-PERP");
    expect(sol).toMatchObject({ baseIncrement: "5", priceChange24h: "4.1", volume24h: "150000" });
  });

  test("without keys: products and ticker from the public endpoints", async () => {
    const a = new CoinbaseAdapter({ client: client(null) });
    expect((await a.getProducts()).length).toBe(4);
    expect(await a.getTicker("ETH-PERP")).toMatchObject({
      symbol: "ETH-PERP",
      price: "3400",
      bid: "3399.5",
      ask: "3400.5",
      source: "coinbase",
    });
    expect(msw.fake.state.requests.every((r) => r.path.startsWith("/market/"))).toBe(true);
  });

  test("ticker with keys: best_bid_ask mid", async () => {
    expect(await adapter().getTicker("BTC-PERP")).toMatchObject({ price: "95000", bid: "94995", ask: "95005" });
    expect(msw.fake.requestsTo("/best_bid_ask")[0]!.query.getAll("product_ids")).toEqual(["BIP-20DEC30-CDE"]);
  });

  test("a symbol mapped to a product Coinbase does not have: a clear refusal naming the map", async () => {
    const a = adapter({ productMap: { "BTC-PERP": "BIP-01JAN20-CDE" } });
    await expect(
      a.placeOrder({ clientOrderId: "job-50", symbol: "BTC-PERP", side: "buy", type: "market", quantity: "1" }),
    ).rejects.toThrow("Coinbase has no product BIP-01JAN20-CDE (mapped to BTC-PERP): check the symbol map in settings");
  });

  test("testConnection: read-only, names the environment; a 500 outage is reported, not thrown", async () => {
    expect(await adapter().testConnection()).toEqual({
      success: true,
      message: "Connected to Coinbase Advanced Trade (production): the API key works, 1 account visible",
    });
    expect(msw.fake.state.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /accounts"]);
    msw.fake.fail({ path: "/accounts", status: 500, times: 3 });
    const failed = await adapter().testConnection();
    expect(failed.success).toBe(false);
    expect(failed.message).toMatch(/^Coinbase is unavailable \(HTTP 500\)/);
  });

  test("money(): both {value,currency} and bare strings", () => {
    expect(money({ value: "1.50", currency: "USD" })).toBe("1.5");
    expect(money("2")).toBe("2");
    expect(money(null)).toBeNull();
  });

  test("a 5xx on a read after retries is TemporaryError", async () => {
    msw.fake.fail({ path: "/cfm/positions", status: 502, times: 3 });
    await expect(adapter().getPositions()).rejects.toThrow(TemporaryError);
  });
});

describe("portfolios as profiles (no passphrase)", () => {
  test("list, create, move funds, delete with funds moved to the destination", async () => {
    const provider = new PortfoliosProfilesProvider(client());
    const [main] = await provider.listProfiles();
    expect(main).toMatchObject({
      name: "Default",
      isDefault: true,
      active: true,
      balances: [{ currency: "USD", available: "5000", hold: "0" }],
    });
    const side = await provider.createProfile("Scalping");
    expect(side).toMatchObject({ name: "Scalping", isDefault: false });
    await provider.transferFunds({ fromProfileId: main!.id, toProfileId: side.id, currency: "USD", amount: "1200.5" });
    expect(msw.fake.requestsTo("/portfolios/move_funds")[0]!.body).toEqual({
      funds: { value: "1200.5", currency: "USD" },
      source_portfolio_uuid: main!.id,
      target_portfolio_uuid: side.id,
    });
    const listed = await provider.listProfiles();
    expect(listed.find((p) => p.id === side.id)!.balances).toEqual([
      { currency: "USD", available: "1200.5", hold: "0" },
    ]);
    await provider.deleteProfile(side.id, main!.id);
    const after = await provider.listProfiles();
    expect(after.map((p) => p.name)).toEqual(["Default"]);
    expect(after[0]!.balances).toEqual([{ currency: "USD", available: "5000", hold: "0" }]);
    await expect(
      provider.transferFunds({ fromProfileId: main!.id, toProfileId: side.id, currency: "USD", amount: "0" }),
    ).rejects.toThrow("Transfer amount must be greater than 0");
  });
});
