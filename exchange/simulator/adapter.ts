// The paper-trading exchange: a real matching simulation kept in the database, so the web
// process and any number of workers see the same paper account. All of its SQL is in
// db/queries/simulator.ts. Its parts:
// - account.ts: the paper account (a simulator profile with a USDC balance, created on first
//   use) and its books under the account's balance lock: every state change (order, balance,
//   position) is one transaction that locks the balance row first.
// - this file, SimulatorAdapter: orders are validated, then market orders fill at once at the
//   stored price plus slippage with the taker fee; limit orders that cross fill at once as
//   takers, the others rest ("open"; resting-orders.ts fills them). Idempotent by client
//   order id. Net position per profile and symbol (`sim_positions`), perpetual-futures style:
//   see matching.ts. Margin = notional / leverage, taken from available into hold together
//   with the fee.
// - margin.ts: the paper margin check (docs/decisions/024-paper-margin.md); liquidation.ts and
//   funding.ts: liquidations and funding, run on price ticks by worker/monitor/paper-margin.ts.
// - rows.ts: the stored rows as exchange orders and matching states.
// - No stored price yet: a market order throws TemporaryError (retry once the price feed
//   has written a price; nothing is stored, findOrderByClientId answers null); a limit order
//   rests, since matching needs no price at placement.
import { randomUUID } from "node:crypto";
import type { Transaction } from "kysely";
import { D, floorToIncrement, parseDecimal, roundToIncrement } from "#app/core/decimal.ts";
import {
  type ExchangeError,
  InsufficientFundsError,
  InvalidOrderError,
  OrderNotFoundError,
  SizeRefusalError,
  TemporaryError,
} from "#app/core/exchange/errors.ts";
import type {
  Balance,
  ConnectionTest,
  ExchangeAdapter,
  ExchangeOrder,
  ExchangePosition,
  MarginType,
  OrderSide,
  OrderType,
  PlaceOrderRequest,
  Product,
  Ticker,
} from "#app/core/exchange/types.ts";
import { accountLiquidationPrices } from "#app/core/orders/liquidation.ts";
import { type ProductSpec, listProducts, productOf } from "#app/core/products.ts";
import {
  getSimAvailable,
  getSimOrder,
  getSimOrderByClientId,
  getSimOrderOwner,
  insertSimOrder,
  isUniqueViolation,
  listOpenSimOrders,
  listSimBalances,
  listSimFillsSince,
  listSimPositions,
  lockSimOrder,
  updateSimOrder,
} from "#db/queries/simulator.ts";
import { type Db, transactionWithLockRetry } from "#db/queries/util.ts";
import type { DB } from "#db/schema.ts";
import { createPaperAccount, lockBalance, lockPosition, writeBalance, writePosition } from "./account.ts";
import { SIM_TAKER_FEE_RATE, accountLoss, marginShortfall, remainingOf } from "./margin.ts";
import {
  applyFill,
  crossesLimit,
  marketableLimitFillPrice,
  moneyDown,
  openingQuantity,
  q,
  reduceOnlyQuantity,
  takerFillPrice,
  unrealizedPnl,
} from "./matching.ts";
import { DAY_MS, MINUTE_MS, dayChanges, getPrice, getPrices } from "./price-feed.ts";
import { matchRestingOrders } from "./resting-orders.ts";
import { accountPositionOf, norm, orderRowToOrder, positionRowToState, rateOption, readOrder } from "./rows.ts";

export const SIMULATOR_NAME = "simulator";
export const SIMULATOR_LABEL = "Simulator (paper trading)";
export const MAX_LEVERAGE = 10;

export interface SimulatorOptions {
  /** Taker fee rate (market orders, marketable limits). Default "0.0006". */
  feeRate?: string;
  /** Maker fee rate (resting limits when they fill). Default "0.0002". */
  makerFeeRate?: string;
  /** Fraction a taker fill moves against the taker. Default "0.0005". */
  slippage?: string;
  /** Paper balance of a new account. Default "10000". */
  startingBalance?: string;
  currency?: "USDC";
  /** profiles.id of the paper profile to trade on (created when missing). Default: the default paper profile. */
  profileId?: string;
  /** The name such a profile is created with (default "Paper trading"). */
  profileName?: string;
}

type Trx = Transaction<DB>;

interface ValidOrder {
  product: ProductSpec;
  side: OrderSide;
  type: OrderType;
  quantity: string;
  price: string | null;
  leverage: number;
  marginType: MarginType;
  reduceOnly: boolean;
}

export class SimulatorAdapter implements ExchangeAdapter {
  readonly name = SIMULATOR_NAME;
  readonly label = SIMULATOR_LABEL;
  readonly feeRate: string;
  readonly makerFeeRate: string;
  readonly slippage: string;
  readonly startingBalance: string;
  readonly currency: string;
  private account: Promise<string> | undefined;

  constructor(
    private readonly db: Db,
    private readonly options: SimulatorOptions = {},
  ) {
    this.feeRate = rateOption(options.feeRate, SIM_TAKER_FEE_RATE, "fee rate");
    this.makerFeeRate = rateOption(options.makerFeeRate, "0.0002", "maker fee rate");
    this.slippage = rateOption(options.slippage, "0.0005", "slippage");
    this.startingBalance = rateOption(options.startingBalance, "10000", "starting balance");
    this.currency = options.currency ?? "USDC";
  }

  /** The paper profile's id (profiles.id), creating the profile and its balance on first use. */
  ensureAccount(): Promise<string> {
    this.account ??= this.createAccount().catch((error) => {
      this.account = undefined;
      throw error;
    });
    return this.account;
  }

  private createAccount(): Promise<string> {
    const { profileId, profileName } = this.options;
    return createPaperAccount(this.db, {
      profileId,
      profileName,
      currency: this.currency,
      startingBalance: this.startingBalance,
    });
  }

  private validate(request: PlaceOrderRequest): ValidOrder {
    const product = productOf(request.symbol);
    if (!product) throw new InvalidOrderError(`Unknown symbol ${request.symbol}`);
    if (request.side !== "buy" && request.side !== "sell")
      throw new InvalidOrderError(`Invalid side ${request.side}: use buy or sell`);
    if (request.type !== "market" && request.type !== "limit")
      throw new InvalidOrderError(`Invalid order type ${request.type}: use market or limit`);

    const requested = parseDecimal(request.quantity);
    if (requested === null || !D(requested).gt(0))
      throw new SizeRefusalError(`Quantity must be a number greater than 0, got ${request.quantity}`, "NOT_POSITIVE");
    const quantity = floorToIncrement(requested, product.baseIncrement);
    if (D(quantity).lt(product.baseMinSize)) {
      throw new SizeRefusalError(
        `Quantity ${requested} ${product.base} is below the minimum order size of ${product.baseMinSize} ${product.base} for ${product.symbol}`,
        "BELOW_MINIMUM",
      );
    }

    const leverage = request.leverage ?? 1;
    if (!Number.isInteger(leverage) || leverage < 1 || leverage > MAX_LEVERAGE) {
      throw new InvalidOrderError(`Leverage must be a whole number from 1 to ${MAX_LEVERAGE}, got ${leverage}`);
    }
    const marginType = request.marginType ?? "cross";
    if (marginType !== "cross" && marginType !== "isolated")
      throw new InvalidOrderError(`Invalid margin type ${marginType}: use cross or isolated`);

    let price: string | null = null;
    if (request.type === "limit") {
      const raw = request.price == null ? null : parseDecimal(request.price);
      if (raw === null || !D(raw).gt(0))
        throw new InvalidOrderError(`A limit order needs a price greater than 0, got ${request.price ?? "none"}`);
      price = roundToIncrement(raw, product.quoteIncrement);
      if (!D(price).gt(0))
        throw new InvalidOrderError(
          `Price ${raw} is below the price tick of ${product.quoteIncrement} for ${product.symbol}`,
        );
    }
    return {
      product,
      side: request.side,
      type: request.type,
      quantity,
      price,
      leverage,
      marginType,
      reduceOnly: Boolean(request.reduceOnly),
    };
  }

  async placeOrder(request: PlaceOrderRequest): Promise<ExchangeOrder> {
    const clientOrderId = typeof request.clientOrderId === "string" ? request.clientOrderId.trim() : "";
    if (!clientOrderId || clientOrderId.length > 100)
      throw new InvalidOrderError("A client order id of 1 to 100 characters is required");
    const profileId = await this.ensureAccount();
    const existing = await this.findOrderByClientId(clientOrderId);
    if (existing) return existing;
    const order = this.validate(request);

    let outcome: { order: ExchangeOrder; error?: ExchangeError };
    try {
      outcome = await transactionWithLockRetry(this.db, (trx) => this.execute(trx, profileId, clientOrderId, order));
    } catch (error) {
      // The same client order id committed by someone else between our check and our insert.
      if (isUniqueViolation(error)) {
        const first = await this.findOrderByClientId(clientOrderId);
        if (first) return first;
      }
      throw error;
    }
    if (outcome.error) throw outcome.error;
    return outcome.order;
  }

  /** The order's whole effect inside one transaction. A refusal is stored (status rejected) and returned as `error`. */
  private async execute(
    trx: Trx,
    profileId: string,
    clientOrderId: string,
    order: ValidOrder,
  ): Promise<{ order: ExchangeOrder; error?: ExchangeError }> {
    const { product, side } = order;
    const symbol = product.symbol;
    const currency = this.currency;
    const balance = await lockBalance(trx, profileId, currency);
    const again = await getSimOrderByClientId(trx, clientOrderId);
    if (again) return { order: orderRowToOrder(again) };

    const now = Date.now();
    const id = randomUUID();
    const positionRow = await lockPosition(trx, profileId, symbol);
    const position = positionRowToState(positionRow);
    let quantity = order.quantity;
    const row = () => ({
      id,
      client_order_id: clientOrderId,
      profile_id: profileId,
      symbol,
      side,
      order_type: order.type,
      quantity,
      price: order.price,
      leverage: order.leverage,
      margin_type: order.marginType,
      reduce_only: order.reduceOnly ? 1 : 0,
      created_at: now,
      updated_at: now,
    });
    const reject = async (error: ExchangeError) => {
      await insertSimOrder(trx, { ...row(), status: "rejected", reject_reason: error.message });
      return { order: await readOrder(trx, id), error };
    };

    if (order.reduceOnly) {
      quantity = reduceOnlyQuantity(position, side, quantity);
      if (!D(quantity).gt(0)) {
        return reject(new InvalidOrderError(`Reduce-only order rejected: no open ${symbol} position to reduce`));
      }
    }

    const market = await getPrice(trx, symbol);
    let fillPrice: string | null = null;
    if (order.type === "market") {
      if (!market)
        throw new TemporaryError(`No market price for ${symbol} yet: the simulator's price feed has not written one`);
      fillPrice = takerFillPrice(side, market.price, this.slippage, product.quoteIncrement);
    } else if (market && crossesLimit(side, order.price!, market.price)) {
      fillPrice = marketableLimitFillPrice(side, order.price!, market.price, this.slippage, product.quoteIncrement);
    }

    if (fillPrice === null) {
      // A resting limit holds the margin of what it would open now plus its maker fee.
      const opening = order.reduceOnly ? "0" : openingQuantity(position, side, quantity);
      const notional = D(quantity).times(order.price!);
      let held = D(q(D(opening).times(order.price!).div(order.leverage))).plus(q(notional.times(this.makerFeeRate)));
      if (order.reduceOnly) {
        // Never refused for margin: it holds back what it can of its fee (the fill pays it from what it closes).
        const free = D(balance.available).gt(0) ? D(balance.available) : D(0);
        if (held.gt(free)) held = free;
      } else {
        const loss = await accountLoss(trx, profileId, symbol, position, market?.price ?? null);
        const refused = marginShortfall(held, D(balance.available), loss, currency);
        if (refused) return reject(new InsufficientFundsError(refused));
      }
      await writeBalance(
        trx,
        profileId,
        currency,
        { available: D(balance.available).minus(held).toString(), hold: D(balance.hold).plus(held).toString() },
        now,
      );
      await insertSimOrder(trx, { ...row(), status: "open", hold_amount: held.toString() });
      return { order: await readOrder(trx, id) };
    }

    const fill = applyFill(position, {
      side,
      quantity,
      price: fillPrice,
      feeRate: this.feeRate,
      leverage: order.leverage,
      marginType: order.marginType,
    });
    if (D(fill.openedQuantity).gt(0)) {
      const loss = await accountLoss(
        trx,
        profileId,
        symbol,
        remainingOf(position, fill.closedQuantity),
        market?.price ?? fillPrice,
      );
      const refused = marginShortfall(
        D(fill.marginRequired).plus(fill.openFee),
        D(balance.available).plus(fill.settlement),
        loss,
        currency,
      );
      if (refused) return reject(new InsufficientFundsError(refused));
    }
    await writeBalance(
      trx,
      profileId,
      currency,
      {
        available: D(balance.available).plus(fill.availableDelta).toString(),
        hold: D(balance.hold).plus(fill.holdDelta).toString(),
      },
      now,
    );
    await writePosition(trx, profileId, symbol, fill.position, positionRow, now);
    await insertSimOrder(trx, {
      ...row(),
      status: "filled",
      filled_quantity: quantity,
      average_price: fillPrice,
      fee: fill.fee,
      realized_pnl: fill.realizedPnl,
    });
    return { order: await readOrder(trx, id) };
  }

  async findOrderByClientId(clientOrderId: string): Promise<ExchangeOrder | null> {
    const row = await getSimOrderByClientId(this.db, clientOrderId);
    return row ? orderRowToOrder(row) : null;
  }

  async getOrder(orderId: string): Promise<ExchangeOrder> {
    const row = await getSimOrder(this.db, orderId);
    if (!row) throw new OrderNotFoundError(`Order ${orderId} not found`);
    return orderRowToOrder(row);
  }

  /** Cancels an open order and releases what it held. Cancelling a cancelled order returns it unchanged. */
  async cancelOrder(orderId: string): Promise<ExchangeOrder> {
    const owner = await getSimOrderOwner(this.db, orderId);
    if (owner === null) throw new OrderNotFoundError(`Order ${orderId} not found`);
    return transactionWithLockRetry(this.db, async (trx) => {
      const balance = await lockBalance(trx, owner, this.currency);
      const row = await lockSimOrder(trx, orderId);
      if (!row) throw new OrderNotFoundError(`Order ${orderId} not found`);
      if (row.status === "cancelled") return orderRowToOrder(row);
      if (row.status !== "open")
        throw new InvalidOrderError(`Order ${orderId} is ${row.status}: only open orders can be cancelled`);
      const now = Date.now();
      const held = norm(row.hold_amount) ?? "0";
      await writeBalance(
        trx,
        owner,
        this.currency,
        { available: D(balance.available).plus(held).toString(), hold: D(balance.hold).minus(held).toString() },
        now,
      );
      await updateSimOrder(trx, orderId, { status: "cancelled", hold_amount: "0", updated_at: now });
      return readOrder(trx, orderId);
    });
  }

  /** This account's open (resting) orders, oldest first. */
  async getOpenOrders(symbol?: string): Promise<ExchangeOrder[]> {
    const profileId = await this.ensureAccount();
    const rows = await listOpenSimOrders(this.db, { profileId, symbol });
    return rows.map(orderRowToOrder);
  }

  /** Fills this simulator's resting limits on `symbol` crossed by `price` (see matchRestingOrders). */
  matchRestingOrders(symbol: string, price: string): Promise<ExchangeOrder[]> {
    return matchRestingOrders(this.db, symbol, price, { makerFeeRate: this.makerFeeRate, currency: this.currency });
  }

  async getBalances(): Promise<Balance[]> {
    const profileId = await this.ensureAccount();
    const rows = await listSimBalances(this.db, profileId);
    return rows.map((row) => ({
      currency: row.currency,
      available: norm(row.available)!,
      hold: norm(row.hold) ?? "0",
    }));
  }

  async getPositions(): Promise<ExchangePosition[]> {
    const profileId = await this.ensureAccount();
    const rows = await listSimPositions(this.db, profileId);
    const open = rows.filter((row) => row.side !== "flat" && D(row.quantity).gt(0));
    if (open.length === 0) return [];
    const [prices, available] = await Promise.all([
      getPrices(this.db),
      getSimAvailable(this.db, profileId, this.currency),
    ]);
    // The price liquidateAccounts acts on (app/core/orders/liquidation.ts), shown on the Positions screen.
    const liquidation = accountLiquidationPrices(
      open.map((row) => accountPositionOf(row, prices.get(row.symbol)?.price ?? null)),
      available === undefined ? null : norm(available),
    );
    return open.map((row) => {
      const state = positionRowToState(row)!;
      const mark = prices.get(row.symbol)?.price ?? null;
      return {
        liquidationPrice: liquidation.get(row.symbol) ?? null,
        symbol: row.symbol,
        side: state.side as "long" | "short",
        quantity: state.quantity,
        entryPrice: state.entryPrice,
        markPrice: mark,
        unrealizedPnl: mark === null ? null : unrealizedPnl(state.side, state.quantity, state.entryPrice, mark),
        leverage: state.leverage,
        marginType: state.marginType,
      };
    });
  }

  /**
   * The products with the price feed's 24 h change (its kept minute history: from the price
   * 24 h ago, or from the oldest kept one while the history is younger) and the paper
   * exchange's own traded volume over 24 h (the simulator has no market volume).
   */
  async getProducts(now = Date.now()): Promise<Product[]> {
    const prices = await getPrices(this.db);
    const current = new Map([...prices].map(([symbol, p]) => [symbol, p.price]));
    const [changes, fills] = await Promise.all([
      dayChanges(this.db, current, now),
      listSimFillsSince(this.db, now - DAY_MS),
    ]);
    const volume = new Map<string, ReturnType<typeof D>>();
    for (const fill of fills)
      volume.set(fill.symbol, (volume.get(fill.symbol) ?? D(0)).plus(String(fill.filled_quantity)));
    return listProducts().map((spec) => {
      const change = changes.get(spec.symbol);
      return {
        ...toProduct(spec, prices.get(spec.symbol)?.price ?? null),
        priceChange24h: change?.change ?? null,
        changeSince: change && change.since > now - DAY_MS + 2 * MINUTE_MS ? change.since : null,
        volume24h: (volume.get(spec.symbol) ?? D(0)).toString(),
        volumeBasis: "paper fills",
      };
    });
  }

  async getProduct(symbol: string): Promise<Product> {
    const spec = productOf(symbol);
    if (!spec) throw new InvalidOrderError(`Unknown symbol ${symbol}`);
    return toProduct(spec, (await getPrice(this.db, symbol))?.price ?? null);
  }

  async getTicker(symbol: string): Promise<Ticker> {
    const spec = productOf(symbol);
    if (!spec) throw new InvalidOrderError(`Unknown symbol ${symbol}`);
    const price = await getPrice(this.db, symbol);
    if (!price)
      throw new TemporaryError(`No market price for ${symbol} yet: the simulator's price feed has not written one`);
    const halfTick = D(spec.quoteIncrement).div(2);
    return {
      symbol,
      price: price.price,
      bid: price.bid ?? D(price.price).minus(halfTick).toString(),
      ask: price.ask ?? D(price.price).plus(halfTick).toString(),
      time: new Date(price.updatedAt).toISOString(),
      source: price.source,
    };
  }

  async testConnection(): Promise<ConnectionTest> {
    try {
      const balances = await this.getBalances();
      const balance = balances.find((b) => b.currency === this.currency);
      return {
        success: true,
        message: `Simulator ready: ${moneyDown(balance?.available ?? "0")} ${this.currency} available`,
      };
    } catch (error) {
      return { success: false, message: `Simulator unavailable: ${(error as Error).message}` };
    }
  }
}

function toProduct(spec: ProductSpec, price: string | null): Product {
  return {
    symbol: spec.symbol,
    base: spec.base,
    quote: spec.quote,
    baseIncrement: spec.baseIncrement,
    baseMinSize: spec.baseMinSize,
    quoteIncrement: spec.quoteIncrement,
    minMarketFunds: spec.minMarketFunds,
    price,
    status: "online",
  };
}
