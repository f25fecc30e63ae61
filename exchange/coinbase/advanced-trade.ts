// A small hand-written client for Coinbase's Advanced Trade API v3 (docs/spec/exchange.md, docs/decisions/009-coinbase-connector.md):
// fetch + a CDP JWT per request. It speaks Coinbase's wire format (snake_case, decimal
// strings); CoinbaseAdapter turns that into our types.
//
// - Private calls are signed (Authorization: Bearer <jwt>); public market data
//   (/market/*, /time) is not, and has its own, lower rate limit.
// - A 401 on a signed call first checks our clock against Coinbase's /time: when it is off by
//   more than 5 s, the request is signed again with Coinbase's time (clock skew tolerated).
import { buildCdpJwt } from "./jwt.ts";
import { AT_PREFIX, AT_PRODUCTION_URL } from "./config.ts";
import { type ClientTransportOptions, type FetchFn, type RateLimiter, limiterFor, send, withQuery } from "./http.ts";
import { AuthError } from "#app/core/exchange/errors.ts";

// Documented limits: ~30 req/s per user (private), 10 req/s per IP (public). We use 80 %.
export const PRIVATE_RATE = 24;
export const PUBLIC_RATE = 8;

export type Money = { value: string; currency: string };
export type MaybeMoney = string | Money | null | undefined;

export interface WireOrderConfiguration {
  market_market_ioc?: { base_size?: string; quote_size?: string };
  limit_limit_gtc?: { base_size: string; limit_price: string; post_only?: boolean };
  limit_limit_gtd?: { base_size: string; limit_price: string; end_time: string; post_only?: boolean };
  stop_limit_stop_limit_gtc?: {
    base_size: string;
    limit_price: string;
    stop_price: string;
    stop_direction: "STOP_DIRECTION_STOP_UP" | "STOP_DIRECTION_STOP_DOWN";
  };
  [other: string]: unknown;
}

export interface CreateOrderBody {
  client_order_id: string;
  product_id: string;
  side: "BUY" | "SELL";
  order_configuration: WireOrderConfiguration;
  leverage?: string;
  margin_type?: "CROSS" | "ISOLATED";
  retail_portfolio_id?: string;
}

export interface CreateOrderResponse {
  success: boolean;
  success_response?: { order_id: string; product_id?: string; side?: string; client_order_id?: string };
  error_response?: {
    error?: string;
    message?: string;
    error_details?: string;
    preview_failure_reason?: string;
    new_order_failure_reason?: string;
  };
  failure_reason?: string;
  order_configuration?: WireOrderConfiguration;
}

export interface WireOrder {
  order_id: string;
  product_id: string;
  client_order_id: string;
  side: "BUY" | "SELL";
  status: string;
  order_type?: string;
  time_in_force?: string;
  created_time?: string;
  last_fill_time?: string | null;
  filled_size?: string;
  average_filled_price?: string;
  total_fees?: string;
  number_of_fills?: string;
  leverage?: string;
  margin_type?: string;
  reject_reason?: string;
  cancel_message?: string;
  product_type?: string;
  order_configuration?: WireOrderConfiguration;
}

export interface WireFill {
  entry_id: string;
  trade_id: string;
  order_id: string;
  trade_time: string;
  trade_type?: string;
  price: string;
  size: string;
  commission: string;
  product_id: string;
  side: string;
  liquidity_indicator?: string;
  size_in_quote?: boolean;
}

export interface WireProduct {
  product_id: string;
  price?: string;
  price_percentage_change_24h?: string;
  volume_24h?: string;
  base_increment?: string;
  quote_increment?: string;
  price_increment?: string;
  quote_min_size?: string;
  base_min_size?: string;
  base_max_size?: string;
  status?: string;
  trading_disabled?: boolean;
  cancel_only?: boolean;
  product_type?: string;
  base_currency_id?: string;
  quote_currency_id?: string;
  display_name?: string;
  mid_market_price?: string;
  /** CBE (spot), FCM (US futures), INTX (international perpetuals). */
  product_venue?: string;
  future_product_details?: {
    contract_code?: string;
    contract_size?: string;
    contract_root_unit?: string;
    contract_expiry?: string;
    contract_expiry_type?: string;
    funding_rate?: string;
    open_interest?: string;
    [other: string]: unknown;
  } | null;
}

export interface WireAccount {
  uuid: string;
  name?: string;
  currency: string;
  available_balance?: Money;
  hold?: Money;
  type?: string;
  active?: boolean;
  retail_portfolio_id?: string;
}

export interface WireBalanceSummary {
  futures_buying_power?: MaybeMoney;
  total_usd_balance?: MaybeMoney;
  cfm_usd_balance?: MaybeMoney;
  cbi_usd_balance?: MaybeMoney;
  unrealized_pnl?: MaybeMoney;
  daily_realized_pnl?: MaybeMoney;
  initial_margin?: MaybeMoney;
  available_margin?: MaybeMoney;
  [other: string]: unknown;
}

export interface WirePosition {
  product_id: string;
  expiration_time?: string;
  side: string;
  number_of_contracts: string | number;
  current_price?: MaybeMoney;
  avg_entry_price?: MaybeMoney;
  entry_vwap?: MaybeMoney;
  unrealized_pnl?: MaybeMoney;
  daily_realized_pnl?: MaybeMoney;
  liquidation_price?: MaybeMoney;
  leverage?: string | number;
  margin_type?: string;
}

export interface WirePortfolio {
  name: string;
  uuid: string;
  type: string;
  deleted?: boolean;
}

export interface WirePricebook {
  product_id: string;
  bids: { price: string; size: string }[];
  asks: { price: string; size: string }[];
  time?: string;
}

export type Query = Record<string, string | number | boolean | string[] | undefined | null>;

export interface AdvancedTradeOptions extends ClientTransportOptions {
  /** Signs private calls; without keys only public market data works. */
  keys?: { apiKey: string; apiSecret: string } | null;
  /** Base URL of private calls (default: production). */
  baseUrl?: string;
  /** Base URL of public market data (default: production; the sandbox has none). */
  publicBaseUrl?: string;
  /** Test hook: the clock in epoch seconds used to sign. */
  now?: () => number;
}

export class AdvancedTradeClient {
  readonly baseUrl: string;
  readonly publicBaseUrl: string;
  private readonly fetchImpl: FetchFn;
  private readonly privateLimiter: RateLimiter;
  private readonly publicLimiter: RateLimiter;
  /** Coinbase's clock minus ours, in seconds, once measured after a 401. */
  private clockOffsetS = 0;

  constructor(private readonly options: AdvancedTradeOptions = {}) {
    this.baseUrl = (options.baseUrl ?? AT_PRODUCTION_URL).replace(/\/+$/, "");
    this.publicBaseUrl = (options.publicBaseUrl ?? AT_PRODUCTION_URL).replace(/\/+$/, "");
    this.fetchImpl = options.fetchImpl ?? ((input, init) => fetch(input, init));
    this.privateLimiter = limiterFor(`at-private:${new URL(this.baseUrl).host}`, PRIVATE_RATE);
    this.publicLimiter = limiterFor(`at-public:${new URL(this.publicBaseUrl).host}`, PUBLIC_RATE);
  }

  get hasKeys(): boolean {
    return Boolean(this.options.keys?.apiKey && this.options.keys?.apiSecret);
  }

  private nowS() {
    return (this.options.now?.() ?? Math.floor(Date.now() / 1000)) + this.clockOffsetS;
  }

  /** A signed call under /api/v3/brokerage. */
  async private<T>(
    method: "GET" | "POST" | "PUT" | "DELETE",
    path: string,
    options: { query?: Query; body?: unknown } = {},
  ): Promise<T> {
    const keys = this.options.keys;
    if (!keys?.apiKey || !keys.apiSecret) throw new AuthError("No Coinbase API key is configured");
    const fullPath = `${AT_PREFIX}${path}`;
    const url = withQuery(new URL(`${this.baseUrl}${fullPath}`), options.query);
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const attempt = () =>
      send({
        service: "Coinbase",
        fetchImpl: this.fetchImpl,
        limiter: this.privateLimiter,
        method,
        url,
        path: fullPath,
        body,
        timeoutMs: method === "GET" ? this.options.readTimeoutMs : this.options.writeTimeoutMs,
        maxAttempts: this.options.maxAttempts,
        backoffMs: this.options.backoffMs,
        onResult: this.options.onResult,
        headers: async () => ({
          authorization: `Bearer ${await buildCdpJwt({ apiKey: keys.apiKey, apiSecret: keys.apiSecret, method, host: url.host, path: url.pathname, now: this.nowS() })}`,
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        }),
      });
    try {
      return (await attempt()).body as T;
    } catch (error) {
      if (error instanceof AuthError && /\(401/.test(error.message) && (await this.correctClock())) {
        return (await attempt()).body as T;
      }
      throw error;
    }
  }

  /** After a 401: measures the clock difference; true when it was large enough to explain the 401. */
  private async correctClock(): Promise<boolean> {
    try {
      const time = await this.getServerTime();
      const theirs = Number(time.epochSeconds);
      if (!Number.isFinite(theirs)) return false;
      const offset = Math.round(theirs - (this.options.now?.() ?? Date.now() / 1000));
      if (Math.abs(offset - this.clockOffsetS) <= 5) return false;
      this.clockOffsetS = offset;
      return true;
    } catch {
      return false;
    }
  }

  /** An unsigned call to public market data (production host: the sandbox has none). */
  async public<T>(path: string, query?: Query): Promise<T> {
    const fullPath = `${AT_PREFIX}${path}`;
    const url = withQuery(new URL(`${this.publicBaseUrl}${fullPath}`), query);
    const answer = await send({
      service: "Coinbase",
      fetchImpl: this.fetchImpl,
      limiter: this.publicLimiter,
      method: "GET",
      url,
      path: fullPath,
      timeoutMs: this.options.readTimeoutMs,
      maxAttempts: this.options.maxAttempts,
      backoffMs: this.options.backoffMs,
      onResult: this.options.onResult,
      headers: async () => ({ accept: "application/json" }),
    });
    return answer.body as T;
  }

  // --- orders -------------------------------------------------------------------------
  createOrder(body: CreateOrderBody) {
    return this.private<CreateOrderResponse>("POST", "/orders", { body });
  }
  closePosition(body: { client_order_id: string; product_id: string; size?: string }) {
    return this.private<CreateOrderResponse>("POST", "/orders/close_position", { body });
  }
  /** Edits a resting order in place (limit and stop-limit GTC): new limit price, size, stop price. */
  editOrder(body: { order_id: string; price?: string; size?: string; stop_price?: string }) {
    return this.private<{
      success?: boolean;
      errors?: { edit_failure_reason?: string; preview_failure_reason?: string }[];
    }>("POST", "/orders/edit", { body });
  }
  cancelOrders(orderIds: string[]) {
    return this.private<{ results: { success: boolean; failure_reason?: string; order_id: string }[] }>(
      "POST",
      "/orders/batch_cancel",
      {
        body: { order_ids: orderIds },
      },
    );
  }
  getOrder(orderId: string) {
    return this.private<{ order: WireOrder }>("GET", `/orders/historical/${encodeURIComponent(orderId)}`);
  }
  listOrders(query: Query = {}) {
    return this.private<{ orders: WireOrder[]; has_next?: boolean; cursor?: string }>(
      "GET",
      "/orders/historical/batch",
      { query },
    );
  }
  listFills(query: Query = {}) {
    return this.private<{ fills: WireFill[]; cursor?: string }>("GET", "/orders/historical/fills", { query });
  }

  // --- accounts, futures ---------------------------------------------------------------
  listAccounts(query: Query = {}) {
    return this.private<{ accounts: WireAccount[]; has_next?: boolean; cursor?: string; size?: number }>(
      "GET",
      "/accounts",
      { query },
    );
  }
  getBalanceSummary() {
    return this.private<{ balance_summary: WireBalanceSummary }>("GET", "/cfm/balance_summary");
  }
  listFuturesPositions() {
    return this.private<{ positions?: WirePosition[] }>("GET", "/cfm/positions");
  }
  getFuturesPosition(productId: string) {
    return this.private<{ position?: WirePosition }>("GET", `/cfm/positions/${encodeURIComponent(productId)}`);
  }

  // --- products, market data ------------------------------------------------------------
  /** Signed when keys are set, else the public endpoint (same shapes). */
  listProducts(query: Query = {}) {
    return this.hasKeys
      ? this.private<{ products: WireProduct[]; num_products?: number }>("GET", "/products", { query })
      : this.public<{ products: WireProduct[]; num_products?: number }>("/market/products", query);
  }
  getProduct(productId: string) {
    const path = `/products/${encodeURIComponent(productId)}`;
    return this.hasKeys ? this.private<WireProduct>("GET", path) : this.public<WireProduct>(`/market${path}`);
  }
  getBestBidAsk(productIds: string[]) {
    return this.private<{ pricebooks: WirePricebook[] }>("GET", "/best_bid_ask", {
      query: { product_ids: productIds },
    });
  }
  /** Public order book top (no keys needed). */
  getPublicProductBook(productId: string, limit = 1) {
    return this.public<{ pricebook: WirePricebook; last?: string; mid_market?: string }>("/market/product_book", {
      product_id: productId,
      limit,
    });
  }
  getServerTime() {
    return this.public<{ iso: string; epochSeconds: string; epochMillis?: string }>("/time");
  }

  // --- portfolios -----------------------------------------------------------------------
  listPortfolios() {
    return this.private<{ portfolios: WirePortfolio[] }>("GET", "/portfolios");
  }
  createPortfolio(name: string) {
    return this.private<{ portfolio: WirePortfolio }>("POST", "/portfolios", { body: { name } });
  }
  deletePortfolio(uuid: string) {
    return this.private<Record<string, never>>("DELETE", `/portfolios/${encodeURIComponent(uuid)}`);
  }
  getPortfolioBreakdown(uuid: string) {
    return this.private<{
      breakdown: {
        portfolio?: WirePortfolio;
        spot_positions?: {
          asset: string;
          available_to_trade_fiat?: number | string;
          total_balance_crypto?: number | string;
          available_to_trade_crypto?: number | string;
        }[];
        portfolio_balances?: Record<string, MaybeMoney>;
      };
    }>("GET", `/portfolios/${encodeURIComponent(uuid)}`);
  }
  moveFunds(body: { funds: Money; source_portfolio_uuid: string; target_portfolio_uuid: string }) {
    return this.private<{ source_portfolio_uuid: string; target_portfolio_uuid: string }>(
      "POST",
      "/portfolios/move_funds",
      { body },
    );
  }
}
