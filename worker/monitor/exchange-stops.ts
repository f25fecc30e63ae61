// Protection that survives the worker (issue 15). On an exchange that keeps resting stop
// orders (Coinbase: stop-limit GTC), every open position with a stop gets one there, placed
// and kept in step by the price leader (with the order sync, every 2 s). The lifecycle, and
// why each step is as it is: docs/decisions/038-stop-lifecycle-and-order-slots.md.
// - where: the tighter of its stop-loss (the entry after break-even) and its armed trailing
//   exit; for its remaining quantity, never more than the exchange holds of it (a drift alarm
//   open: the smaller of the two; the exchange flat or the other way: no stop); the limit
//   0.5 % beyond the stop so a gap still fills;
// - placed: the intent (client order id) is recorded BEFORE the exchange is asked. An answer
//   that never comes (error after accept, dropped connection, timeout) leaves it `placing`:
//   it is looked up by client order id before anything else is placed for the position, so a
//   stop is never placed twice. A refusal is `refused`: placed again after a back-off, with
//   one alarm when refusals go on;
// - moved when the wanted price moves by 0.05 % or more (trailing: at most every 5 s) or the
//   quantity changes: edited in place where the exchange can (no moment without a stop),
//   else cancelled then placed; withdrawn when the position closes or loses its stop;
// - under the symbol's order slot (db/queries/order-slots.ts). Advanced Trade has no
//   reduce-only stop, so before the worker sends any other order on the symbol
//   (worker/execution.ts) the stop is cut to what that order leaves (a market take-profit),
//   left as is (a market add) or withdrawn (a close of everything, a flip, a limit order);
// - a stop the exchange filled (the worker was down, or the price gapped) is booked from the
//   exchange's order like any fill (source "exchange-stop"): the book follows the exchange. A
//   cancel answered "not found" is looked up before it counts as withdrawn.
// The simulator keeps no resting orders: its stops run in the worker (the position says so).
import type { Kysely } from "kysely";
import { D } from "../../app/core/decimal.ts";
import { InvalidOrderError, OrderNotFoundError, TemporaryError } from "../../app/core/exchange/errors.ts";
import type { ExchangeAdapter, ExchangeOrder, ExchangePosition } from "../../app/core/exchange/types.ts";
import type { AdvancedControls } from "../../app/core/orders/controls.ts";
import { recordActivity } from "../../db/queries/activity-logs.ts";
import { appendEvent } from "../../db/queries/events.ts";
import {
  type ExchangeStop,
  deleteExchangeStop,
  getExchangeStopBySymbol,
  listExchangeStops,
  saveExchangeStop,
} from "../../db/queries/exchange-stops.ts";
import { releaseOrderSlot, tryOrderSlot, withOrderSlotLease } from "../../db/queries/order-slots.ts";
import { type Position, getOpenPosition, listOpenPositions } from "../../db/queries/positions.ts";
import { type Trade, getTradeByClientOrderId, insertTrade, newClientOrderId } from "../../db/queries/trades.ts";
import { newId } from "../../db/queries/util.ts";
import type { DB } from "../../db/schema.ts";
import { bookOrder } from "../execution.ts";

/** How far beyond the stop its limit sits (a gap still fills, at most this much worse). */
export const STOP_LIMIT_BUFFER = "0.005";
/** A stop moves only when the wanted price is this far (fraction) from the resting one. */
export const STOP_MOVE_MIN_FRACTION = "0.0005";
/** ... and at most this often for the same quantity (trailing). */
export const STOP_MOVE_MIN_MS = 5_000;
/** After the 1st, 2nd, ... refusal in a row, the next placement waits this long (the last repeats). */
export const STOP_REFUSAL_BACKOFF_MS = [2_000, 10_000, 30_000, 60_000, 300_000] as const;
/** Refusals in a row that raise the alarm (once, until a stop rests again). */
export const STOP_ALARM_AFTER = 3;
/** A `placing` stop the exchange does not list yet is declared absent only after this long (listings lag). */
export const PLACING_LOOKUP_GRACE_MS = 5_000;
/** The same warning about a position's stop is logged at most this often (a 2 s loop must not flood the log). */
const WARNING_EVERY_MS = 60_000;

type Adapter = Pick<
  ExchangeAdapter,
  | "name"
  | "label"
  | "getOrder"
  | "cancelOrder"
  | "placeStopOrder"
  | "editStopOrder"
  | "findOrderByClientId"
  | "getPositions"
>;

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
  return stop?.gt(0) ? stop.toString() : null;
}

export interface StopSyncResult {
  placed: number;
  moved: number;
  withdrawn: number;
  filled: number;
  /** Placements whose answer never came, still being looked up (nothing else placed for them). */
  unresolved: number;
  /** Placements the exchange refused this pass (placed again after the back-off). */
  refused: number;
}

const lastWarning = new Map<string, number>();

/** A warning about a position's stop, at most once a minute per position and kind. */
async function warnOnce(db: Kysely<DB>, key: string, message: string, data: Record<string, unknown>, now = Date.now()) {
  if (now - (lastWarning.get(key) ?? 0) < WARNING_EVERY_MS) return;
  lastWarning.set(key, now);
  if (lastWarning.size > 10_000) lastWarning.clear();
  await recordActivity(db, { type: "trade", level: "warning", message, data }).catch(() => undefined);
}

/** The back-off after `failures` refusals in a row. */
export const refusalBackoffMs = (failures: number) =>
  STOP_REFUSAL_BACKOFF_MS[Math.min(Math.max(failures, 1), STOP_REFUSAL_BACKOFF_MS.length) - 1]!;

/**
 * How much the resting stop may sell (buy) for a position: its remaining quantity, but never
 * more than the exchange holds on that side (issue 21, defect 8); "0" when the exchange is flat
 * or holds the other side; null when the exchange's positions are unknown (nothing is placed).
 */
export function stopQuantity(
  p: Pick<Position, "symbol" | "side" | "remainingQuantity">,
  held: Map<string, ExchangePosition> | null,
): string | null {
  if (!held) return null;
  const on = held.get(p.symbol);
  if (!on || on.side !== p.side || !D(on.quantity).gt(0)) return "0";
  return D(on.quantity).lt(p.remainingQuantity) ? on.quantity : p.remainingQuantity;
}

/** One pass over the exchange's stops and the open positions. */
export async function syncExchangeStops(
  db: Kysely<DB>,
  exchange: ExchangeAdapter,
  now = Date.now(),
): Promise<StopSyncResult> {
  const result: StopSyncResult = { placed: 0, moved: 0, withdrawn: 0, filled: 0, unresolved: 0, refused: 0 };
  const adapter = await activeAdapter(exchange);
  if (!adapter.placeStopOrder) return result;
  const name = adapter.name;
  // Only the positions this exchange holds (a paper position stays on the simulator, decision 039).
  const held = (list: Position[]) => list.filter((p) => p.exchange === name);
  const positions = held(await listOpenPositions(db));
  const open = new Set(positions.map((p) => p.id));

  // 1. What became of each recorded stop: booked when filled, looked up when its placement
  //    was never answered, forgotten when gone, withdrawn when its position closed.
  for (const record of await listExchangeStops(db, name)) {
    try {
      const outcome = await followStop(db, adapter, record, open.has(record.position_id), now);
      if (outcome === "filled") result.filled++;
      else if (outcome === "withdrawn") result.withdrawn++;
      else if (outcome === "unresolved") result.unresolved++;
    } catch (error) {
      if (record.status === "placing") result.unresolved++;
      await warnOnce(
        db,
        `follow:${record.position_id}`,
        `Stop for ${record.symbol} on ${adapter.label} could not be checked: ${(error as Error).message}. Asked again in a moment`,
        {
          positionId: record.position_id,
          symbol: record.symbol,
        },
      );
    }
  }

  // 2. Each open position's stop where it belongs (re-read: a stop booked above may have closed or reduced a position).
  const records = new Map((await listExchangeStops(db, name)).map((r) => [r.position_id, r]));
  let onExchange: Map<string, ExchangePosition> | null | undefined;
  const holdings = async () => {
    if (onExchange === undefined)
      onExchange = await adapter
        .getPositions()
        .then((list) => new Map(list.map((x) => [x.symbol, x])))
        .catch(() => null);
    return onExchange;
  };
  for (const p of result.filled > 0 ? held(await listOpenPositions(db)) : positions) {
    const record = records.get(p.id) ?? null;
    if (record?.status === "placing") continue; // its answer is still being looked up: never a second stop
    const price = desiredStop(p);
    const resting = record?.status === "resting" ? record : null;
    if (!price && !record) continue;
    let quantity: string | null = "0";
    if (price) {
      if (
        resting &&
        D(resting.quantity).eq(p.remainingQuantity) &&
        !movedEnough(resting, price, now, p.trailingStopActive)
      )
        continue; // nothing to do, nothing asked
      quantity = stopQuantity(p, await holdings());
      if (quantity === null) {
        await warnOnce(
          db,
          `held:${p.id}`,
          `No resting stop change for ${p.symbol} on ${adapter.label}: its positions could not be read. Protection runs in the worker meanwhile`,
          { positionId: p.id, symbol: p.symbol },
        );
        continue;
      }
    }
    const wanted = price && D(quantity).gt(0) ? price : null;
    if (
      resting &&
      wanted &&
      D(resting.quantity).eq(quantity) &&
      !movedEnough(resting, wanted, now, p.trailingStopActive)
    )
      continue;
    if (record?.status === "refused") {
      if (!wanted) {
        await deleteExchangeStop(db, p.id);
        continue;
      }
      if (now < Number(record.retry_at)) continue; // backing off
    }
    if (!wanted && !resting) continue;
    const holder = `stop:${p.id}`;
    if (!(await tryOrderSlot(db, name, p.symbol, holder, now))) continue; // an order on the symbol is in flight
    try {
      const outcome = await withOrderSlotLease(db, name, p.symbol, holder, () =>
        keepStop(db, adapter, p, record, wanted, quantity!, now),
      );
      if (outcome in result) result[outcome as keyof StopSyncResult]++;
      if (outcome === "withdrawn" && price && !wanted) {
        await warnOnce(
          db,
          `flat:${p.id}`,
          `No resting stop for ${p.symbol} on ${adapter.label}: it holds no ${p.side} ${p.symbol} position (the app's book says ${p.remainingQuantity}; see the drift alarm on Positions)`,
          { positionId: p.id, symbol: p.symbol },
        );
      }
    } catch (error) {
      const reason = (error as Error).message;
      // A move (edit) without a clear answer leaves the old stop resting: say that, not "no stop".
      const message = resting
        ? `Resting stop for ${p.symbol} on ${adapter.label} was not moved (${reason}): the one at ${resting.stop_price} still rests, and the move is asked again in a moment`
        : `No resting stop for ${p.symbol} on ${adapter.label}: ${reason}. Its protection runs in the worker meanwhile`;
      await warnOnce(db, `keep:${p.id}`, message, { positionId: p.id, symbol: p.symbol });
    } finally {
      await releaseOrderSlot(db, name, p.symbol, holder);
    }
  }
  return result;
}

/** Whether a resting stop is far enough from `wanted` to be moved (a trailing stop: and not moved in the last STOP_MOVE_MIN_MS). */
function movedEnough(record: ExchangeStop, wanted: string, now: number, trailing: boolean): boolean {
  const drift = D(wanted).minus(record.stop_price).abs().div(record.stop_price);
  return !drift.lt(STOP_MOVE_MIN_FRACTION) && (!trailing || now - Number(record.updated_at) >= STOP_MOVE_MIN_MS);
}

type Outcome = "placed" | "moved" | "withdrawn" | "filled" | "refused" | "unresolved" | "kept";

/**
 * Under the symbol's slot: the position's stop brought to `wanted` for `quantity` (null:
 * none). Edited in place when the exchange can; else the old one cancelled (found filled:
 * booked, nothing placed) and a new one placed, its intent recorded first.
 */
async function keepStop(
  db: Kysely<DB>,
  adapter: Adapter,
  p: Position,
  record: ExchangeStop | null,
  wanted: string | null,
  quantity: string,
  now: number,
): Promise<Outcome> {
  const resting = record?.status === "resting" ? record : null;
  const side = p.side === "long" ? "sell" : "buy";
  const limitPrice = wanted
    ? D(wanted)
        .times(side === "sell" ? D(1).minus(STOP_LIMIT_BUFFER) : D(1).plus(STOP_LIMIT_BUFFER))
        .toString()
    : null;
  if (resting && wanted && adapter.editStopOrder) {
    try {
      const edited = await adapter.editStopOrder({
        orderId: resting.order_id,
        symbol: p.symbol,
        side,
        quantity,
        stopPrice: wanted,
        limitPrice: limitPrice!,
      });
      if (D(edited.filledQuantity).gt(0)) {
        await bookStopFill(db, adapter, resting, edited);
        return "filled";
      }
      await saveExchangeStop(
        db,
        { ...resting, stop_price: wanted, limit_price: edited.price ?? limitPrice!, quantity },
        now,
      );
      await appendEvent(db, "dashboard_update", { reason: "exchange_stop", positionId: p.id, symbol: p.symbol });
      return "moved";
    } catch (error) {
      // Refused (an order the exchange cannot edit, or it filled meanwhile): cancel and place below.
      // No clear answer: the resting stop still protects; the next pass asks again.
      if (!(error instanceof InvalidOrderError)) throw error;
    }
  }
  if (resting && !(await withdrawStop(db, adapter, resting))) return "filled"; // it had filled: booked, the next pass decides
  if (!wanted) return "withdrawn";

  const clientOrderId = newClientOrderId();
  const failures = record?.status === "refused" ? Number(record.failures) : 0;
  const intent = {
    position_id: p.id,
    exchange: adapter.name,
    symbol: p.symbol,
    order_id: "",
    client_order_id: clientOrderId,
    side,
    stop_price: wanted,
    limit_price: limitPrice!,
    quantity,
    failures,
  };
  // Recorded before the exchange is asked: whatever happens to the answer, this stop is looked up before another is placed.
  await saveExchangeStop(
    db,
    { ...intent, status: "placing", retry_at: 0, last_error: record?.last_error ?? null },
    now,
  );
  let order: ExchangeOrder;
  try {
    order = await adapter.placeStopOrder!({
      clientOrderId,
      symbol: p.symbol,
      side,
      quantity,
      stopPrice: wanted,
      limitPrice: limitPrice!,
    });
  } catch (error) {
    const message = (error as Error).message;
    if (error instanceof InvalidOrderError) {
      const refusals = failures + 1;
      const retryIn = refusalBackoffMs(refusals);
      await saveExchangeStop(
        db,
        {
          ...intent,
          status: "refused",
          failures: refusals,
          retry_at: now + retryIn,
          last_error: message.slice(0, 500),
        },
        now,
      );
      const data = { positionId: p.id, symbol: p.symbol, refusals, retryInMs: retryIn };
      if (refusals === STOP_ALARM_AFTER) {
        await recordActivity(db, {
          type: "trade",
          level: "error",
          message: `${adapter.label} refused the resting stop for ${p.symbol} ${refusals} times in a row (${message}): placed again every ${Math.round(retryIn / 1000)} s or less; the worker's own stop-loss still protects the position while it runs`,
          data,
        });
      } else if (refusals === 1) {
        await recordActivity(db, {
          type: "trade",
          level: "warning",
          message: `${adapter.label} refused the resting stop for ${p.symbol} (${message}): placed again in ${Math.round(retryIn / 1000)} s`,
          data,
        });
      }
      return "refused";
    }
    await warnOnce(
      db,
      `placing:${p.id}`,
      `Resting stop for ${p.symbol} on ${adapter.label} got no clear answer (${message}): it is looked up by its client order id before another is placed`,
      { positionId: p.id, symbol: p.symbol, clientOrderId },
      now,
    );
    return "unresolved";
  }
  await saveExchangeStop(
    db,
    { ...intent, order_id: order.orderId, limit_price: order.price ?? limitPrice!, status: "resting", failures: 0 },
    now,
  );
  await db.transaction().execute(async (trx) => {
    if (!resting) {
      await recordActivity(trx, {
        type: "trade",
        level: "info",
        message: `Stop for ${p.symbol} now rests on ${adapter.label} at ${wanted} (${quantity}): it protects the position even if the worker stops`,
        data: { positionId: p.id, symbol: p.symbol, orderId: order.orderId, stopPrice: wanted },
      });
    }
    await appendEvent(trx, "dashboard_update", { reason: "exchange_stop", positionId: p.id, symbol: p.symbol });
  });
  return resting ? "moved" : "placed";
}

/**
 * A recorded stop: what the exchange says of it now. A `placing` one is looked up by its
 * client order id (found: it rests, or filled; absent after the grace: nothing was placed,
 * forgotten; no answer: it stays `placing`). Returns what happened.
 */
async function followStop(
  db: Kysely<DB>,
  adapter: Adapter,
  record: ExchangeStop,
  positionOpen: boolean,
  now: number,
): Promise<Outcome | "gone"> {
  if (record.status === "refused") {
    if (!positionOpen) await deleteExchangeStop(db, record.position_id);
    return "kept";
  }
  let order: ExchangeOrder | null;
  if (record.status === "placing") {
    const found = await lookUpPlacing(db, adapter, record, now);
    if (found === "pending") return "unresolved";
    if (!found) return "gone";
    order = found;
    record = { ...record, order_id: found.orderId, status: "resting" };
  } else {
    order = await orderOf(adapter, record);
  }
  if (order && D(order.filledQuantity).gt(0)) {
    await bookStopFill(db, adapter, record, order);
    return "filled";
  }
  if (order?.status !== "open") {
    await deleteExchangeStop(db, record.position_id);
    return "gone";
  }
  if (!positionOpen) return (await withdrawStop(db, adapter, record)) ? "withdrawn" : "filled";
  return "kept";
}

/**
 * A stop whose placement was never answered, looked up by its client order id: the order
 * (saved as resting); null when the exchange surely never took it (the record is deleted);
 * "pending" while too young to be sure (exchange listings lag). Throws when it cannot ask.
 */
async function lookUpPlacing(
  db: Kysely<DB>,
  adapter: Adapter,
  record: ExchangeStop,
  now: number,
): Promise<ExchangeOrder | null | "pending"> {
  const order = await adapter.findOrderByClientId(record.client_order_id, { since: Number(record.updated_at) });
  if (!order) {
    if (now - Number(record.updated_at) < PLACING_LOOKUP_GRACE_MS) return "pending";
    await deleteExchangeStop(db, record.position_id);
    return null;
  }
  await saveExchangeStop(
    db,
    {
      ...record,
      order_id: order.orderId,
      limit_price: order.price ?? record.limit_price,
      status: "resting",
      failures: 0,
      retry_at: 0,
      last_error: null,
    },
    now,
  );
  await recordActivity(db, {
    type: "trade",
    level: "info",
    message: `Stop for ${record.symbol} found resting on ${adapter.label} at ${record.stop_price} (${record.quantity}) after an unanswered placement: kept, none placed beside it`,
    data: { positionId: record.position_id, symbol: record.symbol, orderId: order.orderId },
  });
  return order;
}

/** A resting stop's order; looked up by client id when its id is unknown to the exchange; null when gone. */
async function orderOf(adapter: Adapter, record: ExchangeStop): Promise<ExchangeOrder | null> {
  try {
    return await adapter.getOrder(record.order_id);
  } catch (error) {
    if (!(error instanceof OrderNotFoundError)) throw error;
    return adapter.findOrderByClientId(record.client_order_id, { since: Number(record.created_at) });
  }
}

/**
 * Before any order on `symbol` (called under that symbol's order slot): the position's resting
 * stop must never act beside the new order (Advanced Trade has no reduce-only stop). A stop
 * whose placement is unanswered is looked up first: the order waits (retried) while that
 * cannot be known, rather than go out beside a stop that may rest. Then, for `order`:
 * - a market order that only reduces the position, leaving some on the same side: the stop
 *   stays, cut (edited) to at most what will remain, so the stop and the order together never
 *   exceed the position and it is never without a stop (decision 038);
 * - a market order that adds to the position: the stop stays as it is (it covers less than
 *   the position for a moment; the next pass sizes it up);
 * - anything else (a close of everything, a flip, a limit order, no order given): cancelled,
 *   and placed again after it by the next pass. A stop found filled is booked first.
 */
export async function withdrawStopFor(
  db: Kysely<DB>,
  exchange: ExchangeAdapter,
  symbol: string,
  order?: Pick<Trade, "side" | "quantity" | "orderType">,
): Promise<void> {
  const adapter = await activeAdapter(exchange);
  if (!adapter.placeStopOrder) return;
  let record = await getExchangeStopBySymbol(db, adapter.name, symbol);
  if (!record || record.status === "refused") return;
  if (record.status === "placing") {
    const found = await lookUpPlacing(db, adapter, record, Date.now());
    if (found === "pending")
      throw new TemporaryError(
        `The resting stop for ${symbol} was placed without an answer and is not listed yet: this order waits until it is known`,
      );
    if (!found) return;
    record = { ...record, order_id: found.orderId, status: "resting" };
  }
  if (order && order.orderType === "market" && (await keepStopBeside(db, adapter, record, order))) return;
  await withdrawStop(db, adapter, record);
}

/** Whether the resting stop can stay beside a market `order` (cut to what will remain first): see withdrawStopFor. */
async function keepStopBeside(
  db: Kysely<DB>,
  adapter: Adapter,
  record: ExchangeStop,
  order: Pick<Trade, "side" | "quantity">,
): Promise<boolean> {
  const position = await getOpenPosition(db, record.symbol);
  if (!position || position.id !== record.position_id) return false;
  const adds = (position.side === "long") === (order.side === "buy");
  if (adds) return true;
  const remains = D(position.remainingQuantity).minus(order.quantity);
  if (!remains.gt(0)) return false; // a close of everything or a flip: the stop goes
  if (D(record.quantity).lte(remains)) return true;
  if (!adapter.editStopOrder) return false;
  try {
    const edited = await adapter.editStopOrder({
      orderId: record.order_id,
      symbol: record.symbol,
      side: record.side === "buy" ? "buy" : "sell",
      quantity: remains.toString(),
      stopPrice: record.stop_price,
      limitPrice: record.limit_price,
    });
    if (D(edited.filledQuantity).gt(0)) {
      await bookStopFill(db, adapter, record, edited);
      return false;
    }
    // Its price did not move: its last move's time stays (the trailing rate limit counts price moves).
    await saveExchangeStop(db, { ...record, quantity: remains.toString() }, Number(record.updated_at));
    return true;
  } catch (error) {
    if (error instanceof InvalidOrderError) return false; // cannot be cut (e.g. under one contract): cancelled instead
    throw error; // no clear answer: the order waits (its job retries) rather than go out beside a stop of unknown size
  }
}

/**
 * Cancels a resting stop. True when withdrawn; false when it had (partly) filled: that is
 * booked. A cancel answered "not found" is looked up (by id, then client id) before it
 * counts as withdrawn (issue 21, defect 9: its fill was lost).
 */
async function withdrawStop(db: Kysely<DB>, adapter: Adapter, record: ExchangeStop): Promise<boolean> {
  let order: ExchangeOrder | null = null;
  try {
    order = await adapter.cancelOrder(record.order_id);
  } catch (error) {
    if (error instanceof OrderNotFoundError) order = await orderOf(adapter, record);
    else if (error instanceof InvalidOrderError)
      order = await adapter.getOrder(record.order_id); // already final: filled
    else throw error;
    if (order?.status === "open")
      throw new TemporaryError(
        `Coinbase could not cancel the resting stop for ${record.symbol} (${(error as Error).message}) and still lists it open`,
      );
  }
  if (order && D(order.filledQuantity).gt(0)) {
    await bookStopFill(db, adapter, record, order);
    return false;
  }
  await deleteExchangeStop(db, record.position_id);
  return true;
}

/** The exchange filled (part of) a resting stop: booked from its order, the rest cancelled. */
async function bookStopFill(
  db: Kysely<DB>,
  adapter: Adapter,
  record: ExchangeStop,
  order: ExchangeOrder,
): Promise<void> {
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
      data: {
        positionId: record.position_id,
        symbol: record.symbol,
        orderId: order.orderId,
        stopPrice: record.stop_price,
      },
    });
  }
  if (trade.status === "pending" || trade.status === "unknown") await bookOrder(db, trade, order, adapter.name);
  await deleteExchangeStop(db, record.position_id);
}
