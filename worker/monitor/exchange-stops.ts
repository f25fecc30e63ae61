// Protection that survives the worker (issue 15). On an exchange that keeps resting stop
// orders (Coinbase: stop-limit GTC), every open position with a stop gets one there, placed
// and kept in step by the price leader (with the order sync, every 2 s):
// - where: the tighter of its stop-loss (the entry after break-even) and its armed trailing
//   exit; for its remaining quantity; the limit 0.5 % beyond the stop so a gap still fills;
// - moved (cancel, then place) when that price moves by 0.05 % or more (trailing: at most every
//   5 s) or the quantity changes; withdrawn when the position closes or loses its stop;
// - under the symbol's order slot (db/queries/order-slots.ts), and withdrawn by the worker
//   before it sends any other order on the symbol (worker/execution.ts): Advanced Trade has no
//   reduce-only stop, so it must never rest beside another order that changes the position;
// - a stop the exchange filled (the worker was down, or the price gapped) is booked from the
//   exchange's order like any fill (source "exchange-stop"): the book follows the exchange.
// The worker's own rules keep running too; whichever acts first, the slot and the re-sizing of
// closes (executeTrade) keep the book equal to the exchange. The simulator keeps no resting
// orders: its stops run in the worker (the position says so).
import type { Kysely } from "kysely";
import { D } from "../../app/core/decimal.ts";
import { InvalidOrderError, OrderNotFoundError } from "../../app/core/exchange/errors.ts";
import type { ExchangeAdapter, ExchangeOrder } from "../../app/core/exchange/types.ts";
import type { AdvancedControls } from "../../app/core/orders/controls.ts";
import { recordActivity } from "../../db/queries/activity-logs.ts";
import { appendEvent } from "../../db/queries/events.ts";
import { type ExchangeStop, deleteExchangeStop, getExchangeStopBySymbol, listExchangeStops, saveExchangeStop } from "../../db/queries/exchange-stops.ts";
import { releaseOrderSlot, tryOrderSlot } from "../../db/queries/order-slots.ts";
import { listOpenPositions } from "../../db/queries/positions.ts";
import { getTradeByClientOrderId, insertTrade, newClientOrderId } from "../../db/queries/trades.ts";
import { newId } from "../../db/queries/util.ts";
import type { DB } from "../../db/schema.ts";
import { bookOrder } from "../execution.ts";

/** How far beyond the stop its limit sits (a gap still fills, at most this much worse). */
export const STOP_LIMIT_BUFFER = "0.005";
/** A stop moves only when the wanted price is this far (fraction) from the resting one. */
export const STOP_MOVE_MIN_FRACTION = "0.0005";
/** ... and at most this often for the same quantity (trailing). */
export const STOP_MOVE_MIN_MS = 5_000;

type Adapter = Pick<ExchangeAdapter, "name" | "label" | "getOrder" | "cancelOrder" | "placeStopOrder">;

/** The adapter in use now (the worker's exchange switches with the credentials). */
export async function activeAdapter(exchange: ExchangeAdapter): Promise<ExchangeAdapter> {
  const switching = exchange as ExchangeAdapter & { current?: () => Promise<ExchangeAdapter> };
  return typeof switching.current === "function" ? switching.current() : exchange;
}

/** Where a position's resting stop belongs: the tighter of its stop (SL or break-even) and its armed trailing exit; null: none. */
export function desiredStop(p: {
  side: "long" | "short";
  stopPrice: string | null;
  trailingStopActive: boolean;
  trailingBestPrice: string | null;
  advancedControls: AdvancedControls | null;
}): string | null {
  const long = p.side === "long";
  let stop = p.stopPrice ? D(p.stopPrice) : null;
  const trailing = p.advancedControls?.trailingStop;
  if (p.trailingStopActive && p.trailingBestPrice && trailing) {
    const exit = D(p.trailingBestPrice).times(long ? D(1).minus(trailing.execute) : D(1).plus(trailing.execute));
    if (!stop || (long ? exit.gt(stop) : exit.lt(stop))) stop = exit;
  }
  return stop && stop.gt(0) ? stop.toString() : null;
}

export interface StopSyncResult {
  placed: number;
  moved: number;
  withdrawn: number;
  filled: number;
}

/** One pass over the exchange's stops and the open positions. */
export async function syncExchangeStops(db: Kysely<DB>, exchange: ExchangeAdapter, now = Date.now()): Promise<StopSyncResult> {
  const result: StopSyncResult = { placed: 0, moved: 0, withdrawn: 0, filled: 0 };
  const adapter = await activeAdapter(exchange);
  if (!adapter.placeStopOrder) return result;
  const name = adapter.name;
  const positions = await listOpenPositions(db);
  const open = new Set(positions.map((p) => p.id));

  // Stops the exchange filled are booked; stops of closed positions withdrawn; stops gone from the exchange forgotten (placed again below).
  for (const record of await listExchangeStops(db, name)) {
    let order: ExchangeOrder | null;
    try {
      order = await adapter.getOrder(record.order_id);
    } catch (error) {
      if (!(error instanceof OrderNotFoundError)) throw error;
      order = null;
    }
    if (order && D(order.filledQuantity).gt(0)) {
      await bookStopFill(db, adapter, record, order);
      result.filled++;
    } else if (!order || order.status !== "open") {
      await deleteExchangeStop(db, record.position_id);
    } else if (!open.has(record.position_id)) {
      if (await withdrawStop(db, adapter, record)) result.withdrawn++;
    }
  }

  const records = new Map((await listExchangeStops(db, name)).map((r) => [r.position_id, r]));
  // Re-read: a stop booked above may have closed or reduced a position.
  for (const p of result.filled > 0 ? await listOpenPositions(db) : positions) {
    const record = records.get(p.id) ?? null;
    const wanted = desiredStop(p);
    const sameQuantity = record !== null && D(record.quantity).eq(p.remainingQuantity);
    if (wanted && sameQuantity) {
      const drift = D(wanted).minus(record!.stop_price).abs().div(record!.stop_price);
      if (drift.lt(STOP_MOVE_MIN_FRACTION) || now - Number(record!.updated_at) < STOP_MOVE_MIN_MS) continue;
    }
    if (!wanted && !record) continue;
    const holder = `stop:${p.id}`;
    if (!(await tryOrderSlot(db, name, p.symbol, holder, now))) continue; // an order on the symbol is in flight
    try {
      if (record && !(await withdrawStop(db, adapter, record))) continue; // it had filled: booked, next pass decides
      if (!wanted) {
        result.withdrawn++;
        continue;
      }
      const side = p.side === "long" ? "sell" : "buy";
      const limitPrice = D(wanted).times(side === "sell" ? D(1).minus(STOP_LIMIT_BUFFER) : D(1).plus(STOP_LIMIT_BUFFER)).toString();
      const clientOrderId = newClientOrderId();
      const order = await adapter.placeStopOrder({ clientOrderId, symbol: p.symbol, side, quantity: p.remainingQuantity, stopPrice: wanted, limitPrice });
      await saveExchangeStop(db, {
        position_id: p.id,
        exchange: name,
        symbol: p.symbol,
        order_id: order.orderId,
        client_order_id: clientOrderId,
        side,
        stop_price: wanted,
        limit_price: order.price ?? limitPrice,
        quantity: p.remainingQuantity,
      });
      if (record) result.moved++;
      else result.placed++;
      await db.transaction().execute(async (trx) => {
        if (!record) {
          await recordActivity(trx, {
            type: "trade",
            level: "info",
            message: `Stop for ${p.symbol} now rests on ${adapter.label} at ${wanted} (${p.remainingQuantity}): it protects the position even if the worker stops`,
            data: { positionId: p.id, symbol: p.symbol, orderId: order.orderId, stopPrice: wanted },
          });
        }
        await appendEvent(trx, "dashboard_update", { reason: "exchange_stop", positionId: p.id, symbol: p.symbol });
      });
    } catch (error) {
      await recordActivity(db, {
        type: "trade",
        level: "warning",
        message: `No resting stop for ${p.symbol} on ${adapter.label}: ${(error as Error).message}. Its protection runs in the worker only`,
        data: { positionId: p.id, symbol: p.symbol },
      });
    } finally {
      await releaseOrderSlot(db, name, p.symbol, holder);
    }
  }
  return result;
}

/**
 * Before any order on `symbol` (called under that symbol's order slot): the position's resting
 * stop is cancelled, so it cannot act beside the new order; a stop found filled is booked first.
 */
export async function withdrawStopFor(db: Kysely<DB>, exchange: ExchangeAdapter, symbol: string): Promise<void> {
  const adapter = await activeAdapter(exchange);
  if (!adapter.placeStopOrder) return;
  const record = await getExchangeStopBySymbol(db, adapter.name, symbol);
  if (record) await withdrawStop(db, adapter, record);
}

/** Cancels a resting stop. True when withdrawn; false when it had (partly) filled: that is booked. */
async function withdrawStop(db: Kysely<DB>, adapter: Adapter, record: ExchangeStop): Promise<boolean> {
  let order: ExchangeOrder | null = null;
  try {
    order = await adapter.cancelOrder(record.order_id);
  } catch (error) {
    if (error instanceof OrderNotFoundError) order = null;
    else if (error instanceof InvalidOrderError) order = await adapter.getOrder(record.order_id); // already final: filled
    else throw error;
  }
  if (order && D(order.filledQuantity).gt(0)) {
    await bookStopFill(db, adapter, record, order);
    return false;
  }
  await deleteExchangeStop(db, record.position_id);
  return true;
}

/** The exchange filled (part of) a resting stop: booked from its order, the rest cancelled. */
async function bookStopFill(db: Kysely<DB>, adapter: Adapter, record: ExchangeStop, order: ExchangeOrder): Promise<void> {
  if (order.status === "open") {
    // Partly filled: the rest is cancelled (the next pass places a stop for what remains).
    order = await adapter.cancelOrder(order.orderId).catch(() => adapter.getOrder(order.orderId));
  }
  let trade = await getTradeByClientOrderId(db, record.client_order_id);
  if (!trade) {
    await insertTrade(db, {
      id: newId(),
      symbol: record.symbol,
      side: record.side === "buy" ? "buy" : "sell",
      orderType: "limit",
      quantity: record.quantity,
      price: record.limit_price,
      source: "exchange-stop",
      clientOrderId: record.client_order_id,
      exchange: adapter.name,
      signalId: null,
      positionId: record.position_id,
      jobId: null,
      leverage: null,
      marginType: null,
      // What the exchange did is booked whole: its stop is not reduce-only.
      reduceOnly: false,
    });
    trade = (await getTradeByClientOrderId(db, record.client_order_id))!;
    await recordActivity(db, {
      type: "trade",
      level: "warning",
      message: `Resting stop on ${adapter.label} filled for ${record.symbol}: ${order.filledQuantity} at ${order.averagePrice ?? record.stop_price} (the exchange acted; the book follows it)`,
      data: { positionId: record.position_id, symbol: record.symbol, orderId: order.orderId, stopPrice: record.stop_price },
    });
  }
  if (trade.status === "pending" || trade.status === "unknown") await bookOrder(db, trade, order, adapter.name);
  await deleteExchangeStop(db, record.position_id);
}
