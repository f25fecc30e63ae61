// The `coinbase` exchange adapter: our ExchangeAdapter over Advanced Trade v3, for Coinbase's
// US perpetual-style futures (CDE, e.g. BIP-20DEC30-CDE), traded in whole contracts.
//
// - Symbols: ours (BTC-PERP ...) <-> Coinbase product ids through the settings-stored map
//   (config.ts). Quantities: ours are in the base asset; Coinbase's are contracts. We send
//   floor(quantity / contract_size) contracts (contract_size read from the product) and report
//   back contracts x contract_size. Under one contract is refused before anything is sent.
// - Orders carry our client order id (pd-<uuid>); a market order is followed up (GET) until it
//   is final, briefly, so the worker can book the fill at once. A reduce-only market order is
//   sent as /orders/close_position with a size. HTTP 200 with success:false is a refusal.
// - findOrderByClientId lists recent orders (there is no lookup by client id) and matches.
import { D, floorToIncrement, parseDecimal, roundToIncrement } from "#app/core/decimal.ts";
import { type ProductSpec, isKnownSymbol, productOf } from "#app/core/products.ts";
import type { ExchangeProfile, ProfilesProvider, TransferRequest } from "#app/core/exchange/accounts.ts";
import {
  AuthError,
  ExchangeError,
  InsufficientFundsError,
  InvalidOrderError,
  NotFoundError,
  OrderNotFoundError,
  SizeRefusalError,
  TemporaryError,
} from "#app/core/exchange/errors.ts";
import type {
  Balance,
  ConnectionTest,
  ExchangeAdapter,
  ExchangeOrder,
  ExchangeOrderStatus,
  ExchangePosition,
  MarginType,
  PlaceOrderRequest,
  FindOrderOptions,
  Product,
  StopOrderRequest,
  Ticker,
} from "#app/core/exchange/types.ts";
import type {
  AdvancedTradeClient,
  CreateOrderResponse,
  Query,
  MaybeMoney,
  WireFill,
  WireOrder,
  WirePosition,
  WireProduct,
} from "./advanced-trade.ts";
import { DEFAULT_PRODUCT_MAP } from "./config.ts";
import { coinbaseSizeCode } from "./refusals.ts";

export const COINBASE_NAME = "coinbase";
export const MAX_LEVERAGE = 10;

export interface CoinbaseAdapterOptions {
  client: AdvancedTradeClient;
  /** Our symbol -> Coinbase product id. Default: DEFAULT_PRODUCT_MAP. */
  productMap?: Record<string, string>;
  /** "production" | "sandbox": shown in labels and messages. */
  environment?: "production" | "sandbox";
  /** How long a market order is followed up until final (default 5 s). */
  fillWaitMs?: number;
  fillPollMs?: number;
  /** Product details (contract size ...) are kept this long (default 60 s). */
  productCacheMs?: number;
}

export interface Fill {
  tradeId: string;
  orderId: string;
  symbol: string;
  side: "buy" | "sell";
  price: string;
  quantity: string;
  fee: string;
  time: string;
  liquidity: string | null;
}

interface ProductInfo {
  symbol: string;
  spec: ProductSpec;
  productId: string;
  wire: WireProduct;
  contractSize: string;
  at: number;
}

/** A `{value, currency}` object or a bare decimal string, as Coinbase sends either. */
export function money(value: MaybeMoney): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "number") return parseDecimal(value);
  return parseDecimal((value as { value?: unknown }).value);
}

const FINAL = new Set(["FILLED", "CANCELLED", "EXPIRED", "FAILED"]);
/** Pages of 100 orders read when looking an order up from the time it was written. */
const FIND_ORDER_MAX_PAGES = 50;

export class CoinbaseAdapter implements ExchangeAdapter {
  readonly name = COINBASE_NAME;
  readonly label: string;
  readonly environment: "production" | "sandbox";
  private readonly client: AdvancedTradeClient;
  private readonly productMap: Record<string, string>;
  private readonly products = new Map<string, ProductInfo>();

  constructor(private readonly options: CoinbaseAdapterOptions) {
    this.client = options.client;
    this.productMap = { ...DEFAULT_PRODUCT_MAP, ...(options.productMap ?? {}) };
    this.environment = options.environment ?? "production";
    this.label = this.environment === "sandbox" ? "Coinbase sandbox (static responses)" : "Coinbase (live trading)";
  }

  // --- symbols and products ------------------------------------------------------------

  productIdFor(symbol: string): string {
    const id = this.productMap[symbol];
    if (!id) throw new InvalidOrderError(`No Coinbase product is mapped to ${symbol}`);
    return id;
  }

  symbolFor(productId: string): string | null {
    for (const [symbol, id] of Object.entries(this.productMap)) if (id === productId) return symbol;
    return null;
  }

  private specFor(symbol: string): ProductSpec {
    const spec = productOf(symbol);
    if (!spec) throw new InvalidOrderError(`Unknown symbol ${symbol}`);
    return spec;
  }

  private remember(symbol: string, wire: WireProduct): ProductInfo {
    const size = parseDecimal(wire.future_product_details?.contract_size);
    const info: ProductInfo = {
      symbol,
      spec: this.specFor(symbol),
      productId: wire.product_id,
      wire,
      // A spot product (no futures details) trades in base units: one "contract" = one unit.
      contractSize: size !== null && D(size).gt(0) ? size : "1",
      at: Date.now(),
    };
    this.products.set(symbol, info);
    return info;
  }

  private async productInfo(symbol: string): Promise<ProductInfo> {
    const cached = this.products.get(symbol);
    if (cached && Date.now() - cached.at < (this.options.productCacheMs ?? 60_000)) return cached;
    const productId = this.productIdFor(symbol);
    try {
      return this.remember(symbol, await this.client.getProduct(productId));
    } catch (error) {
      if (error instanceof NotFoundError) {
        throw new InvalidOrderError(
          `Coinbase has no product ${productId} (mapped to ${symbol}): check the symbol map in settings`,
        );
      }
      throw error;
    }
  }

  private toProduct(info: ProductInfo): Product {
    const w = info.wire;
    const contract = D(info.contractSize);
    const baseIncrement = D(parseDecimal(w.base_increment) ?? "1")
      .times(contract)
      .toString();
    const minContracts = D(parseDecimal(w.base_min_size) ?? "1");
    const volume = parseDecimal(w.volume_24h);
    const isFuture = Boolean(w.future_product_details);
    return {
      symbol: info.symbol,
      base: w.future_product_details?.contract_root_unit || w.base_currency_id || info.spec.base,
      quote: w.quote_currency_id || info.spec.quote,
      baseIncrement,
      baseMinSize: (minContracts.gt(0) ? minContracts : D(1)).times(contract).toString(),
      quoteIncrement: parseDecimal(w.price_increment) ?? parseDecimal(w.quote_increment) ?? info.spec.quoteIncrement,
      minMarketFunds: parseDecimal(w.quote_min_size) ?? info.spec.minMarketFunds,
      price: parseDecimal(w.price) ?? null,
      priceChange24h: parseDecimal(w.price_percentage_change_24h),
      // Futures volume is counted in contracts: shown in the base asset like everything else.
      volume24h: volume === null ? null : isFuture ? D(volume).times(contract).toString() : volume,
      status: w.trading_disabled || w.cancel_only || /offline|delisted/i.test(w.status ?? "") ? "offline" : "online",
    };
  }

  async getProducts(): Promise<Product[]> {
    const symbols = Object.keys(this.productMap).filter(isKnownSymbol);
    const ids = symbols.map((s) => this.productMap[s]!);
    const answer = await this.client.listProducts({ product_ids: ids, product_type: "FUTURE" });
    const byId = new Map((answer.products ?? []).map((p) => [p.product_id, p]));
    const out: Product[] = [];
    for (const symbol of symbols) {
      const wire = byId.get(this.productMap[symbol]!);
      if (wire) out.push(this.toProduct(this.remember(symbol, wire)));
    }
    return out;
  }

  async getProduct(symbol: string): Promise<Product> {
    this.specFor(symbol);
    const cached = this.products.get(symbol);
    // Prices move: a product asked for by itself is always fresh.
    if (cached) this.products.delete(symbol);
    return this.toProduct(await this.productInfo(symbol));
  }

  async getTicker(symbol: string): Promise<Ticker> {
    const productId = this.productIdFor(symbol);
    const book = this.client.hasKeys
      ? (await this.client.getBestBidAsk([productId])).pricebooks?.find((b) => b.product_id === productId)
      : (await this.client.getPublicProductBook(productId, 1)).pricebook;
    // A price is the mid of a two-sided book, as of the time Coinbase gives it (issue 21,
    // defect 5): an empty or one-sided book, or one without its own time, is no price at all
    // (the last trade or one side is not where a stop would fill), so the rules wait for one.
    const bid = parseDecimal(book?.bids?.[0]?.price);
    const ask = parseDecimal(book?.asks?.[0]?.price);
    if (!bid || !ask || !D(bid).gt(0) || !D(ask).gt(0)) {
      throw new TemporaryError(
        `Coinbase's ${productId} book has ${!bid && !ask ? "no bids and no asks" : !bid ? "no bids" : "no asks"}: no price for ${symbol} right now`,
      );
    }
    const time = book?.time ? Date.parse(book.time) : Number.NaN;
    if (!Number.isFinite(time))
      throw new TemporaryError(`Coinbase's ${productId} book came without its time: not taken as a current price`);
    const price = D(bid).plus(ask).div(2).toString();
    const tick =
      this.products.get(symbol)?.wire.price_increment ??
      (await this.productInfo(symbol).catch(() => null))?.wire.price_increment;
    return {
      symbol,
      price: tick ? roundToIncrement(price, tick) : price,
      bid,
      ask,
      // Coinbase's clock, never ahead of ours (a skewed clock must not make an old book look new).
      time: new Date(Math.min(time, Date.now())).toISOString(),
      source: "coinbase",
    };
  }

  // --- orders ----------------------------------------------------------------------------

  /** Our base-asset quantity as whole contracts; refuses less than one. */
  async contractsFor(symbol: string, quantity: string): Promise<{ contracts: string; info: ProductInfo }> {
    const info = await this.productInfo(symbol);
    const requested = parseDecimal(quantity);
    if (requested === null || !D(requested).gt(0))
      throw new SizeRefusalError(`Quantity must be a number greater than 0, got ${quantity}`, "NOT_POSITIVE");
    const contracts = D(requested).div(info.contractSize).round(0, 0 /* down */).toString();
    if (D(contracts).lt(1)) {
      throw new SizeRefusalError(
        `Quantity ${requested} ${info.spec.base} is less than one ${info.productId} contract (${info.contractSize} ${info.spec.base}): order not sent`,
        "UNDER_ONE_CONTRACT",
      );
    }
    return { contracts, info };
  }

  async placeOrder(request: PlaceOrderRequest): Promise<ExchangeOrder> {
    const clientOrderId = typeof request.clientOrderId === "string" ? request.clientOrderId.trim() : "";
    if (!clientOrderId || clientOrderId.length > 100)
      throw new InvalidOrderError("A client order id of 1 to 100 characters is required");
    if (request.side !== "buy" && request.side !== "sell")
      throw new InvalidOrderError(`Invalid side ${request.side}: use buy or sell`);
    if (request.type !== "market" && request.type !== "limit")
      throw new InvalidOrderError(`Invalid order type ${request.type}: use market or limit`);
    const leverage = request.leverage ?? 1;
    if (!Number.isInteger(leverage) || leverage < 1 || leverage > MAX_LEVERAGE) {
      throw new InvalidOrderError(`Leverage must be a whole number from 1 to ${MAX_LEVERAGE}, got ${leverage}`);
    }
    const marginType: MarginType = request.marginType ?? "cross";
    const { contracts, info } = await this.contractsFor(request.symbol, request.quantity);

    let answer: CreateOrderResponse;
    if (request.reduceOnly && request.type === "market") {
      answer = await this.client.closePosition({
        client_order_id: clientOrderId,
        product_id: info.productId,
        size: contracts,
      });
    } else {
      let orderConfiguration;
      if (request.type === "market") {
        orderConfiguration = { market_market_ioc: { base_size: contracts } };
      } else {
        const raw = request.price == null ? null : parseDecimal(request.price);
        if (raw === null || !D(raw).gt(0))
          throw new InvalidOrderError(`A limit order needs a price greater than 0, got ${request.price ?? "none"}`);
        const tick = parseDecimal(info.wire.price_increment) ?? parseDecimal(info.wire.quote_increment);
        const price = tick ? roundToIncrement(raw, tick) : raw;
        if (!D(price).gt(0)) throw new InvalidOrderError(`Price ${raw} is below the price tick of ${info.productId}`);
        orderConfiguration = { limit_limit_gtc: { base_size: contracts, limit_price: price, post_only: false } };
      }
      answer = await this.client.createOrder({
        client_order_id: clientOrderId,
        product_id: info.productId,
        side: request.side === "buy" ? "BUY" : "SELL",
        order_configuration: orderConfiguration,
        leverage: String(leverage),
        margin_type: marginType === "isolated" ? "ISOLATED" : "CROSS",
      });
    }
    const orderId = checkCreateAnswer(answer, info.productId);
    return request.type === "market" ? this.followUp(orderId) : this.getOrder(orderId);
  }

  /**
   * A resting stop-limit order (stop_limit_stop_limit_gtc): a sell stop protects a long
   * (STOP_DIRECTION_STOP_DOWN), a buy stop a short (STOP_UP); prices on the product's tick,
   * the limit rounded away from the stop so it can fill. Advanced Trade has no reduce-only flag
   * for it: the worker cancels it before any other order on the symbol and whenever the
   * position changes (worker/monitor/exchange-stops.ts).
   */
  async placeStopOrder(request: StopOrderRequest): Promise<ExchangeOrder> {
    const clientOrderId = request.clientOrderId.trim();
    if (!clientOrderId || clientOrderId.length > 100)
      throw new InvalidOrderError("A client order id of 1 to 100 characters is required");
    const { contracts, info, stopPrice, limitPrice, sell } = await this.stopTerms(request);
    const answer = await this.client.createOrder({
      client_order_id: clientOrderId,
      product_id: info.productId,
      side: sell ? "SELL" : "BUY",
      order_configuration: {
        stop_limit_stop_limit_gtc: {
          base_size: contracts,
          limit_price: limitPrice,
          stop_price: stopPrice,
          stop_direction: sell ? "STOP_DIRECTION_STOP_DOWN" : "STOP_DIRECTION_STOP_UP",
        },
      },
    });
    return this.getOrder(checkCreateAnswer(answer, info.productId));
  }

  /** A stop's size in contracts and its prices on the product's tick (the limit rounded away from the stop, so it can fill). */
  private async stopTerms(
    request: Pick<StopOrderRequest, "symbol" | "side" | "quantity" | "stopPrice" | "limitPrice">,
  ) {
    const { contracts, info } = await this.contractsFor(request.symbol, request.quantity);
    const tick = parseDecimal(info.wire.price_increment) ?? parseDecimal(info.wire.quote_increment) ?? "0.01";
    const sell = request.side === "sell";
    const stopPrice = roundToIncrement(request.stopPrice, tick);
    const limit = D(request.limitPrice);
    const limitPrice = D(floorToIncrement(limit, tick)).eq(limit)
      ? limit.toString()
      : sell
        ? floorToIncrement(limit, tick)
        : D(floorToIncrement(limit, tick)).plus(tick).toString();
    if (!D(stopPrice).gt(0) || !D(limitPrice).gt(0))
      throw new InvalidOrderError(
        `Stop ${request.stopPrice} / limit ${request.limitPrice} below the price tick of ${info.productId}`,
      );
    return { contracts, info, stopPrice, limitPrice, sell };
  }

  /**
   * Moves a resting stop-limit in place (POST /orders/edit: stop price, limit price, size), so
   * the position keeps its stop while it moves. `success: false` is a refusal: the caller
   * cancels and places instead.
   */
  async editStopOrder(request: Omit<StopOrderRequest, "clientOrderId"> & { orderId: string }): Promise<ExchangeOrder> {
    const { contracts, stopPrice, limitPrice } = await this.stopTerms(request);
    const answer = await this.client.editOrder({
      order_id: request.orderId,
      price: limitPrice,
      size: contracts,
      stop_price: stopPrice,
    });
    if (!answer?.success) {
      const reasons = (answer?.errors ?? [])
        .map((e) => e.edit_failure_reason || e.preview_failure_reason)
        .filter(Boolean);
      throw new InvalidOrderError(
        `Coinbase did not edit order ${request.orderId}: ${reasons.join(", ") || "UNKNOWN_EDIT_FAILURE"}`,
      );
    }
    return this.getOrder(request.orderId);
  }

  /** A market order is usually final within a moment: wait for that, briefly. */
  private async followUp(orderId: string): Promise<ExchangeOrder> {
    const deadline = Date.now() + (this.options.fillWaitMs ?? 5000);
    for (;;) {
      const wire = (await this.client.getOrder(orderId)).order;
      if (FINAL.has(wire.status) || Date.now() >= deadline) return this.toOrder(wire);
      await new Promise((resolve) => setTimeout(resolve, this.options.fillPollMs ?? 250));
    }
  }

  async getOrder(orderId: string): Promise<ExchangeOrder> {
    try {
      return await this.toOrder((await this.client.getOrder(orderId)).order);
    } catch (error) {
      if (error instanceof NotFoundError) throw new OrderNotFoundError(`Coinbase has no order ${orderId}`);
      throw error;
    }
  }

  /**
   * Coinbase has no lookup by client order id: its orders are listed and matched. With
   * `since` (when our order was written, before it could be sent) the listing starts a minute
   * before that and is read to its end, however many orders came after (issue 21, defect 10:
   * an order older than the newest 500 was declared "nothing was sent" although it filled).
   * Without it, the newest 500. A listing cut short throws (TemporaryError): "not found" is
   * only said when every candidate was seen.
   */
  async findOrderByClientId(clientOrderId: string, options: FindOrderOptions = {}): Promise<ExchangeOrder | null> {
    const productIds = Object.values(this.productMap);
    const since =
      options.since === undefined
        ? null
        : typeof options.since === "number"
          ? options.since
          : Date.parse(options.since);
    const query: Query = { product_ids: productIds, limit: 100 };
    if (since !== null && Number.isFinite(since)) query.start_date = new Date(since - 60_000).toISOString();
    const pages = query.start_date ? FIND_ORDER_MAX_PAGES : 5;
    let cursor: string | undefined;
    for (let page = 0; page < pages; page++) {
      const answer = await this.client.listOrders({ ...query, cursor });
      const found = (answer.orders ?? []).find((o) => o.client_order_id === clientOrderId);
      if (found) return this.toOrder(found);
      if (!answer.has_next || !answer.cursor) return null;
      cursor = answer.cursor;
    }
    if (query.start_date)
      throw new TemporaryError(
        `Coinbase listed over ${pages * 100} orders since ${query.start_date} without ${clientOrderId}: asked again later`,
      );
    return null;
  }

  async cancelOrder(orderId: string): Promise<ExchangeOrder> {
    const answer = await this.client.cancelOrders([orderId]);
    const result = answer.results?.find((r) => r.order_id === orderId) ?? answer.results?.[0];
    if (!result?.success) {
      const reason = result?.failure_reason ?? "no answer";
      if (/UNKNOWN_CANCEL_ORDER|NOT_FOUND/i.test(reason))
        throw new OrderNotFoundError(`Coinbase has no order ${orderId} to cancel`);
      // Already final (filled / cancelled): report what it is rather than failing.
      if (/DUPLICATE_CANCEL_REQUEST|COMMANDER_REJECTED_CANCEL_ORDER|INVALID_CANCEL_REQUEST/i.test(reason)) {
        const order = await this.getOrder(orderId);
        if (order.status !== "open") {
          if (order.status === "cancelled") return order;
          throw new InvalidOrderError(`Order ${orderId} is ${order.status}: only open orders can be cancelled`);
        }
      }
      throw new InvalidOrderError(`Coinbase did not cancel order ${orderId}: ${reason}`);
    }
    return this.getOrder(orderId);
  }

  /** Closes (part of) a position at market: /orders/close_position. */
  async closePosition(request: { clientOrderId: string; symbol: string; quantity?: string }): Promise<ExchangeOrder> {
    const info = await this.productInfo(request.symbol);
    const size = request.quantity ? (await this.contractsFor(request.symbol, request.quantity)).contracts : undefined;
    const answer = await this.client.closePosition({
      client_order_id: request.clientOrderId,
      product_id: info.productId,
      size,
    });
    return this.followUp(checkCreateAnswer(answer, info.productId));
  }

  async getFills(options: { orderId?: string; symbol?: string; limit?: number } = {}): Promise<Fill[]> {
    const answer = await this.client.listFills({
      order_ids: options.orderId ? [options.orderId] : undefined,
      product_ids: options.symbol ? [this.productIdFor(options.symbol)] : undefined,
      limit: options.limit ?? 100,
    });
    const out: Fill[] = [];
    for (const fill of answer.fills ?? []) out.push(await this.toFill(fill));
    return out;
  }

  private async toFill(fill: WireFill): Promise<Fill> {
    const symbol = this.symbolFor(fill.product_id);
    const size = symbol ? (await this.productInfo(symbol)).contractSize : "1";
    return {
      tradeId: fill.trade_id,
      orderId: fill.order_id,
      symbol: symbol ?? fill.product_id,
      side: fill.side?.toUpperCase() === "SELL" ? "sell" : "buy",
      price: parseDecimal(fill.price) ?? "0",
      quantity: D(parseDecimal(fill.size) ?? "0")
        .times(size)
        .toString(),
      fee: parseDecimal(fill.commission) ?? "0",
      time: new Date(fill.trade_time).toISOString(),
      liquidity: fill.liquidity_indicator ?? null,
    };
  }

  private async toOrder(wire: WireOrder): Promise<ExchangeOrder> {
    const symbol = this.symbolFor(wire.product_id);
    const size = symbol ? (await this.productInfo(symbol)).contractSize : "1";
    const config = wire.order_configuration ?? {};
    const limit = config.limit_limit_gtc ?? config.limit_limit_gtd ?? config.stop_limit_stop_limit_gtc;
    const market = config.market_market_ioc;
    const contracts = parseDecimal(limit?.base_size ?? market?.base_size) ?? null;
    const filledContracts = parseDecimal(wire.filled_size) ?? "0";
    const inBase = (c: string) => D(c).times(size).toString();
    const average = parseDecimal(wire.average_filled_price);
    const created = wire.created_time ? new Date(wire.created_time).toISOString() : new Date().toISOString();
    return {
      orderId: wire.order_id,
      clientOrderId: wire.client_order_id,
      symbol: symbol ?? wire.product_id,
      side: wire.side === "SELL" ? "sell" : "buy",
      type: limit ? "limit" : "market",
      status: orderStatus(wire.status),
      quantity: contracts ? inBase(contracts) : inBase(filledContracts),
      price: parseDecimal(limit?.limit_price) ?? null,
      filledQuantity: inBase(filledContracts),
      averagePrice: average && D(average).gt(0) ? average : null,
      fee: parseDecimal(wire.total_fees) ?? "0",
      leverage: Math.max(1, Math.round(Number(wire.leverage) || 1)),
      marginType: /isolated/i.test(wire.margin_type ?? "") ? "isolated" : "cross",
      rejectReason:
        wire.status === "FAILED" ? wire.reject_reason || wire.cancel_message || "Rejected by Coinbase" : null,
      createdAt: created,
      updatedAt: wire.last_fill_time ? new Date(wire.last_fill_time).toISOString() : created,
    };
  }

  // --- account -----------------------------------------------------------------------------

  /**
   * Wallet balances (/accounts) plus the futures account (/cfm/balance_summary) as currency
   * "USD": available = futures buying power, hold = initial margin in use. A spot USD wallet
   * is reported as is when there is no futures account.
   */
  async getBalances(): Promise<Balance[]> {
    const [accounts, summary] = await Promise.all([
      this.client.listAccounts({ limit: 250 }),
      this.client.getBalanceSummary().catch((error) => {
        if (error instanceof NotFoundError || (error instanceof AuthError && /403/.test(error.message))) return null; // no futures account
        throw error;
      }),
    ]);
    const balances = new Map<string, Balance>();
    for (const account of accounts.accounts ?? []) {
      const available = money(account.available_balance) ?? "0";
      const hold = money(account.hold) ?? "0";
      const current = balances.get(account.currency);
      balances.set(account.currency, {
        currency: account.currency,
        available: current ? D(current.available).plus(available).toString() : available,
        hold: current ? D(current.hold).plus(hold).toString() : hold,
      });
    }
    const futures = summary?.balance_summary;
    if (futures) {
      const power = money(futures.futures_buying_power);
      if (power !== null)
        balances.set("USD", { currency: "USD", available: power, hold: money(futures.initial_margin) ?? "0" });
    }
    return [...balances.values()].sort((a, b) => a.currency.localeCompare(b.currency));
  }

  async getPositions(): Promise<ExchangePosition[]> {
    const answer = await this.client.listFuturesPositions();
    const out: ExchangePosition[] = [];
    for (const wire of answer.positions ?? []) {
      const position = await this.toPosition(wire);
      if (position) out.push(position);
    }
    return out;
  }

  private async toPosition(wire: WirePosition): Promise<ExchangePosition | null> {
    const contracts = parseDecimal(wire.number_of_contracts);
    if (contracts === null || D(contracts).eq(0)) return null;
    const symbol = this.symbolFor(wire.product_id);
    const size = symbol ? (await this.productInfo(symbol)).contractSize : "1";
    const short = /short/i.test(wire.side) || D(contracts).lt(0);
    return {
      symbol: symbol ?? wire.product_id,
      side: short ? "short" : "long",
      quantity: D(contracts).abs().times(size).toString(),
      entryPrice: money(wire.avg_entry_price) ?? money(wire.entry_vwap) ?? "0",
      markPrice: money(wire.current_price),
      unrealizedPnl: money(wire.unrealized_pnl),
      leverage: Math.max(
        1,
        Math.round(Number(typeof wire.leverage === "object" ? money(wire.leverage) : wire.leverage) || 1),
      ),
      marginType: /isolated/i.test(wire.margin_type ?? "") ? "isolated" : "cross",
      // Coinbase answers 0 when it has no liquidation price for the position.
      liquidationPrice: ((liq) => (liq !== null && D(liq).gt(0) ? liq : null))(money(wire.liquidation_price)),
    };
  }

  async testConnection(): Promise<ConnectionTest> {
    try {
      const answer = await this.client.listAccounts({ limit: 1 });
      const count = answer.size ?? answer.accounts?.length ?? 0;
      return {
        success: true,
        message: `Connected to Coinbase Advanced Trade (${this.environment}): the API key works${count ? `, ${count} account${count === 1 ? "" : "s"} visible` : ""}`,
      };
    } catch (error) {
      return {
        success: false,
        message: error instanceof ExchangeError ? error.message : `Coinbase test failed: ${(error as Error).message}`,
      };
    }
  }
}

function orderStatus(status: string): ExchangeOrderStatus {
  switch (status) {
    case "FILLED":
      return "filled";
    case "CANCELLED":
    case "EXPIRED":
      return "cancelled";
    case "FAILED":
      return "rejected";
    default:
      // OPEN, PENDING, QUEUED, CANCEL_QUEUED ...: not final yet.
      return "open";
  }
}

/**
 * The order id of an accepted create / close; a refusal (HTTP 200, success:false) throws. A
 * refusal whose structured reason is a size code (coinbase/refusals.ts, by code whatever the
 * message says) is a SizeRefusalError carrying that code.
 */
export function checkCreateAnswer(answer: CreateOrderResponse, productId: string): string {
  if (answer?.success && answer.success_response?.order_id) return answer.success_response.order_id;
  const e = answer?.error_response ?? {};
  const sizeCode = coinbaseSizeCode({ ...e, failure_reason: answer?.failure_reason });
  const reason =
    sizeCode ||
    e.new_order_failure_reason ||
    e.preview_failure_reason ||
    e.error ||
    answer?.failure_reason ||
    "UNKNOWN_FAILURE_REASON";
  const parts = [e.error, e.message, e.error_details].filter(
    (part, i, all): part is string => Boolean(part) && part !== reason && all.indexOf(part) === i,
  );
  const text = parts.join(": ");
  const message = `Coinbase refused the ${productId} order: ${reason}${text ? ` (${text})` : ""}`;
  if (/INSUFFICIENT_FUND/i.test(`${reason} ${text}`)) throw new InsufficientFundsError(message);
  if (sizeCode) throw new SizeRefusalError(message, sizeCode);
  throw new InvalidOrderError(message);
}

// ---------------------------------------------------------------------------------------
// Advanced Trade portfolios as profiles (when no Exchange API passphrase is configured).

export class PortfoliosProfilesProvider implements ProfilesProvider {
  readonly name = "coinbase-portfolios";
  constructor(private readonly client: AdvancedTradeClient) {}

  async listProfiles(): Promise<ExchangeProfile[]> {
    const { portfolios } = await this.client.listPortfolios();
    const live = (portfolios ?? []).filter((p) => !p.deleted);
    return Promise.all(live.map(async (p) => ({ ...toProfile(p), balances: await this.balancesOf(p.uuid) })));
  }

  private async balancesOf(uuid: string): Promise<Balance[]> {
    try {
      const { breakdown } = await this.client.getPortfolioBreakdown(uuid);
      return (breakdown.spot_positions ?? []).map((s) => ({
        currency: s.asset,
        available: parseDecimal(s.available_to_trade_crypto ?? s.total_balance_crypto) ?? "0",
        hold: D(parseDecimal(s.total_balance_crypto) ?? "0")
          .minus(parseDecimal(s.available_to_trade_crypto ?? s.total_balance_crypto) ?? "0")
          .toString(),
      }));
    } catch (error) {
      if (error instanceof TemporaryError || error instanceof NotFoundError) return [];
      throw error;
    }
  }

  async createProfile(name: string): Promise<ExchangeProfile> {
    const { portfolio } = await this.client.createPortfolio(name);
    return toProfile(portfolio);
  }

  async transferFunds(request: TransferRequest): Promise<void> {
    const amount = parseDecimal(request.amount);
    if (amount === null || !D(amount).gt(0))
      throw new InvalidOrderError(`Transfer amount must be greater than 0, got ${request.amount}`);
    await this.client.moveFunds({
      funds: { value: amount, currency: request.currency },
      source_portfolio_uuid: request.fromProfileId,
      target_portfolio_uuid: request.toProfileId,
    });
  }

  /** Moves every balance to the destination, then deletes the portfolio. */
  async deleteProfile(profileId: string, toProfileId: string): Promise<void> {
    for (const balance of await this.balancesOf(profileId)) {
      if (D(balance.available).gt(0)) {
        await this.transferFunds({
          fromProfileId: profileId,
          toProfileId,
          currency: balance.currency,
          amount: balance.available,
        });
      }
    }
    await this.client.deletePortfolio(profileId);
  }
}

function toProfile(p: { uuid: string; name: string; type: string; deleted?: boolean }): ExchangeProfile {
  return {
    id: p.uuid,
    name: p.name,
    isDefault: p.type === "DEFAULT",
    active: !p.deleted,
    createdAt: new Date(0).toISOString(),
    balances: [],
  };
}
