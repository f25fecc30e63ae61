// Resting limit orders: a limit order that does not cross when placed rests ("open", holding
// its margin and maker fee) until a price crosses it; matchRestingOrders (run on every price
// tick by worker/monitor/price-loop.ts) fills it at its limit price with the maker fee.
// Fills are whole (no partial fills).
import { D, parseDecimal } from "#app/core/decimal.ts";
import type { ExchangeOrder, MarginType, OrderSide } from "#app/core/exchange/types.ts";
import { getSimOrderOwner, listOpenSimOrders, lockSimOrder, updateSimOrder } from "#db/queries/simulator.ts";
import { type Db, transactionWithLockRetry } from "#db/queries/util.ts";
import { lockBalance, lockPosition, writeBalance, writePosition } from "./account.ts";
import { accountLoss, marginShortfall, remainingOf } from "./margin.ts";
import { applyFill, crossesLimit, reduceOnlyQuantity } from "./matching.ts";
import { norm, positionRowToState, rateOption, readOrder } from "./rows.ts";

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
export async function matchRestingOrders(
  db: Db,
  symbol: string,
  price: string,
  options: MatchOptions = {},
): Promise<ExchangeOrder[]> {
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
    if (row?.status !== "open" || row.price === null) return null; // filled or cancelled meanwhile
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
      await writeBalance(
        trx,
        row.profile_id,
        currency,
        { available: available.toString(), hold: hold.toString() },
        now,
      );
      await updateSimOrder(trx, orderId, {
        status: "cancelled",
        reject_reason: reason,
        hold_amount: "0",
        updated_at: now,
      });
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
      const loss = await accountLoss(
        trx,
        row.profile_id,
        row.symbol,
        remainingOf(position, fill.closedQuantity),
        limit,
      );
      const refused = marginShortfall(
        D(fill.marginRequired).plus(fill.openFee),
        available.plus(fill.settlement),
        loss,
        currency,
      );
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
