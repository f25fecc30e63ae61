// The Advanced Trade client against the MSW fake: signed requests (ES256 and EdDSA) whose
// JWT the fake verifies, error translation (401, 403, 404, 429, 500, hang), retries only
// where safe, clock skew, the limiter and the public market data.
import { decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import { beforeEach, describe, expect, test } from "vitest";
import {
  AuthError,
  InvalidOrderError,
  NetworkError,
  NotFoundError,
  RateLimitError,
  TemporaryError,
} from "#app/core/exchange/errors.ts";
import { makeCdpKey } from "#tests/msw/coinbase.ts";
import { useCoinbaseFake } from "#tests/msw/server.ts";
import { AdvancedTradeClient } from "./advanced-trade.ts";
import { RateLimiter, retryAfterMs } from "./http.ts";
import { normalizeSecret } from "#app/core/schemas/exchange-connection.ts";
import { buildCdpJwt } from "./jwt.ts";

const ec = makeCdpKey("ec");
const ed = makeCdpKey("ed25519");
const msw = useCoinbaseFake({ cdpKeys: [ec, ed] });

const client = (key = ec, extra: Partial<ConstructorParameters<typeof AdvancedTradeClient>[0]> = {}) =>
  new AdvancedTradeClient({ keys: key, readTimeoutMs: 300, writeTimeoutMs: 300, backoffMs: 1, ...extra });

beforeEach(() => {
  msw.reset();
});

describe("CDP JWT", () => {
  test.each([
    ["ES256 from a SEC1 PEM", ec],
    ["EdDSA from a base64 Ed25519 secret", ed],
  ])(
    "%s: claims and header per docs/spec/exchange.md#what-we-use, verifiable with the public key",
    async (_name, key) => {
      const token = await buildCdpJwt({
        apiKey: key.apiKey,
        apiSecret: key.apiSecret,
        method: "post",
        host: "api.coinbase.com",
        path: "/api/v3/brokerage/orders",
        now: 1_800_000_000,
      });
      const header = decodeProtectedHeader(token);
      expect(header).toMatchObject({ alg: key.alg, kid: key.apiKey, typ: "JWT" });
      expect(String(header.nonce)).toMatch(/^[0-9a-f]{32}$/);
      const { payload } = await jwtVerify(token, key.publicKey, { currentDate: new Date(1_800_000_010_000) });
      expect(payload).toEqual({
        iss: "cdp",
        sub: key.apiKey,
        nbf: 1_800_000_000,
        exp: 1_800_000_120,
        uri: "POST api.coinbase.com/api/v3/brokerage/orders",
      });
    },
  );

  test("a PEM pasted on one line with literal \\n still works; a wrong secret is a clear AuthError", async () => {
    const oneLine = ec.apiSecret.replace(/\n/g, "\\n");
    expect(normalizeSecret(oneLine)).toBe(ec.apiSecret.trim());
    const token = await buildCdpJwt({ apiKey: ec.apiKey, apiSecret: oneLine, method: "GET", host: "h", path: "/p" });
    expect(decodeJwt(token).uri).toBe("GET h/p");
    await expect(
      buildCdpJwt({ apiKey: "k", apiSecret: "not a key", method: "GET", host: "h", path: "/p" }),
    ).rejects.toThrow(/neither an EC private key PEM nor a base64 Ed25519 key/);
  });

  test("every request carries a fresh token bound to its own method and path (no query)", async () => {
    const c = client();
    await c.listAccounts({ limit: 1 });
    await expect(c.getOrder("abc")).rejects.toThrow(NotFoundError);
    const [accounts, order] = msw.fake.state.requests;
    expect(accounts).toMatchObject({ method: "GET", path: "/accounts", authorized: true });
    expect(accounts!.query.get("limit")).toBe("1");
    expect(accounts!.jwt!.uri).toBe("GET api.coinbase.com/api/v3/brokerage/accounts");
    expect(order!.jwt!.uri).toBe("GET api.coinbase.com/api/v3/brokerage/orders/historical/abc");
  });
});

describe("errors in our words", () => {
  test("401: a key Coinbase does not know", async () => {
    const stranger = makeCdpKey("ec"); // not registered with the fake
    const error = await client(stranger)
      .listAccounts()
      .catch((e) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect(error.message).toMatch(/^Coinbase rejected the API key \(401 Unauthorized\)/);
    expect(error.message).not.toContain(stranger.apiSecret.slice(30, 60));
  });

  test("403 Missing required scopes names the missing permission", async () => {
    msw.fake.fail({
      path: "/orders",
      status: 403,
      body: {
        error: "PERMISSION_DENIED",
        message: "Missing required scopes",
        error_details: "Missing required scopes",
      },
    });
    const error = await client()
      .createOrder({
        client_order_id: "x",
        product_id: "BIP-20DEC30-CDE",
        side: "BUY",
        order_configuration: { market_market_ioc: { base_size: "1" } },
      })
      .catch((e) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect(error.message).toMatch(
      /lacks a required permission \(403 Missing required scopes\) for POST \/api\/v3\/brokerage\/orders: enable View and Trade/,
    );
  });

  test("404 is NotFoundError with Coinbase's message", async () => {
    const error = await client()
      .getOrder("missing")
      .catch((e) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toContain("order with this orderID was not found");
  });

  test("400 INVALID_ARGUMENT is a refusal (never retried)", async () => {
    const c = client();
    const error = await c
      .createOrder({
        client_order_id: "x",
        product_id: "BIP-20DEC30-CDE",
        side: "BUY",
        order_configuration: { market_market_ioc: { base_size: "one" } },
      })
      .catch((e) => e);
    expect(error).toBeInstanceOf(InvalidOrderError);
    expect(error.message).toMatch(
      /refused POST \/api\/v3\/brokerage\/orders \(HTTP 400\): INVALID_ARGUMENT: base_size must be a number/,
    );
    expect(msw.fake.requestsTo("/orders", "POST")).toHaveLength(1);
  });

  test("429 waits for Retry-After, then succeeds (reads and writes: nothing was processed)", async () => {
    msw.fake.fail({
      path: "/accounts",
      status: 429,
      body: { error: "RATE_LIMIT_EXCEEDED", message: "Too many requests" },
      headers: { "retry-after": "0.2" },
    });
    const started = Date.now();
    const answer = await client().listAccounts();
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(answer.accounts.length).toBeGreaterThan(0);
    expect(msw.fake.requestsTo("/accounts")).toHaveLength(2);

    msw.fake.fail({
      path: "/orders",
      status: 429,
      body: { error: "RATE_LIMIT_EXCEEDED" },
      headers: { "x-ratelimit-reset": "0" },
    });
    const created = await client().createOrder({
      client_order_id: "r1",
      product_id: "ETP-20DEC30-CDE",
      side: "BUY",
      order_configuration: { market_market_ioc: { base_size: "1" } },
    });
    expect(created.success).toBe(true);
    expect(msw.fake.ordersFor("r1")).toHaveLength(1);
  });

  test("429 every time ends in RateLimitError with the wait", async () => {
    msw.fake.fail({
      path: "/accounts",
      status: 429,
      body: { error: "RATE_LIMIT_EXCEEDED", message: "Too many requests" },
      headers: { "retry-after": "0" },
      times: 5,
    });
    const error = await client(ec, { maxAttempts: 2 })
      .listAccounts()
      .catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBe(0);
    expect(error.message).toMatch(/rate limit reached \(429\)/);
  });

  test("500 on a read is retried; on a write it is not (outcome unknown)", async () => {
    msw.fake.fail({ path: "/cfm/balance_summary", status: 500 });
    await expect(client().getBalanceSummary()).resolves.toHaveProperty("balance_summary");
    expect(msw.fake.requestsTo("/cfm/balance_summary")).toHaveLength(2);

    msw.fake.fail({ path: "/orders", status: 503, body: { error: "unknown", message: "service unavailable" } });
    const error = await client()
      .createOrder({
        client_order_id: "w1",
        product_id: "ETP-20DEC30-CDE",
        side: "BUY",
        order_configuration: { market_market_ioc: { base_size: "1" } },
      })
      .catch((e) => e);
    expect(error).toBeInstanceOf(TemporaryError);
    expect(error.message).toMatch(/Coinbase is unavailable \(HTTP 503\) for POST \/api\/v3\/brokerage\/orders/);
    expect(msw.fake.requestsTo("/orders", "POST")).toHaveLength(1);
  });

  test("a hanging request times out: NetworkError, and a write says the outcome is unknown", async () => {
    msw.fake.fail({ path: "/orders", hang: true });
    const started = Date.now();
    const error = await client()
      .createOrder({
        client_order_id: "h1",
        product_id: "ETP-20DEC30-CDE",
        side: "BUY",
        order_configuration: { market_market_ioc: { base_size: "1" } },
      })
      .catch((e) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toBe(
      "Coinbase did not answer POST /api/v3/brokerage/orders within 300 ms: the outcome is unknown",
    );
    expect(Date.now() - started).toBeLessThan(2000);

    msw.fake.fail({ path: "/accounts", hang: true, times: 3 });
    const read = await client(ec, { maxAttempts: 3 })
      .listAccounts()
      .catch((e) => e);
    expect(read).toBeInstanceOf(NetworkError);
    expect(msw.fake.requestsTo("/accounts")).toHaveLength(3);
  });

  test("the last-call hook sees failures and successes", async () => {
    const calls: { ok: boolean; status: number | null }[] = [];
    msw.fake.fail({ path: "/accounts", status: 500 });
    await client(ec, { onResult: (r) => calls.push({ ok: r.ok, status: r.status }) }).listAccounts();
    expect(calls).toEqual([
      { ok: false, status: 500 },
      { ok: true, status: 200 },
    ]);
  });
});

describe("clock skew, public data, limiter", () => {
  test("a 401 caused by our clock being off is corrected from Coinbase's /time and the call succeeds", async () => {
    msw.reset({ cdpKeys: [ec], clockOffsetS: 600 }); // Coinbase is 10 minutes ahead: our tokens look expired
    const answer = await client().listAccounts();
    expect(answer.accounts.length).toBeGreaterThan(0);
    expect(msw.fake.state.requests.map((r) => r.path)).toEqual(["/accounts", "/time", "/accounts"]);
  });

  test("without keys, products and the book come from the public endpoints, unsigned", async () => {
    const pub = new AdvancedTradeClient({ readTimeoutMs: 300 });
    const { products } = await pub.listProducts({ product_ids: ["BIP-20DEC30-CDE"] });
    expect(products).toHaveLength(1);
    expect((await pub.getPublicProductBook("ETP-20DEC30-CDE")).pricebook.bids[0]!.price).toBe("3399.5");
    expect(msw.fake.state.requests.map((r) => r.path)).toEqual(["/market/products", "/market/product_book"]);
    expect(msw.fake.state.requests.every((r) => r.jwt === undefined)).toBe(true);
    await expect(pub.listAccounts()).rejects.toThrow("No Coinbase API key is configured");
  });

  test("the limiter spaces requests at its rate, and a 429 pause holds everybody", async () => {
    const limiter = new RateLimiter(20); // 50 ms apart
    const started = Date.now();
    for (let i = 0; i < 5; i++) await limiter.take();
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    limiter.pauseUntil(Date.now() + 150);
    const paused = Date.now();
    await limiter.take();
    expect(Date.now() - paused).toBeGreaterThanOrEqual(140);
  });

  test("retry waits: Retry-After seconds or date, x-ratelimit-reset epoch or seconds, capped at 30 s", () => {
    const now = 1_800_000_000_000;
    expect(retryAfterMs(new Headers({ "retry-after": "2" }), now)).toBe(2000);
    expect(retryAfterMs(new Headers({ "retry-after": new Date(now + 5000).toUTCString() }), now)).toBe(5000);
    expect(retryAfterMs(new Headers({ "x-ratelimit-reset": String(now / 1000 + 3) }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({ "x-ratelimit-reset": "1" }), now)).toBe(1000);
    expect(retryAfterMs(new Headers({ "retry-after": "3600" }), now)).toBe(30_000);
    expect(retryAfterMs(new Headers(), now)).toBeNull();
  });
});
