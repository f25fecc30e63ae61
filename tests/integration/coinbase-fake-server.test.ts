// The fake Coinbase over real HTTP (what browser tests point the app at with
// COINBASE_API_URL / COINBASE_EXCHANGE_API_URL): the same handlers verify signatures bound to
// the fake's host and port, and the simulator's public price feed reads it too.
import { afterAll, beforeAll, expect, test } from "vitest";
import { CoinbaseAdapter } from "#exchange/coinbase/adapter.ts";
import { AdvancedTradeClient } from "#exchange/coinbase/advanced-trade.ts";
import { coinbaseHosts } from "#exchange/coinbase/config.ts";
import { CoinbaseExchangeClient } from "#exchange/coinbase/exchange-client.ts";
import { NetworkError } from "#app/core/exchange/errors.ts";
import { fetchPublicPrices } from "#exchange/simulator/price-feed.ts";
import { type CoinbaseServer, startCoinbaseServer } from "#tests/fakes/coinbase-server.ts";
import { makeCdpKey, makeExchangeKey } from "#tests/msw/coinbase.ts";

const key = makeCdpKey("ed25519");
const exchangeKey = makeExchangeKey();
let server: CoinbaseServer;

beforeAll(async () => {
  server = await startCoinbaseServer({ cdpKeys: [key], exchangeKeys: [exchangeKey] });
});
afterAll(async () => {
  await server?.stop();
});

test("COINBASE_API_URL / COINBASE_EXCHANGE_API_URL move every host; trailing slashes ignored", () => {
  expect(coinbaseHosts({ COINBASE_API_URL: `${server.url}/`, COINBASE_EXCHANGE_API_URL: server.exchangeUrl })).toEqual({
    advancedTrade: server.url,
    advancedTradeSandbox: server.url,
    exchange: server.exchangeUrl,
    exchangeSandbox: server.exchangeUrl,
  });
  expect(coinbaseHosts({})).toEqual({
    advancedTrade: "https://api.coinbase.com",
    advancedTradeSandbox: "https://api-sandbox.coinbase.com",
    exchange: "https://api.exchange.coinbase.com",
    exchangeSandbox: "https://api-public.sandbox.exchange.coinbase.com",
  });
});

test("signed Advanced Trade calls and an order over HTTP, JWT bound to host:port", async () => {
  const client = new AdvancedTradeClient({
    keys: key,
    baseUrl: server.url,
    publicBaseUrl: server.url,
    readTimeoutMs: 2000,
    writeTimeoutMs: 2000,
  });
  const adapter = new CoinbaseAdapter({ client, fillPollMs: 5 });
  const order = await adapter.placeOrder({
    clientOrderId: "job-http-1",
    symbol: "ETH-PERP",
    side: "buy",
    type: "market",
    quantity: "0.2",
  });
  expect(order).toMatchObject({ status: "filled", filledQuantity: "0.2" });
  const sent = server.coinbase.requestsTo("/orders", "POST")[0]!;
  expect(sent.jwt!.uri).toBe(`POST 127.0.0.1:${new URL(server.url).port}/api/v3/brokerage/orders`);
  expect(await adapter.testConnection()).toMatchObject({ success: true });
});

test("the Exchange API under a path prefix, HMAC over the full path", async () => {
  const client = new CoinbaseExchangeClient({ ...exchangeKey, baseUrl: server.exchangeUrl, readTimeoutMs: 2000 });
  expect((await client.listProfiles()).map((p) => p.name)).toEqual(["default"]);
});

test("the simulator's public prices come from the fake (spot references of each perp)", async () => {
  const prices = await fetchPublicPrices(undefined, {
    baseUrl: `${server.url}/api/v3/brokerage/market/products`,
    timeoutMs: 2000,
  });
  expect(prices).toEqual({ "BTC-PERP": "95000", "ETH-PERP": "3400", "SOL-PERP": "180", "XRP-PERP": "2.2" });
});

test("a hanging request over HTTP times out on our side", async () => {
  server.coinbase.fail({ path: "/accounts", hang: true });
  const client = new AdvancedTradeClient({ keys: key, baseUrl: server.url, readTimeoutMs: 300, maxAttempts: 1 });
  await expect(client.listAccounts()).rejects.toThrow(NetworkError);
});
