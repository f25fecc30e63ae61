// A fake Coinbase for tests: MSW handlers that reproduce the documented request and response
// shapes of the Advanced Trade API v3 (CDP JWT auth) and the Coinbase Exchange API (HMAC +
// passphrase), with state (orders fill, positions net, portfolios and profiles move funds,
// reports go pending -> creating -> ready) and fault injection (any status, Retry-After,
// HTTP 200 success:false, hanging requests, an order processed and then no answer).
//
// Every signed request is verified: the JWT's signature with the key's public key, iss/sub/
// nbf/exp and the `uri` claim against the request actually received; the Exchange API's
// HMAC over timestamp + method + path + body with the base64-decoded secret, and the
// passphrase. A bad one answers 401 as Coinbase does.
//
// Used in-process by Vitest (setupServer) and over HTTP by tests/fakes/coinbase-server.ts.
import { generateKeyPairSync, randomBytes, randomUUID, type KeyObject } from "node:crypto";
import { decodeProtectedHeader, jwtVerify } from "jose";
import { http, HttpResponse, delay, type HttpHandler } from "msw";
import Big from "big.js";
import { exchangeSignature } from "#exchange/coinbase/exchange-client.ts";

// ---------------------------------------------------------------------------------------
// Keys

export interface CdpTestKey {
  apiKey: string;
  apiSecret: string;
  publicKey: KeyObject;
  alg: "ES256" | "EdDSA";
}

/** A CDP key as the portal hands it out: ECDSA (SEC1 PEM) or Ed25519 (base64 of seed + public key). */
export function makeCdpKey(kind: "ec" | "ed25519" = "ec"): CdpTestKey {
  const id = randomUUID();
  if (kind === "ec") {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
    const pem = privateKey.export({ type: "sec1", format: "pem" }).toString();
    return { apiKey: `organizations/${randomUUID()}/apiKeys/${id}`, apiSecret: pem, publicKey, alg: "ES256" };
  }
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const jwk = privateKey.export({ format: "jwk" }) as { d: string; x: string };
  const secret = Buffer.concat([Buffer.from(jwk.d, "base64url"), Buffer.from(jwk.x, "base64url")]).toString("base64");
  return { apiKey: id, apiSecret: secret, publicKey, alg: "EdDSA" };
}

export interface ExchangeTestKey {
  apiKey: string;
  apiSecret: string;
  passphrase: string;
}

export function makeExchangeKey(): ExchangeTestKey {
  return {
    apiKey: randomBytes(16).toString("hex"),
    apiSecret: randomBytes(64).toString("base64"),
    passphrase: randomBytes(8).toString("hex"),
  };
}

// ---------------------------------------------------------------------------------------
// State

export interface FakeProduct {
  product_id: string;
  price: string;
  contract_size: string;
  root: string;
  price_increment: string;
  change24h: string;
  volume24h: string;
  /** Defaults: "{root} PERP", EXPIRING on 2030-12-20, venue FCM, open for trading. */
  display_name?: string;
  contract_expiry_type?: string;
  contract_expiry?: string;
  product_venue?: string;
  trading_disabled?: boolean;
}

export const FAKE_PRODUCTS: FakeProduct[] = [
  {
    product_id: "BIP-20DEC30-CDE",
    price: "95000",
    contract_size: "0.01",
    root: "BTC",
    price_increment: "5",
    change24h: "2.5",
    volume24h: "120000",
  },
  {
    product_id: "ETP-20DEC30-CDE",
    price: "3400",
    contract_size: "0.1",
    root: "ETH",
    price_increment: "0.5",
    change24h: "-1.25",
    volume24h: "80000",
  },
  {
    product_id: "SLP-20DEC30-CDE",
    price: "180",
    contract_size: "5",
    root: "SOL",
    price_increment: "0.01",
    change24h: "4.1",
    volume24h: "30000",
  },
  {
    product_id: "XPP-20DEC30-CDE",
    price: "2.2",
    contract_size: "500",
    root: "XRP",
    price_increment: "0.0001",
    change24h: "-0.4",
    volume24h: "50000",
  },
];

/**
 * More of Coinbase's futures list, for the product catalog (decision 051): a DOGE perpetual
 * the app does not know built in, and three it must not take (an INTX perpetual, a dated BTC
 * future, a perpetual closed for trading).
 */
export const FAKE_MORE_FUTURES: FakeProduct[] = [
  {
    product_id: "DOP-20DEC30-CDE",
    price: "0.38",
    contract_size: "1000",
    root: "DOGE",
    price_increment: "0.00001",
    change24h: "3.2",
    volume24h: "9000",
  },
  {
    product_id: "BTC-PERP-INTX",
    price: "95010",
    contract_size: "0.0001",
    root: "BTC",
    price_increment: "0.1",
    change24h: "2.4",
    volume24h: "100",
    contract_expiry_type: "PERPETUAL",
    product_venue: "INTX",
  },
  {
    product_id: "BIT-26DEC26-CDE",
    price: "96000",
    contract_size: "0.01",
    root: "BTC",
    price_increment: "5",
    change24h: "2.1",
    volume24h: "500",
    display_name: "BTC 26 DEC 26",
    contract_expiry: "2026-12-26T16:00:00Z",
  },
  {
    product_id: "LCP-20DEC30-CDE",
    price: "95",
    contract_size: "5",
    root: "LTC",
    price_increment: "0.01",
    change24h: "0",
    volume24h: "0",
    trading_disabled: true,
  },
];

interface FakeOrder {
  order_id: string;
  client_order_id: string;
  product_id: string;
  side: "BUY" | "SELL";
  status: string;
  order_configuration: Record<string, Record<string, unknown>>;
  filled_size: string;
  average_filled_price: string;
  total_fees: string;
  leverage: string;
  margin_type: string;
  created_time: string;
  last_fill_time: string | null;
  product_type: string;
}

export interface Fault {
  method?: string;
  /** Matched against the path (a string: equality; a RegExp: test). */
  path: string | RegExp;
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Never answer (the client's timeout must fire). */
  hang?: boolean;
  /** Do the work first (e.g. create the order), then answer with the fault: an ambiguous outcome. */
  afterProcessing?: boolean;
  /** How many requests it applies to (default 1). */
  times?: number;
  /** A slow answer: the work is done, then the answer waits this long (with `status`: that error after the wait). */
  delayMs?: number;
}

export interface FakeRequest {
  method: string;
  host: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  authorized: boolean;
  jwt?: Record<string, unknown>;
}

export interface FakeCoinbaseOptions {
  /** Advanced Trade origin(s), e.g. https://api.coinbase.com (default) */
  atBase?: string;
  /** Coinbase Exchange base(s) (default https://api.exchange.coinbase.com) */
  exchangeBase?: string;
  cdpKeys?: CdpTestKey[];
  exchangeKeys?: ExchangeTestKey[];
  /** Position shape of /cfm/positions: bare strings (documented) or {value,currency} objects. */
  positionShape?: "strings" | "money";
  /** Coinbase's clock minus the real one, in seconds (to test skew handling). */
  clockOffsetS?: number;
  /** A market order stays OPEN for this many GETs before it fills (default 0). */
  fillAfterPolls?: number;
  /** false: POST /orders/edit refuses every order (an exchange without in-place edits). */
  editable?: boolean;
  /** Listed besides FAKE_PRODUCTS (e.g. FAKE_MORE_FUTURES). */
  extraProducts?: FakeProduct[];
  /**
   * Random faults (bench/chaos.ts): asked for every signed request that no `fail()` fault
   * matched; the fault it returns applies to that one request, null lets it through.
   */
  chaos?: (method: string, path: string, body: unknown) => Fault | null;
}

const now = () => new Date().toISOString();
const money = (value: string, currency = "USD") => ({ value, currency });

export function createCoinbaseFake(options: FakeCoinbaseOptions = {}) {
  const atBase = (options.atBase ?? "https://api.coinbase.com").replace(/\/+$/, "");
  const exBase = (options.exchangeBase ?? "https://api.exchange.coinbase.com").replace(/\/+$/, "");
  const AT = `${atBase}/api/v3/brokerage`;
  const cdpKeys = options.cdpKeys ?? [];
  const exchangeKeys = options.exchangeKeys ?? [];

  const state = {
    products: new Map([...FAKE_PRODUCTS, ...(options.extraProducts ?? [])].map((p) => [p.product_id, { ...p }])),
    orders: [] as FakeOrder[],
    /** product_id -> signed contracts (long > 0) and entry price */
    positions: new Map<string, { contracts: Big; entry: Big }>(),
    pollsSeen: new Map<string, number>(),
    /** Per product: which sides its book shows and how old its time is (null: no time); default both sides, now. */
    books: new Map<string, { sides: "both" | "bids" | "asks" | "none"; ageMs: number | null }>(),
    accounts: [
      { uuid: randomUUID(), name: "USD Wallet", currency: "USD", available: "25000", hold: "0" },
      { uuid: randomUUID(), name: "USDC Wallet", currency: "USDC", available: "1000", hold: "0" },
      { uuid: randomUUID(), name: "BTC Wallet", currency: "BTC", available: "0.5", hold: "0" },
    ],
    futuresBuyingPower: "20000",
    portfolios: [
      {
        uuid: randomUUID(),
        name: "Default",
        type: "DEFAULT",
        deleted: false,
        balances: new Map<string, Big>([["USD", new Big("5000")]]),
      },
    ],
    profiles: [] as {
      id: string;
      name: string;
      active: boolean;
      is_default: boolean;
      created_at: string;
      balances: Map<string, Big>;
    }[],
    reports: new Map<
      string,
      {
        id: string;
        type: string;
        status: string;
        format: string;
        created_at: string;
        completed_at: string | null;
        expires_at: string | null;
        polls: number;
        body: Record<string, unknown>;
      }
    >(),
    faults: [] as Fault[],
    requests: [] as FakeRequest[],
  };
  const defaultProfile = {
    id: randomUUID(),
    name: "default",
    active: true,
    is_default: true,
    created_at: now(),
    balances: new Map([
      ["USD", new Big("1000")],
      ["BTC", new Big("0.1")],
    ]),
  };
  state.profiles.push(defaultProfile);

  const fakeNow = () => Math.floor(Date.now() / 1000) + (options.clockOffsetS ?? 0);

  // --- auth ------------------------------------------------------------------------------

  async function verifyJwt(
    request: Request,
    url: URL,
  ): Promise<{ ok: true; claims: Record<string, unknown> } | { ok: false; why: string }> {
    const header = request.headers.get("authorization") ?? "";
    const match = /^Bearer ([\w-]+\.[\w-]+\.[\w-]+)$/.exec(header);
    if (!match) return { ok: false, why: "no bearer token" };
    const token = match[1]!;
    let kid: string | undefined;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      return { ok: false, why: "malformed token" };
    }
    const key = cdpKeys.find((k) => k.apiKey === kid);
    if (!key) return { ok: false, why: "unknown key" };
    try {
      const { payload, protectedHeader } = await jwtVerify(token, key.publicKey, {
        algorithms: [key.alg],
        issuer: "cdp",
        subject: key.apiKey,
        currentDate: new Date(fakeNow() * 1000),
        clockTolerance: 5,
      });
      if (!protectedHeader.nonce) return { ok: false, why: "no nonce" };
      const expected = `${request.method} ${url.host}${url.pathname}`;
      if (payload.uri !== expected) return { ok: false, why: `uri ${String(payload.uri)} != ${expected}` };
      if (typeof payload.exp !== "number" || typeof payload.nbf !== "number" || payload.exp - payload.nbf > 120)
        return { ok: false, why: "lifetime" };
      return { ok: true, claims: payload as Record<string, unknown> };
    } catch (error) {
      return { ok: false, why: (error as Error).message };
    }
  }

  function verifyHmac(request: Request, url: URL, body: string): boolean {
    const key = exchangeKeys.find((k) => k.apiKey === request.headers.get("cb-access-key"));
    if (!key) return false;
    const timestamp = request.headers.get("cb-access-timestamp") ?? "";
    if (!timestamp || Math.abs(Number(timestamp) - Date.now() / 1000) > 30) return false;
    if (request.headers.get("cb-access-passphrase") !== key.passphrase) return false;
    const expected = exchangeSignature(key.apiSecret, timestamp, request.method, `${url.pathname}${url.search}`, body);
    return request.headers.get("cb-access-sign") === expected;
  }

  function takeFault(method: string, path: string): Fault | null {
    const index = state.faults.findIndex(
      (f) => (!f.method || f.method === method) && (typeof f.path === "string" ? f.path === path : f.path.test(path)),
    );
    if (index < 0) return null;
    const fault = state.faults[index]!;
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) state.faults.splice(index, 1);
    return fault;
  }

  async function faultResponse(fault: Fault): Promise<Response> {
    if (fault.hang) await delay("infinite");
    const status = fault.status ?? 500;
    if (typeof fault.body === "string") return new HttpResponse(fault.body, { status, headers: fault.headers });
    return HttpResponse.json(
      (fault.body ?? { error: "INTERNAL", message: "Internal server error" }) as Record<string, unknown>,
      { status, headers: fault.headers },
    );
  }

  type Ctx = { request: Request; url: URL; params: Record<string, string>; body: any };
  type Work = (ctx: Ctx) => Response | Promise<Response>;

  /** Wraps a route: records it, applies faults, checks auth (kind), runs the work. */
  function route(
    method: "get" | "post" | "put" | "delete",
    base: string,
    path: string,
    kind: "jwt" | "hmac" | "public",
    work: Work,
  ): HttpHandler {
    return http[method](`${base}${path}`, async ({ request, params }) => {
      const url = new URL(request.url);
      const text = method === "get" || method === "delete" ? "" : await request.text();
      let body: unknown = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        return HttpResponse.json({ error: "INVALID_ARGUMENT", message: "malformed JSON" }, { status: 400 });
      }
      const prefix = new URL(base).pathname.replace(/\/+$/, "");
      const shortPath =
        prefix && url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) || "/" : url.pathname;
      const record: FakeRequest = {
        method: request.method,
        host: url.host,
        path: shortPath,
        query: url.searchParams,
        body,
        authorized: kind === "public",
      };
      state.requests.push(record);
      if (kind === "jwt") {
        const verdict = await verifyJwt(request, url);
        if (!verdict.ok) return new HttpResponse("Unauthorized", { status: 401 });
        record.authorized = true;
        record.jwt = verdict.claims;
      } else if (kind === "hmac") {
        if (!verifyHmac(request, url, text))
          return HttpResponse.json({ message: "invalid signature" }, { status: 401 });
        record.authorized = true;
      }
      const fault =
        takeFault(request.method, shortPath) ??
        (kind === "public" ? null : (options.chaos?.(request.method, shortPath, body) ?? null));
      if (fault && !fault.afterProcessing && fault.delayMs === undefined) return faultResponse(fault);
      const response = await work({ request, url, params: params as Record<string, string>, body });
      if (fault?.delayMs !== undefined) {
        await delay(fault.delayMs);
        if (fault.status === undefined && !fault.afterProcessing) return response;
      }
      if (fault) return faultResponse(fault);
      return response;
    });
  }

  // --- Advanced Trade --------------------------------------------------------------------

  const wireProduct = (p: FakeProduct) => ({
    product_id: p.product_id,
    price: p.price,
    price_percentage_change_24h: p.change24h,
    volume_24h: p.volume24h,
    base_increment: "1",
    quote_increment: p.price_increment,
    price_increment: p.price_increment,
    quote_min_size: "0",
    quote_max_size: "100000000",
    base_min_size: "1",
    base_max_size: "100000",
    status: "",
    trading_disabled: p.trading_disabled ?? false,
    cancel_only: false,
    limit_only: false,
    post_only: false,
    auction_mode: false,
    product_type: "FUTURE",
    base_currency_id: "",
    quote_currency_id: "USD",
    display_name: p.display_name ?? `${p.root} PERP`,
    product_venue: p.product_venue ?? "FCM",
    future_product_details: {
      contract_code: p.product_id.slice(0, 3),
      contract_size: p.contract_size,
      contract_root_unit: p.root,
      contract_expiry: p.contract_expiry ?? "2030-12-20T16:00:00Z",
      contract_expiry_type: p.contract_expiry_type ?? "EXPIRING",
      funding_interval: "3600s",
      open_interest: "1000",
    },
  });

  const badRequest = (message: string, error = "INVALID_ARGUMENT") =>
    HttpResponse.json({ error, message, error_details: message }, { status: 400 });

  function fill(order: FakeOrder, price: Big) {
    if (order.status === "OPEN" && order.filled_size !== "0") {
      // The rest of a partly filled resting order.
      fillPart(order, new Big(baseSize(order)).minus(order.filled_size), price);
      return;
    }
    const product = state.products.get(order.product_id)!;
    const contracts = new Big(order.filled_size === "0" ? baseSize(order) : order.filled_size);
    const notional = contracts.times(product.contract_size).times(price);
    order.status = "FILLED";
    order.filled_size = contracts.toString();
    order.average_filled_price = price.toString();
    order.total_fees = notional.times("0.0003").round(2).toString();
    order.last_fill_time = now();
    movePosition(order, contracts, price);
  }

  /** Part of a resting order fills (`contracts` more): it stays OPEN until all of it has. */
  function fillPart(order: FakeOrder, contracts: Big, price: Big) {
    const product = state.products.get(order.product_id)!;
    const before = new Big(order.filled_size);
    const after = before.plus(contracts);
    const average = before.eq(0)
      ? price
      : before.times(order.average_filled_price).plus(contracts.times(price)).div(after);
    order.filled_size = after.toString();
    order.average_filled_price = average.round(8).toString();
    order.total_fees = new Big(order.total_fees || "0")
      .plus(contracts.times(product.contract_size).times(price).times("0.0003").round(2))
      .toString();
    order.last_fill_time = now();
    if (after.gte(baseSize(order))) order.status = "FILLED";
    movePosition(order, contracts, price);
  }

  function movePosition(order: FakeOrder, contracts: Big, price: Big) {
    const signed = order.side === "BUY" ? contracts : contracts.times(-1);
    const current = state.positions.get(order.product_id) ?? { contracts: new Big(0), entry: price };
    const next = current.contracts.plus(signed);
    const sameDirection = current.contracts.eq(0) || current.contracts.gt(0) === signed.gt(0);
    const entry =
      sameDirection && !next.eq(0)
        ? current.contracts.abs().times(current.entry).plus(contracts.times(price)).div(next.abs())
        : next.eq(0)
          ? price
          : current.contracts.abs().gt(contracts)
            ? current.entry
            : price;
    if (next.eq(0)) state.positions.delete(order.product_id);
    else state.positions.set(order.product_id, { contracts: next, entry });
  }

  const baseSize = (order: FakeOrder) => {
    const config = Object.values(order.order_configuration)[0] ?? {};
    return String(config.base_size ?? "0");
  };

  function newOrder(body: any, closing = false): FakeOrder | Response {
    // A size refused as Advanced Trade does: HTTP 200, success:false, the reason as a code
    // (exchange/coinbase/refusals.ts); the message is free text.
    const sizeRefused = (code: string, message: string) =>
      HttpResponse.json({
        success: false,
        failure_reason: "UNKNOWN_FAILURE_REASON",
        error_response: {
          error: "UNKNOWN_FAILURE_REASON",
          message,
          error_details: message,
          preview_failure_reason: code,
        },
      });
    const product = state.products.get(body?.product_id);
    if (!body?.client_order_id) return badRequest("client_order_id is required");
    if (!product) {
      return HttpResponse.json({
        success: false,
        error_response: {
          error: "INVALID_PRODUCT_ID",
          message: "Invalid product_id",
          error_details: "",
          new_order_failure_reason: "INVALID_PRODUCT_ID",
        },
      });
    }
    let configuration: Record<string, Record<string, unknown>>;
    let side: "BUY" | "SELL";
    if (closing) {
      const position = state.positions.get(product.product_id);
      if (!position) return badRequest("no open position to close", "NO_POSITION");
      const size = body.size ? new Big(body.size) : position.contracts.abs();
      if (size.gt(position.contracts.abs()))
        return sizeRefused("PREVIEW_INVALID_BASE_SIZE_TOO_LARGE", "size exceeds the position");
      configuration = { market_market_ioc: { base_size: size.toString() } };
      side = position.contracts.gt(0) ? "SELL" : "BUY";
    } else {
      const keys = Object.keys(body.order_configuration ?? {});
      if (keys.length !== 1) return badRequest("exactly one order_configuration is required");
      configuration = body.order_configuration;
      side = body.side;
      if (side !== "BUY" && side !== "SELL") return badRequest("side must be BUY or SELL");
      const config = configuration[keys[0]!]!;
      if (!/^\d+(\.\d+)?$/.test(String(config.base_size ?? "")))
        return badRequest("base_size must be a number of contracts");
      if (!/^\d+$/.test(String(config.base_size)))
        return sizeRefused("PREVIEW_INVALID_SIZE_PRECISION", "base_size must be a whole number of contracts");
      if (new Big(String(config.base_size)).lt(1))
        return sizeRefused("PREVIEW_INVALID_BASE_SIZE_TOO_SMALL", "base_size is below one contract");
      if (keys[0] !== "market_market_ioc" && !(Number(config.limit_price) > 0))
        return badRequest("limit_price is required");
      if (keys[0] === "stop_limit_stop_limit_gtc") {
        if (!(Number(config.stop_price) > 0)) return badRequest("stop_price is required");
        if (config.stop_direction !== "STOP_DIRECTION_STOP_UP" && config.stop_direction !== "STOP_DIRECTION_STOP_DOWN")
          return badRequest("stop_direction is required");
      }
    }
    const order: FakeOrder = {
      order_id: randomUUID(),
      client_order_id: body.client_order_id,
      product_id: product.product_id,
      side,
      status: "OPEN",
      order_configuration: configuration,
      filled_size: "0",
      average_filled_price: "0",
      total_fees: "0",
      leverage: String(body.leverage ?? "1"),
      margin_type: body.margin_type ?? "CROSS",
      created_time: now(),
      last_fill_time: null,
      product_type: "FUTURE",
    };
    state.orders.push(order);
    // Limits and stops rest (a stop fills when setPrice crosses its stop price).
    const limit =
      configuration.limit_limit_gtc ?? configuration.limit_limit_gtd ?? configuration.stop_limit_stop_limit_gtc;
    if (!limit && !(options.fillAfterPolls ?? 0)) fill(order, new Big(product.price));
    return order;
  }

  /** A product's top of book one tick either side of its price, as `setBook` shapes it (sides shown, the book's own time). */
  function bookOf(p: FakeProduct, bidSize: string, askSize: string) {
    const shape = state.books.get(p.product_id) ?? { sides: "both", ageMs: 0 };
    const tick = new Big(p.price_increment);
    const bids =
      shape.sides === "both" || shape.sides === "bids"
        ? [{ price: new Big(p.price).minus(tick).toString(), size: bidSize }]
        : [];
    const asks =
      shape.sides === "both" || shape.sides === "asks"
        ? [{ price: new Big(p.price).plus(tick).toString(), size: askSize }]
        : [];
    return { bids, asks, ...(shape.ageMs === null ? {} : { time: new Date(Date.now() - shape.ageMs).toISOString() }) };
  }

  /** Resting stops the product's current price has crossed trigger and fill at their stop price. */
  function triggerStops(productId: string) {
    const price = Number(state.products.get(productId)!.price);
    for (const order of state.orders) {
      const stop = order.order_configuration.stop_limit_stop_limit_gtc;
      if (!stop || order.status !== "OPEN" || order.product_id !== productId) continue;
      const down = stop.stop_direction === "STOP_DIRECTION_STOP_DOWN";
      if (down ? price <= Number(stop.stop_price) : price >= Number(stop.stop_price))
        fill(order, new Big(String(stop.stop_price)));
    }
  }

  const created = (order: FakeOrder) =>
    HttpResponse.json({
      success: true,
      success_response: {
        order_id: order.order_id,
        product_id: order.product_id,
        side: order.side,
        client_order_id: order.client_order_id,
      },
      order_configuration: order.order_configuration,
    });

  const wireOrder = (order: FakeOrder) => {
    // A market order held back by fillAfterPolls fills after that many reads.
    if (order.status === "OPEN" && order.order_configuration.market_market_ioc) {
      const seen = (state.pollsSeen.get(order.order_id) ?? 0) + 1;
      state.pollsSeen.set(order.order_id, seen);
      if (seen > (options.fillAfterPolls ?? 0)) fill(order, new Big(state.products.get(order.product_id)!.price));
    }
    return {
      ...order,
      number_of_fills: order.status === "FILLED" ? "1" : "0",
      order_type: order.order_configuration.market_market_ioc ? "MARKET" : "LIMIT",
      time_in_force: "GOOD_UNTIL_CANCELLED",
    };
  };

  const positionOut = (productId: string, p: { contracts: Big; entry: Big }) => {
    const product = state.products.get(productId)!;
    const mark = new Big(product.price);
    const pnl = mark.minus(p.entry).times(p.contracts).times(product.contract_size).round(2).toString();
    const side = p.contracts.gt(0) ? "LONG" : "SHORT";
    if (options.positionShape === "money") {
      return {
        product_id: productId,
        side,
        number_of_contracts: p.contracts.abs().toString(),
        current_price: money(product.price),
        avg_entry_price: money(p.entry.toString()),
        entry_vwap: money(p.entry.toString()),
        unrealized_pnl: money(pnl),
        daily_realized_pnl: money("0"),
        // The fake's own margin model: 30 % against the position from its entry.
        liquidation_price: money(
          p.entry
            .times(p.contracts.gt(0) ? "0.7" : "1.3")
            .round(2)
            .toString(),
        ),
        leverage: "3",
        margin_type: "MARGIN_TYPE_CROSS",
      };
    }
    return {
      product_id: productId,
      expiration_time: "2030-12-20T16:00:00Z",
      side,
      number_of_contracts: p.contracts.abs().toString(),
      current_price: product.price,
      avg_entry_price: p.entry.toString(),
      unrealized_pnl: pnl,
      daily_realized_pnl: "0",
    };
  };

  const portfolioBalances = (p: (typeof state.portfolios)[number]) =>
    [...p.balances.entries()].map(([asset, amount]) => ({
      asset,
      total_balance_crypto: Number(amount),
      available_to_trade_crypto: Number(amount),
      available_to_trade_fiat: Number(amount),
    }));

  /** A spot reference (BTC-USD ...) at its perp's price, or null. */
  const spotOf = (id: string) => {
    const spot = /^([A-Z]+)-USD$/.exec(id);
    const perp = spot ? [...state.products.values()].find((p) => p.root === spot[1]) : undefined;
    return perp
      ? {
          product_id: id,
          price: perp.price,
          product_type: "SPOT",
          base_currency_id: spot![1],
          quote_currency_id: "USD",
          status: "online",
        }
      : null;
  };

  const advancedTrade: HttpHandler[] = [
    route("get", AT, "/time", "public", () => {
      const s = fakeNow();
      return HttpResponse.json({
        iso: new Date(s * 1000).toISOString(),
        epochSeconds: String(s),
        epochMillis: String(s * 1000),
      });
    }),
    route("get", AT, "/market/products", "public", ({ url }) => {
      const ids = url.searchParams.getAll("product_ids");
      const type = url.searchParams.get("product_type");
      const products = [
        ...[...state.products.values()]
          .filter((p) => (ids.length === 0 ? type !== "SPOT" : ids.includes(p.product_id)))
          .map(wireProduct),
        // Spot references asked for by id (the simulator's price feed): each the perp's price.
        ...ids.flatMap((id) => {
          const spot = spotOf(id);
          return spot ? [spot] : [];
        }),
      ];
      return HttpResponse.json({ products, num_products: products.length });
    }),
    route("get", AT, "/market/products/:id", "public", ({ params }) => {
      const spot = spotOf(params.id!);
      if (spot) return HttpResponse.json(spot);
      const p = state.products.get(params.id!);
      return p
        ? HttpResponse.json(wireProduct(p))
        : HttpResponse.json({ error: "NOT_FOUND", message: "product not found" }, { status: 404 });
    }),
    route("get", AT, "/market/product_book", "public", ({ url }) => {
      const p = state.products.get(url.searchParams.get("product_id") ?? "");
      if (!p) return HttpResponse.json({ error: "NOT_FOUND", message: "product not found" }, { status: 404 });
      const _tick = new Big(p.price_increment);
      return HttpResponse.json({
        pricebook: { product_id: p.product_id, ...bookOf(p, "10", "12") },
        last: p.price,
        mid_market: p.price,
      });
    }),
    route("get", AT, "/products", "jwt", ({ url }) => {
      const ids = url.searchParams.getAll("product_ids");
      const products = [...state.products.values()]
        .filter((p) => ids.length === 0 || ids.includes(p.product_id))
        .map(wireProduct);
      return HttpResponse.json({ products, num_products: products.length });
    }),
    route("get", AT, "/products/:id", "jwt", ({ params }) => {
      const p = state.products.get(params.id!);
      return p
        ? HttpResponse.json(wireProduct(p))
        : HttpResponse.json({ error: "NOT_FOUND", message: "product not found", error_details: "" }, { status: 404 });
    }),
    route("get", AT, "/best_bid_ask", "jwt", ({ url }) => {
      const ids = url.searchParams.getAll("product_ids");
      const pricebooks = ids.flatMap((id) => {
        const p = state.products.get(id);
        if (!p) return [];
        return [{ product_id: id, ...bookOf(p, "3", "4") }];
      });
      return HttpResponse.json({ pricebooks });
    }),
    route("post", AT, "/orders", "jwt", ({ body }) => {
      const order = newOrder(body);
      return order instanceof Response ? order : created(order);
    }),
    route("post", AT, "/orders/close_position", "jwt", ({ body }) => {
      const order = newOrder(body, true);
      return order instanceof Response ? order : created(order);
    }),
    // Edits a resting limit or stop-limit GTC order in place (price = limit, size, stop_price);
    // a stop edited past the current price triggers at once, as on the exchange.
    route("post", AT, "/orders/edit", "jwt", ({ body }) => {
      const order = state.orders.find((o) => o.order_id === body?.order_id);
      if (!order)
        return HttpResponse.json(
          { error: "NOT_FOUND", message: "order with this orderID was not found", error_details: "" },
          { status: 404 },
        );
      const config = order.order_configuration.stop_limit_stop_limit_gtc ?? order.order_configuration.limit_limit_gtc;
      const refuse = (reason: string) =>
        HttpResponse.json({ success: false, errors: [{ edit_failure_reason: reason }] });
      if (!config || options.editable === false) return refuse("EDIT_FAILURE_REASON_UNSUPPORTED_ORDER_CONFIGURATION");
      if (order.status !== "OPEN") return refuse("EDIT_FAILURE_REASON_ORDER_NOT_OPEN");
      if (
        body.size !== undefined &&
        (!/^\d+$/.test(String(body.size)) || new Big(String(body.size)).lte(order.filled_size))
      )
        return refuse("EDIT_FAILURE_REASON_INVALID_SIZE");
      if (body.price !== undefined) config.limit_price = String(body.price);
      if (body.size !== undefined) config.base_size = String(body.size);
      if (body.stop_price !== undefined && order.order_configuration.stop_limit_stop_limit_gtc)
        config.stop_price = String(body.stop_price);
      triggerStops(order.product_id);
      return HttpResponse.json({ success: true, errors: [] });
    }),
    route("post", AT, "/orders/batch_cancel", "jwt", ({ body }) => {
      const results = ((body?.order_ids ?? []) as string[]).map((id) => {
        const order = state.orders.find((o) => o.order_id === id);
        if (!order) return { success: false, failure_reason: "UNKNOWN_CANCEL_ORDER", order_id: id };
        if (order.status !== "OPEN")
          return { success: false, failure_reason: "DUPLICATE_CANCEL_REQUEST", order_id: id };
        order.status = "CANCELLED";
        return { success: true, failure_reason: "UNKNOWN_CANCEL_FAILURE_REASON", order_id: id };
      });
      return HttpResponse.json({ results });
    }),
    route("get", AT, "/orders/historical/batch", "jwt", ({ url }) => {
      const ids = url.searchParams.getAll("product_ids");
      const limit = Number(url.searchParams.get("limit") ?? "100");
      const offset = Number(url.searchParams.get("cursor") || "0");
      const start = url.searchParams.get("start_date");
      const all = state.orders
        .filter(
          (o) =>
            (ids.length === 0 || ids.includes(o.product_id)) &&
            (!start || o.created_time >= new Date(start).toISOString()),
        )
        .reverse();
      const page = all.slice(offset, offset + limit).map(wireOrder);
      const hasNext = offset + limit < all.length;
      return HttpResponse.json({ orders: page, has_next: hasNext, cursor: hasNext ? String(offset + limit) : "" });
    }),
    route("get", AT, "/orders/historical/fills", "jwt", ({ url }) => {
      const orderIds = url.searchParams.getAll("order_ids");
      const productIds = url.searchParams.getAll("product_ids");
      const fills = state.orders
        .filter((o) => o.status === "FILLED" || new Big(o.filled_size).gt(0))
        .filter(
          (o) =>
            (orderIds.length === 0 || orderIds.includes(o.order_id)) &&
            (productIds.length === 0 || productIds.includes(o.product_id)),
        )
        .map((o) => ({
          entry_id: `e-${o.order_id}`,
          trade_id: `t-${o.order_id}`,
          order_id: o.order_id,
          trade_time: o.last_fill_time,
          trade_type: "FILL",
          price: o.average_filled_price,
          size: o.filled_size,
          commission: o.total_fees,
          product_id: o.product_id,
          sequence_timestamp: o.last_fill_time,
          liquidity_indicator: "TAKER",
          size_in_quote: false,
          side: o.side,
        }));
      return HttpResponse.json({ fills, cursor: "" });
    }),
    route("get", AT, "/orders/historical/:id", "jwt", ({ params }) => {
      const order = state.orders.find((o) => o.order_id === params.id);
      if (!order)
        return HttpResponse.json(
          { error: "NOT_FOUND", message: "order with this orderID was not found", error_details: "" },
          { status: 404 },
        );
      return HttpResponse.json({ order: wireOrder(order) });
    }),
    route("get", AT, "/accounts", "jwt", ({ url }) => {
      const limit = Number(url.searchParams.get("limit") ?? "49");
      const accounts = state.accounts.slice(0, limit).map((a) => ({
        uuid: a.uuid,
        name: a.name,
        currency: a.currency,
        available_balance: money(a.available, a.currency),
        default: false,
        active: true,
        created_at: "2026-01-01T00:00:00Z",
        type: a.currency === "USD" ? "ACCOUNT_TYPE_FIAT" : "ACCOUNT_TYPE_CRYPTO",
        ready: true,
        hold: money(a.hold, a.currency),
        retail_portfolio_id: state.portfolios[0]!.uuid,
        platform: "ACCOUNT_PLATFORM_CONSUMER",
      }));
      return HttpResponse.json({ accounts, has_next: false, cursor: "", size: accounts.length });
    }),
    route("get", AT, "/cfm/balance_summary", "jwt", () =>
      HttpResponse.json({
        balance_summary: {
          futures_buying_power: money(state.futuresBuyingPower),
          total_usd_balance: money("25000"),
          cbi_usd_balance: money("5000"),
          cfm_usd_balance: money("20000"),
          total_open_orders_hold_amount: money("0"),
          unrealized_pnl: money("0"),
          daily_realized_pnl: money("0"),
          initial_margin: money("150"),
          available_margin: money("19850"),
          liquidation_threshold: money("0"),
          liquidation_buffer_amount: money("19850"),
          liquidation_buffer_percentage: "100",
        },
      }),
    ),
    route("get", AT, "/cfm/positions", "jwt", () =>
      HttpResponse.json({ positions: [...state.positions.entries()].map(([id, p]) => positionOut(id, p)) }),
    ),
    route("get", AT, "/cfm/positions/:id", "jwt", ({ params }) => {
      const p = state.positions.get(params.id!);
      return p
        ? HttpResponse.json({ position: positionOut(params.id!, p) })
        : HttpResponse.json({ error: "NOT_FOUND", message: "no position" }, { status: 404 });
    }),
    route("get", AT, "/portfolios", "jwt", () =>
      HttpResponse.json({
        portfolios: state.portfolios
          .filter((p) => !p.deleted)
          .map((p) => ({ name: p.name, uuid: p.uuid, type: p.type, deleted: false })),
      }),
    ),
    route("post", AT, "/portfolios", "jwt", ({ body }) => {
      if (!body?.name) return badRequest("name is required");
      const p = {
        uuid: randomUUID(),
        name: String(body.name),
        type: "CONSUMER",
        deleted: false,
        balances: new Map<string, Big>(),
      };
      state.portfolios.push(p);
      return HttpResponse.json({ portfolio: { name: p.name, uuid: p.uuid, type: p.type, deleted: false } });
    }),
    route("post", AT, "/portfolios/move_funds", "jwt", ({ body }) => {
      const from = state.portfolios.find((p) => p.uuid === body?.source_portfolio_uuid && !p.deleted);
      const to = state.portfolios.find((p) => p.uuid === body?.target_portfolio_uuid && !p.deleted);
      if (!from || !to)
        return HttpResponse.json({ error: "NOT_FOUND", message: "portfolio not found" }, { status: 404 });
      const currency = String(body.funds?.currency ?? "");
      const amount = new Big(String(body.funds?.value ?? "0"));
      const have = from.balances.get(currency) ?? new Big(0);
      if (amount.gt(have)) return badRequest("insufficient funds in source portfolio", "INSUFFICIENT_FUNDS");
      from.balances.set(currency, have.minus(amount));
      to.balances.set(currency, (to.balances.get(currency) ?? new Big(0)).plus(amount));
      return HttpResponse.json({ source_portfolio_uuid: from.uuid, target_portfolio_uuid: to.uuid });
    }),
    route("get", AT, "/portfolios/:id", "jwt", ({ params }) => {
      const p = state.portfolios.find((x) => x.uuid === params.id && !x.deleted);
      if (!p) return HttpResponse.json({ error: "NOT_FOUND", message: "portfolio not found" }, { status: 404 });
      return HttpResponse.json({
        breakdown: {
          portfolio: { name: p.name, uuid: p.uuid, type: p.type, deleted: false },
          spot_positions: portfolioBalances(p),
        },
      });
    }),
    route("delete", AT, "/portfolios/:id", "jwt", ({ params }) => {
      const p = state.portfolios.find((x) => x.uuid === params.id && !x.deleted);
      if (!p) return HttpResponse.json({ error: "NOT_FOUND", message: "portfolio not found" }, { status: 404 });
      if (p.type === "DEFAULT") return badRequest("the default portfolio cannot be deleted");
      p.deleted = true;
      return HttpResponse.json({});
    }),
  ];

  // --- Coinbase Exchange -------------------------------------------------------------------

  const profileOut = (p: (typeof state.profiles)[number]) => ({
    id: p.id,
    user_id: "u-1",
    name: p.name,
    active: p.active,
    is_default: p.is_default,
    created_at: p.created_at,
  });
  const exError = (status: number, message: string) => HttpResponse.json({ message }, { status });

  const exchange: HttpHandler[] = [
    route("get", exBase, "/profiles", "hmac", ({ url }) => {
      const activeOnly = url.searchParams.get("active") === "true";
      return HttpResponse.json(state.profiles.filter((p) => !activeOnly || p.active).map(profileOut));
    }),
    route("post", exBase, "/profiles", "hmac", ({ body }) => {
      if (!body?.name) return exError(400, "name is required");
      const p = {
        id: randomUUID(),
        name: String(body.name),
        active: true,
        is_default: false,
        created_at: now(),
        balances: new Map<string, Big>(),
      };
      state.profiles.push(p);
      return HttpResponse.json(profileOut(p));
    }),
    route("post", exBase, "/profiles/transfer", "hmac", ({ body }) => {
      for (const field of ["from", "to", "currency", "amount"])
        if (!body?.[field]) return exError(400, `${field} is required`);
      const from = state.profiles.find((p) => p.id === body.from && p.active);
      const to = state.profiles.find((p) => p.id === body.to && p.active);
      if (!from || !to) return exError(404, "profile not found");
      const amount = new Big(body.amount);
      const have = from.balances.get(body.currency) ?? new Big(0);
      if (amount.gt(have)) return exError(400, "Insufficient funds");
      from.balances.set(body.currency, have.minus(amount));
      to.balances.set(body.currency, (to.balances.get(body.currency) ?? new Big(0)).plus(amount));
      return HttpResponse.json({});
    }),
    route("put", exBase, "/profiles/:id/deactivate", "hmac", ({ params, body }) => {
      const p = state.profiles.find((x) => x.id === params.id && x.active);
      const to = state.profiles.find((x) => x.id === body?.to && x.active);
      if (!p) return exError(404, "profile not found");
      if (!to || body?.profile_id !== p.id) return exError(400, "a destination profile is required");
      if (p.is_default) return exError(400, "the default profile cannot be deleted");
      for (const [currency, amount] of p.balances)
        to.balances.set(currency, (to.balances.get(currency) ?? new Big(0)).plus(amount));
      p.balances.clear();
      p.active = false;
      return HttpResponse.json({});
    }),
    route("get", exBase, "/accounts", "hmac", () =>
      HttpResponse.json(
        [...defaultProfile.balances.entries()].map(([currency, amount]) => ({
          id: randomUUID(),
          currency,
          balance: amount.toFixed(16),
          available: amount.toFixed(16),
          hold: "0.0000000000000000",
          profile_id: defaultProfile.id,
          trading_enabled: true,
        })),
      ),
    ),
    route("post", exBase, "/reports", "hmac", ({ body }) => {
      const wire = String(body?.type ?? "");
      const key = wire === "otc-fills" ? "otc_fills" : wire;
      if (!["fills", "account", "balance", "otc-fills"].includes(wire))
        return exError(400, `invalid report type ${wire}`);
      if (!body[key] || typeof body[key] !== "object") return exError(400, `${key} is required for ${wire} reports`);
      if (!["csv", "pdf"].includes(body.format)) return exError(400, "format must be csv or pdf");
      const r = {
        id: randomUUID(),
        type: wire,
        status: "pending",
        format: body.format,
        created_at: now(),
        completed_at: null,
        expires_at: null,
        polls: 0,
        body,
      };
      state.reports.set(r.id, r);
      return HttpResponse.json({ id: r.id, type: r.type, status: r.status });
    }),
    route("get", exBase, "/reports/:id", "hmac", ({ params }) => {
      const r = state.reports.get(params.id!);
      if (!r) return exError(404, "report not found");
      r.polls += 1;
      if (r.status === "pending") r.status = "creating";
      else if (r.status === "creating") {
        r.status = "ready";
        r.completed_at = now();
        r.expires_at = new Date(Date.now() + 7 * 86_400_000).toISOString();
      }
      return HttpResponse.json({
        id: r.id,
        type: r.type,
        status: r.status,
        created_at: r.created_at,
        completed_at: r.completed_at,
        expires_at: r.expires_at,
        user_id: "u-1",
        file_url: r.status === "ready" ? `${exBase}/files/${r.id}.${r.format}` : null,
        params: { format: r.format, ...(r.body[r.type === "otc-fills" ? "otc_fills" : r.type] as object) },
      });
    }),
    route("get", exBase, "/files/:file", "public", ({ params }) => {
      const [id, format] = String(params.file).split(".");
      const r = state.reports.get(id ?? "");
      if (r?.status !== "ready") return new HttpResponse("Not found", { status: 404 });
      if (format === "csv")
        return new HttpResponse(
          `portfolio,trade id,product,side,created at,size,price,fee\ndefault,1,BTC-USD,BUY,${r.created_at},0.01,95000,0.28\n`,
          { headers: { "content-type": "text/csv" } },
        );
      return new HttpResponse(Buffer.from("%PDF-1.4\n% fake report\n"), {
        headers: { "content-type": "application/pdf" },
      });
    }),
  ];

  return {
    handlers: [...advancedTrade, ...exchange],
    state,
    atBase,
    exchangeBase: exBase,
    /** Makes the next matching request(s) fail as described. */
    fail(fault: Fault) {
      state.faults.push({ times: 1, ...fault });
    },
    /** Fills a resting order at its limit price (or `price`), as the market would. */
    /** Fills `contracts` of a resting order (it stays open until wholly filled). */
    fillOrderPart(orderId: string, contracts: string, price?: string) {
      const order = state.orders.find((o) => o.order_id === orderId);
      if (order?.status !== "OPEN") throw new Error(`no open order ${orderId}`);
      const config = Object.values(order.order_configuration)[0] ?? {};
      fillPart(
        order,
        new Big(contracts),
        new Big(price ?? String(config.limit_price ?? state.products.get(order.product_id)!.price)),
      );
    },
    fillOrder(orderId: string, price?: string) {
      const order = state.orders.find((o) => o.order_id === orderId);
      if (order?.status !== "OPEN") throw new Error(`no open order ${orderId}`);
      const config = Object.values(order.order_configuration)[0] ?? {};
      fill(order, new Big(price ?? String(config.limit_price ?? state.products.get(order.product_id)!.price)));
    },
    /** Shapes a product's book: which sides it shows and how old the time it reports is (null: none). */
    setBook(productId: string, shape: { sides?: "both" | "bids" | "asks" | "none"; ageMs?: number | null }) {
      state.books.set(productId, { sides: shape.sides ?? "both", ageMs: shape.ageMs === undefined ? 0 : shape.ageMs });
    },
    /** Moves the price; resting stop orders it crosses trigger and fill at their stop price. */
    setPrice(productId: string, price: string) {
      state.products.get(productId)!.price = price;
      triggerStops(productId);
    },
    requestsTo(path: string | RegExp, method?: string) {
      return state.requests.filter(
        (r) => (!method || r.method === method) && (typeof path === "string" ? r.path === path : path.test(r.path)),
      );
    },
    ordersFor(clientOrderId: string) {
      return state.orders.filter((o) => o.client_order_id === clientOrderId);
    },
  };
}

export type CoinbaseFake = ReturnType<typeof createCoinbaseFake>;
