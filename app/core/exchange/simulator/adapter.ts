// The paper-trading exchange: a real matching simulation kept in the database, so the web
// process and any number of workers see the same paper account.
//
// - Account: one simulator profile (`profiles`, source "simulator") with a USDC balance in
//   `balances` (available = free collateral, hold = margin of open positions + what resting
//   orders hold back). Created on first use, race-safe (unique key + INSERT IGNORE).
// - Orders (`sim_orders`): market orders fill at once at the stored price plus slippage with
//   the taker fee; limit orders that cross fill at once as takers, the others rest ("open")
//   until matchRestingOrders fills them at their limit price with the maker fee. Fills are
//   whole (no partial fills). Idempotent by client order id.
// - Net position per profile and symbol (`sim_positions`), perpetual-futures style: see
//   matching.ts. Margin = notional / leverage, taken from available into hold together
//   with the fee.
// - Paper margin (docs/decisions/024-paper-margin.md): a new order that opens exposure must
//   fit in the free collateral less the unrealized losses of the open positions
//   (unrealizedLoss); reduce-only orders are never refused for margin. liquidateAccounts
//   (run on every price tick by worker/monitor/paper-margin.ts) closes a position whose mark
//   reached its liquidation price (app/core/orders/liquidation.ts: maintenance margin per
//   product; isolated on its own margin, cross on the account) at that price, as a filled
//   market order with client order id liq-<uuid> and the taker fee.
// - Every state change (order, balance, position) is one transaction. The balance row is
//   locked first (FOR UPDATE on MySQL; on SQLite a no-op UPDATE takes the write lock before
//   anything is read), so all trades of one account are serialised in the same lock order
//   and cannot deadlock each other.
// - No stored price yet: a market order throws TemporaryError (retry once the price feed
//   has written a price; nothing is stored, findOrderByClientId answers null); a limit order
//   rests, since matching needs no price at placement.
import { randomUUID } from "node:crypto";
import type { Transaction } from "kysely";
import { type Big, D, floorToIncrement, parseDecimal, roundToIncrement } from "#app/core/decimal.ts";
import {
  ExchangeError,
  InsufficientFundsError,
  InvalidOrderError,
  OrderNotFoundError,
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
  OrderSide,
  OrderType,
  PlaceOrderRequest,
  Product,
  Ticker,
} from "#app/core/exchange/types.ts";
import { PRODUCTS, type ProductSpec } from "#app/core/products.ts";
import {
  type SimFundingRow,
  getSimAvailable,
  getSimOrder,
  getSimOrderByClientId,
  getSimOrderOwner,
  getSimProfileId,
  insertSimBalanceIgnore,
  insertSimFunding,
  insertSimOrder,
  insertSimProfileIgnore,
  isUniqueViolation,
  listNonFlatSimPositions,
  listOpenSimOrders,
  listOtherSimPositions,
  listSimAvailable,
  listSimBalances,
  listSimFillsSince,
  listSimFundedSymbols,
  listSimFundingDue,
  listSimPositions,
  listSimPositionsOpenAt,
  lockNonFlatSimPositions,
  lockSimBalance,
  lockSimOrder,
  lockSimPosition,
  saveSimPosition,
  updateSimBalance,
  updateSimOrder,
} from "#db/queries/simulator.ts";
import { type Db, transactionWithLockRetry } from "#db/queries/util.ts";
import type { DB, SimOrderRow, SimPositionRow } from "#db/schema.ts";
import {
  type PositionState,
  applyFill,
  crossesLimit,
  marketableLimitFillPrice,
  moneyDown,
  moneyUp,
  openingQuantity,
  q,
  reduceOnlyQuantity,
  takerFillPrice,
  unrealizedLoss,
  unrealizedPnl,
} from "./matching.ts";
import { type AccountPosition, accountLiquidationPrices, isLiquidated } from "#app/core/orders/liquidation.ts";
import { DAY_MS, MINUTE_MS, dayChanges, getPrice, getPrices } from "./price-feed.ts";

export const SIMULATOR_NAME = "simulator";
export const SIMULATOR_LABEL = "Simulator (paper trading)";
/** profiles.profile_id of the default paper profile (unique: what makes creation race-safe). */
export const DEFAULT_PAPER_PROFILE_KEY = "simulator-default";
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

const norm = (value: string | number | null | undefined): string | null =>
  value === null || value === undefined || value === "" ? null : D(value).toString();

const productOf = (symbol: string): ProductSpec | undefined => PRODUCTS.find((p) => p.symbol === symbol);

function rateOption(value: string | undefined, fallback: string, what: string): string {
  const parsed = parseDecimal(value ?? fallback);
  if (parsed === null || D(parsed).lt(0)) throw new Error(`Simulator ${what} must be a decimal >= 0, got ${value}`);
  return parsed;
}

export function orderRowToOrder(row: SimOrderRow): ExchangeOrder {
  return {
    orderId: row.id,
    clientOrderId: row.client_order_id,
    symbol: row.symbol,
    side: row.side as OrderSide,
    type: row.order_type as OrderType,
    status: row.status as ExchangeOrderStatus,
    quantity: norm(row.quantity)!,
    price: norm(row.price),
    filledQuantity: norm(row.filled_quantity) ?? "0",
    averagePrice: norm(row.average_price),
    fee: norm(row.fee) ?? "0",
    leverage: Number(row.leverage),
    marginType: row.margin_type as MarginType,
    rejectReason: row.reject_reason,
    createdAt: new Date(Number(row.created_at)).toISOString(),
    updatedAt: new Date(Number(row.updated_at)).toISOString(),
  };
}

function positionRowToState(row: SimPositionRow | undefined): PositionState | null {
  if (!row) return null;
  return {
    side: row.side as PositionState["side"],
    quantity: norm(row.quantity)!,
    entryPrice: norm(row.entry_price)!,
    margin: norm(row.margin) ?? "0",
    leverage: Number(row.leverage),
    marginType: row.margin_type as MarginType,
    realizedPnl: norm(row.realized_pnl) ?? "0",
  };
}

/** A sim_positions row as the liquidation rule reads it (its held margin, its mark). */
function accountPositionOf(row: SimPositionRow, mark: string | null): AccountPosition {
  return {
    symbol: row.symbol,
    side: row.side as "long" | "short",
    entryPrice: norm(row.entry_price)!,
    quantity: norm(row.quantity)!,
    leverage: Number(row.leverage),
    marginType: row.margin_type,
    margin: norm(row.margin) ?? "0",
    mark,
  };
}

// ---------------------------------------------------------------------------------------
// Transactions and locks

interface LockedBalance {
  available: string;
  hold: string;
}

/** Locks the account's balance row (first lock of every trade: lockSimBalance) and reads it. */
async function lockBalance(trx: Trx, profileId: string, currency: string): Promise<LockedBalance> {
  const row = await lockSimBalance(trx, profileId, currency);
  if (!row) throw new ExchangeError(`The paper account has no ${currency} balance`);
  return { available: norm(row.available)!, hold: norm(row.hold)! };
}

const writeBalance = updateSimBalance;
const lockPosition = lockSimPosition;

/**
 * Writes the position; `previous` is the row before the fill (undefined: none). opened_at
 * (funding: a position is charged at a boundary only if it was open then) is set when the
 * position takes a side it did not have, cleared when it goes flat, kept otherwise.
 */
async function writePosition(trx: Trx, profileId: string, symbol: string, state: PositionState, previous: SimPositionRow | undefined, now: number) {
  const openedAt = state.side === "flat" ? null : state.side !== (previous?.side ?? "flat") ? now : undefined;
  const values = {
    ...(openedAt === undefined ? {} : { opened_at: openedAt }),
    side: state.side,
    quantity: state.quantity,
    entry_price: state.entryPrice,
    margin: state.margin,
    leverage: state.leverage,
    margin_type: state.marginType,
    realized_pnl: state.realizedPnl,
    updated_at: now,
  };
  await saveSimPosition(trx, profileId, symbol, values, previous !== undefined);
}

async function readOrder(db: Db | Trx, id: string): Promise<ExchangeOrder> {
  const row = await getSimOrder(db, id);
  if (!row) throw new ExchangeError(`Order ${id} vanished inside its own transaction`);
  return orderRowToOrder(row);
}

/** The simulator's default taker fee (what a market order pays), also used by the web's margin pre-check. */
export const SIM_TAKER_FEE_RATE = "0.0006";

export const insufficientMargin = (needs: string, available: string, currency: string) =>
  `Insufficient margin: order needs ${moneyUp(needs)} ${currency}, available ${moneyDown(available)} ${currency}`;

/** The refusal when the free collateral, less the open positions' unrealized losses, cannot carry `needs`; null when it can. */
function marginShortfall(needs: Big, free: Big, loss: string, currency: string): string | null {
  const usable = free.plus(loss);
  if (!needs.gt(usable)) return null;
  const counted = D(loss).lt(0) ? ` (unrealized losses of open positions ${moneyUp(D(loss).neg())} ${currency} counted)` : "";
  return `${insufficientMargin(needs.toString(), usable.toString(), currency)}${counted}`;
}

/**
 * The unrealized losses the account's open positions take from its free collateral
 * (matching.ts unrealizedLoss) at the stored prices: every position but `symbol`'s, plus
 * `own` (what stays open of `symbol`'s position after the order's closing part) at `ownMark`.
 */
async function accountLoss(trx: Trx, profileId: string, symbol: string, own: PositionState | null, ownMark: string | null): Promise<string> {
  const rows = await listOtherSimPositions(trx, profileId, symbol);
  let loss = D(unrealizedLoss(own, ownMark));
  if (rows.length === 0) return loss.toString();
  const prices = await getPrices(trx);
  for (const row of rows) loss = loss.plus(unrealizedLoss(positionRowToState(row), prices.get(row.symbol)?.price ?? null));
  return loss.toString();
}

/** What stays open of `position` once `closed` of it is closed (null when nothing does). */
function remainingOf(position: PositionState | null, closed: string): PositionState | null {
  if (!position || position.side === "flat") return null;
  const rest = D(position.quantity).minus(closed);
  if (rest.lte(0)) return null;
  return { ...position, quantity: rest.toString(), margin: D(position.margin).times(rest).div(position.quantity).toString() };
}

// ---------------------------------------------------------------------------------------
// Resting limits

export interface MatchOptions {
  /** Default "0.0002". */
  makerFeeRate?: string;
  /** Default "USDC". */
  currency?: string;
}

/**
 * Fills every open limit order of `symbol` that `price` crosses (buy limit >= price, sell
 * limit <= price), oldest first, each at its limit price with the maker fee, each in its own
 * transaction. Returns the orders that changed (filled, or cancelled when a reduce-only
 * order has nothing left to reduce or margin no longer suffices).
 */
export async function matchRestingOrders(db: Db, symbol: string, price: string, options: MatchOptions = {}): Promise<ExchangeOrder[]> {
  const market = parseDecimal(price);
  if (market === null || !D(market).gt(0)) throw new Error(`matchRestingOrders: price must be > 0, got ${price}`);
  const makerFeeRate = rateOption(options.makerFeeRate, "0.0002", "maker fee rate");
  const currency = options.currency ?? "USDC";
  const rows = await listOpenSimOrders(db, { symbol });
  const changed: ExchangeOrder[] = [];
  for (const row of rows) {
    if (row.price === null || !crossesLimit(row.side as OrderSide, norm(row.price)!, market)) continue;
    const order = await fillRestingOrder(db, row.id, market, makerFeeRate, currency);
    if (order) changed.push(order);
  }
  return changed;
}

async function fillRestingOrder(db: Db, orderId: string, market: string, makerFeeRate: string, currency: string) {
  // The owner never changes, so it is read before the transaction: the balance lock must be
  // the transaction's first statement (on SQLite a read first would pin a snapshot that a
  // later write lock cannot upgrade from once another process has written).
  const owner = await getSimOrderOwner(db, orderId);
  if (owner === null) return null;
  return transactionWithLockRetry(db, async (trx) => {
    const balance = await lockBalance(trx, owner, currency);
    const row = await lockSimOrder(trx, orderId);
    if (!row || row.status !== "open" || row.price === null) return null; // filled or cancelled meanwhile
    const side = row.side as OrderSide;
    const limit = norm(row.price)!;
    if (!crossesLimit(side, limit, market)) return null;

    const now = Date.now();
    const positionRow = await lockPosition(trx, row.profile_id, row.symbol);
    const position = positionRowToState(positionRow);
    // The order's hold goes back first; the fill then takes what it really needs.
    const held = norm(row.hold_amount) ?? "0";
    let available = D(balance.available).plus(held);
    let hold = D(balance.hold).minus(held);

    const cancel = async (reason: string) => {
      await writeBalance(trx, row.profile_id, currency, { available: available.toString(), hold: hold.toString() }, now);
      await updateSimOrder(trx, orderId, { status: "cancelled", reject_reason: reason, hold_amount: "0", updated_at: now });
      return readOrder(trx, orderId);
    };

    let quantity = norm(row.quantity)!;
    if (row.reduce_only) {
      quantity = reduceOnlyQuantity(position, side, quantity);
      if (!D(quantity).gt(0)) return cancel(`Reduce-only order cancelled: no open ${row.symbol} position to reduce`);
    }
    const fill = applyFill(position, {
      side,
      quantity,
      price: limit,
      feeRate: makerFeeRate,
      leverage: Number(row.leverage),
      marginType: row.margin_type as MarginType,
    });
    if (D(fill.openedQuantity).gt(0)) {
      const loss = await accountLoss(trx, row.profile_id, row.symbol, remainingOf(position, fill.closedQuantity), limit);
      const refused = marginShortfall(D(fill.marginRequired).plus(fill.openFee), available.plus(fill.settlement), loss, currency);
      if (refused) return cancel(`${refused} when the limit price was reached`);
    }
    available = available.plus(fill.availableDelta);
    hold = hold.plus(fill.holdDelta);
    await writeBalance(trx, row.profile_id, currency, { available: available.toString(), hold: hold.toString() }, now);
    await writePosition(trx, row.profile_id, row.symbol, fill.position, positionRow, now);
    await updateSimOrder(trx, orderId, {
      status: "filled",
      quantity,
      filled_quantity: quantity,
      average_price: limit,
      fee: fill.fee,
      realized_pnl: fill.realizedPnl,
      hold_amount: "0",
      updated_at: now,
    });
    return readOrder(trx, orderId);
  });
}

// ---------------------------------------------------------------------------------------
// Liquidation (docs/decisions/024-paper-margin.md)

export interface LiquidationOptions {
  /** Taker fee rate the liquidation pays. Default SIM_TAKER_FEE_RATE. */
  feeRate?: string;
  /** Default "USDC". */
  currency?: string;
  /** Only these symbols' marks moved (a tick); default every open position is looked at. */
  symbols?: string[];
}

export interface Liquidation {
  profileId: string;
  /** The filled liq-<uuid> order that closed the position. */
  order: ExchangeOrder;
  side: "long" | "short";
  marginType: MarginType;
  leverage: number;
  entryPrice: string;
  /** The mark that reached the liquidation price. */
  markPrice: string;
  /** The price it closed at: its liquidation price (a cross account's other positions: their mark). */
  liquidationPrice: string;
  realizedPnl: string;
}

const openRows = (rows: SimPositionRow[]) => rows.filter((row) => row.side !== "flat" && D(row.quantity).gt(0));

/**
 * Closes every open paper position whose mark (market_prices) reached its liquidation price
 * (app/core/orders/liquidation.ts, the figure getPositions shows): an isolated one alone, at
 * that price; a cross one takes the account's other cross positions with it (the account's
 * equity is down to its maintenance margin), the crossed one at its liquidation price, the
 * others at their mark. Each close is a filled market order `liq-<uuid>` paying the taker
 * fee, booked like any fill on the balance (margin released, P&L and fee settled). One
 * transaction per account, under its balance lock; nothing is written when nothing crossed.
 */
export async function liquidateAccounts(db: Db, options: LiquidationOptions = {}): Promise<Liquidation[]> {
  const feeRate = rateOption(options.feeRate, SIM_TAKER_FEE_RATE, "fee rate");
  const currency = options.currency ?? "USDC";
  if (options.symbols?.length === 0) return [];
  // A cross account can be liquidated by any of its symbols' moves: every position of an
  // account holding one of these symbols is read.
  const rows = openRows(await listNonFlatSimPositions(db, options.symbols));
  if (rows.length === 0) return [];
  const prices = await getPrices(db);
  const byProfile = new Map<string, SimPositionRow[]>();
  for (const row of rows) byProfile.set(row.profile_id, [...(byProfile.get(row.profile_id) ?? []), row]);
  const balances = await listSimAvailable(db, currency, [...byProfile.keys()]);
  const out: Liquidation[] = [];
  for (const [profileId, positions] of byProfile) {
    const available = balances.find((b) => b.profile_id === profileId)?.available;
    // A read without locks first: most ticks liquidate nothing and must write nothing.
    if (available === undefined || crossedSymbols(positions, prices, norm(available)!).size === 0) continue;
    out.push(...(await transactionWithLockRetry(db, (trx) => liquidateAccount(trx, profileId, feeRate, currency))));
  }
  return out;
}

type Prices = Awaited<ReturnType<typeof getPrices>>;

/** The symbols whose mark reached their liquidation price (with that price). */
function crossedSymbols(rows: SimPositionRow[], prices: Prices, available: string): Map<string, { mark: string; liquidation: string }> {
  const accountRows = rows.map((row) => accountPositionOf(row, prices.get(row.symbol)?.price ?? null));
  const liquidation = accountLiquidationPrices(accountRows, available);
  const crossed = new Map<string, { mark: string; liquidation: string }>();
  for (const p of accountRows) {
    const price = liquidation.get(p.symbol) ?? null;
    if (p.mark !== null && price !== null && isLiquidated(p.side, price, p.mark)) crossed.set(p.symbol, { mark: p.mark, liquidation: price });
  }
  return crossed;
}

async function liquidateAccount(trx: Trx, profileId: string, feeRate: string, currency: string): Promise<Liquidation[]> {
  const balance = await lockBalance(trx, profileId, currency);
  const rows = openRows(await lockNonFlatSimPositions(trx, profileId));
  const prices = await getPrices(trx);
  const crossed = crossedSymbols(rows, prices, balance.available); // again, under the lock
  if (crossed.size === 0) return [];
  const crossAccount = rows.some((row) => row.margin_type !== "isolated" && crossed.has(row.symbol));
  const closing = rows.filter((row) => crossed.has(row.symbol) || (crossAccount && row.margin_type !== "isolated"));
  let available = D(balance.available);
  let hold = D(balance.hold);
  const now = Date.now();
  const out: Liquidation[] = [];
  for (const row of closing) {
    const state = positionRowToState(row)!;
    const hit = crossed.get(row.symbol);
    const mark = hit?.mark ?? prices.get(row.symbol)?.price ?? state.entryPrice;
    const price = hit?.liquidation ?? mark;
    const side: OrderSide = state.side === "long" ? "sell" : "buy";
    const fill = applyFill(state, { side, quantity: state.quantity, price, feeRate, leverage: state.leverage, marginType: state.marginType });
    available = available.plus(fill.availableDelta);
    hold = hold.plus(fill.holdDelta);
    await writePosition(trx, profileId, row.symbol, fill.position, row, now);
    const id = randomUUID();
    await insertSimOrder(trx, {
      id,
      client_order_id: `liq-${randomUUID()}`,
      profile_id: profileId,
      symbol: row.symbol,
      side,
      order_type: "market",
      quantity: state.quantity,
      price: null,
      leverage: state.leverage,
      margin_type: state.marginType,
      reduce_only: 1,
      status: "filled",
      filled_quantity: state.quantity,
      average_price: price,
      fee: fill.fee,
      realized_pnl: fill.realizedPnl,
      created_at: now,
      updated_at: now,
    });
    out.push({
      profileId,
      order: await readOrder(trx, id),
      side: state.side as "long" | "short",
      marginType: state.marginType,
      leverage: state.leverage,
      entryPrice: state.entryPrice,
      markPrice: mark,
      liquidationPrice: price,
      realizedPnl: fill.realizedPnl,
    });
  }
  await writeBalance(trx, profileId, currency, { available: available.toString(), hold: hold.toString() }, now);
  return out;
}

// ---------------------------------------------------------------------------------------
// Funding (docs/decisions/024-paper-margin.md)

export interface FundingOptions {
  /** Rate per interval (SIM_FUNDING_RATE); longs pay shorts when positive. "0" does nothing. */
  rate: string;
  /** Interval length (SIM_FUNDING_INTERVAL_SECONDS x 1000); boundaries are multiples of it on the epoch. */
  intervalMs: number;
  now?: number;
  /** Default "USDC". */
  currency?: string;
}

export interface FundingPayment {
  id: string;
  profileId: string;
  symbol: string;
  intervalStart: number;
  side: "long" | "short";
  quantity: string;
  markPrice: string;
  rate: string;
  /** Signed, on the balance: negative = the position paid. */
  amount: string;
  createdAt: number;
}

/** The funding boundary at or before `now`. */
export const fundingBoundary = (now: number, intervalMs: number) => Math.floor(now / intervalMs) * intervalMs;

/**
 * Settles the latest funding boundary: every open paper position that was open at it
 * (opened_at <= boundary) and has no sim_funding row for it pays (long, positive rate) or
 * receives notional at the mark x rate, on its account's available balance. One transaction
 * per account under its balance lock; the unique (profile, symbol, interval) key and the
 * re-check under the lock make each interval's payment once, across workers and restarts.
 * Boundaries missed while no price leader ran are not charged afterwards.
 */
export async function applyFunding(db: Db, options: FundingOptions): Promise<FundingPayment[]> {
  const rate = parseDecimal(options.rate);
  if (rate === null) throw new Error(`applyFunding: rate must be a decimal, got ${options.rate}`);
  if (D(rate).eq(0) || !(options.intervalMs > 0)) return [];
  const boundary = fundingBoundary(options.now ?? Date.now(), options.intervalMs);
  const currency = options.currency ?? "USDC";
  const due = await listSimFundingDue(db, boundary);
  const out: FundingPayment[] = [];
  for (const profileId of new Set(due.map((d) => d.profile_id))) {
    out.push(...(await transactionWithLockRetry(db, (trx) => fundAccount(trx, profileId, boundary, rate, currency))));
  }
  return out;
}

async function fundAccount(trx: Trx, profileId: string, boundary: number, rate: string, currency: string): Promise<FundingPayment[]> {
  const balance = await lockBalance(trx, profileId, currency);
  const rows = openRows(await listSimPositionsOpenAt(trx, profileId, boundary));
  const done = new Set(await listSimFundedSymbols(trx, profileId, boundary));
  const prices = await getPrices(trx);
  const now = Date.now();
  let available = D(balance.available);
  const out: FundingPayment[] = [];
  for (const row of rows) {
    const mark = prices.get(row.symbol)?.price;
    if (done.has(row.symbol) || !mark) continue;
    const state = positionRowToState(row)!;
    const payment = D(q(D(state.quantity).times(mark).times(rate)));
    const amount = (state.side === "long" ? payment.neg() : payment).toString();
    const record: FundingPayment = {
      id: randomUUID(),
      profileId,
      symbol: row.symbol,
      intervalStart: boundary,
      side: state.side as "long" | "short",
      quantity: state.quantity,
      markPrice: mark,
      rate,
      amount,
      createdAt: now,
    };
    await insertSimFunding(trx, {
      id: record.id,
      profile_id: profileId,
      symbol: row.symbol,
      interval_start: boundary,
      side: record.side,
      quantity: record.quantity,
      mark_price: mark,
      rate,
      amount,
      created_at: now,
    });
    available = available.plus(amount);
    out.push(record);
  }
  if (out.length > 0) await writeBalance(trx, profileId, currency, { available: available.toString(), hold: balance.hold }, now);
  return out;
}

export function fundingRowToPayment(row: SimFundingRow): FundingPayment {
  return {
    id: row.id,
    profileId: row.profile_id,
    symbol: row.symbol,
    intervalStart: Number(row.interval_start),
    side: row.side as "long" | "short",
    quantity: norm(row.quantity)!,
    markPrice: norm(row.mark_price)!,
    rate: norm(row.rate)!,
    amount: norm(row.amount)!,
    createdAt: Number(row.created_at),
  };
}

// ---------------------------------------------------------------------------------------
// The adapter

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

  private async createAccount(): Promise<string> {
    const now = Date.now();
    const explicit = this.options.profileId;
    // INSERT IGNORE on a unique key: two processes starting together make one profile.
    await insertSimProfileIgnore(this.db, {
      id: explicit ?? randomUUID(),
      profile_id: explicit ?? DEFAULT_PAPER_PROFILE_KEY,
      name: explicit ? (this.options.profileName ?? "Paper trading") : "Paper trading",
      is_default: explicit ? 0 : 1,
      active: 1,
      trading_enabled: 1,
      has_margin_enabled: 1,
      source: "simulator",
      created_at: now,
      updated_at: now,
    });
    const profileId = explicit ? await getSimProfileId(this.db, "id", explicit) : await getSimProfileId(this.db, "key", DEFAULT_PAPER_PROFILE_KEY);
    await insertSimBalanceIgnore(this.db, profileId, this.currency, this.startingBalance, now);
    return profileId;
  }

  private validate(request: PlaceOrderRequest): ValidOrder {
    const product = productOf(request.symbol);
    if (!product) throw new InvalidOrderError(`Unknown symbol ${request.symbol}`);
    if (request.side !== "buy" && request.side !== "sell") throw new InvalidOrderError(`Invalid side ${request.side}: use buy or sell`);
    if (request.type !== "market" && request.type !== "limit")
      throw new InvalidOrderError(`Invalid order type ${request.type}: use market or limit`);

    const requested = parseDecimal(request.quantity);
    if (requested === null || !D(requested).gt(0)) throw new InvalidOrderError(`Quantity must be a number greater than 0, got ${request.quantity}`);
    const quantity = floorToIncrement(requested, product.baseIncrement);
    if (D(quantity).lt(product.baseMinSize)) {
      throw new InvalidOrderError(
        `Quantity ${requested} ${product.base} is below the minimum order size of ${product.baseMinSize} ${product.base} for ${product.symbol}`,
      );
    }

    const leverage = request.leverage ?? 1;
    if (!Number.isInteger(leverage) || leverage < 1 || leverage > MAX_LEVERAGE) {
      throw new InvalidOrderError(`Leverage must be a whole number from 1 to ${MAX_LEVERAGE}, got ${leverage}`);
    }
    const marginType = request.marginType ?? "cross";
    if (marginType !== "cross" && marginType !== "isolated") throw new InvalidOrderError(`Invalid margin type ${marginType}: use cross or isolated`);

    let price: string | null = null;
    if (request.type === "limit") {
      const raw = request.price == null ? null : parseDecimal(request.price);
      if (raw === null || !D(raw).gt(0)) throw new InvalidOrderError(`A limit order needs a price greater than 0, got ${request.price ?? "none"}`);
      price = roundToIncrement(raw, product.quoteIncrement);
      if (!D(price).gt(0)) throw new InvalidOrderError(`Price ${raw} is below the price tick of ${product.quoteIncrement} for ${product.symbol}`);
    }
    return { product, side: request.side, type: request.type, quantity, price, leverage, marginType, reduceOnly: Boolean(request.reduceOnly) };
  }

  async placeOrder(request: PlaceOrderRequest): Promise<ExchangeOrder> {
    const clientOrderId = typeof request.clientOrderId === "string" ? request.clientOrderId.trim() : "";
    if (!clientOrderId || clientOrderId.length > 100) throw new InvalidOrderError("A client order id of 1 to 100 characters is required");
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
  private async execute(trx: Trx, profileId: string, clientOrderId: string, order: ValidOrder): Promise<{ order: ExchangeOrder; error?: ExchangeError }> {
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
      if (!market) throw new TemporaryError(`No market price for ${symbol} yet: the simulator's price feed has not written one`);
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
      await writeBalance(trx, profileId, currency, { available: D(balance.available).minus(held).toString(), hold: D(balance.hold).plus(held).toString() }, now);
      await insertSimOrder(trx, { ...row(), status: "open", hold_amount: held.toString() });
      return { order: await readOrder(trx, id) };
    }

    const fill = applyFill(position, { side, quantity, price: fillPrice, feeRate: this.feeRate, leverage: order.leverage, marginType: order.marginType });
    if (D(fill.openedQuantity).gt(0)) {
      const loss = await accountLoss(trx, profileId, symbol, remainingOf(position, fill.closedQuantity), market?.price ?? fillPrice);
      const refused = marginShortfall(D(fill.marginRequired).plus(fill.openFee), D(balance.available).plus(fill.settlement), loss, currency);
      if (refused) return reject(new InsufficientFundsError(refused));
    }
    await writeBalance(
      trx,
      profileId,
      currency,
      { available: D(balance.available).plus(fill.availableDelta).toString(), hold: D(balance.hold).plus(fill.holdDelta).toString() },
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
      if (row.status !== "open") throw new InvalidOrderError(`Order ${orderId} is ${row.status}: only open orders can be cancelled`);
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
    return rows.map((row) => ({ currency: row.currency, available: norm(row.available)!, hold: norm(row.hold) ?? "0" }));
  }

  async getPositions(): Promise<ExchangePosition[]> {
    const profileId = await this.ensureAccount();
    const rows = await listSimPositions(this.db, profileId);
    const open = rows.filter((row) => row.side !== "flat" && D(row.quantity).gt(0));
    if (open.length === 0) return [];
    const [prices, available] = await Promise.all([getPrices(this.db), getSimAvailable(this.db, profileId, this.currency)]);
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
    for (const fill of fills) volume.set(fill.symbol, (volume.get(fill.symbol) ?? D(0)).plus(String(fill.filled_quantity)));
    return PRODUCTS.map((spec) => {
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
    if (!price) throw new TemporaryError(`No market price for ${symbol} yet: the simulator's price feed has not written one`);
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
      return { success: true, message: `Simulator ready: ${moneyDown(balance?.available ?? "0")} ${this.currency} available` };
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

