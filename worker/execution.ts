// Sending an order and booking its result. The trade row (with its client order id) is
// written before the exchange is called; a retried job first asks the exchange for that
// client order id, so a crash between "sent" and "saved" never sends a second order.
import type { Kysely } from "kysely";
import { type Big, D, roundToIncrement, toFixed } from "../app/core/decimal.ts";
import { resolveSymbol } from "../app/core/products.ts";
import { InvalidOrderError } from "../app/core/exchange/errors.ts";
import { SIMULATOR_NAME } from "#exchange/simulator/adapter.ts";
import { notConnectedReason } from "#exchange/factory.ts";
import type { ExchangeAdapter, ExchangeOrder } from "../app/core/exchange/types.ts";
import { type FillEffect, applyFill, sideForOrder } from "../app/core/orders/net-position.ts";
import { applyCloseFill, stopPriceFor, takerFeeRate } from "../app/core/rules/index.ts";
import { recordActivity } from "../db/queries/activity-logs.ts";
import { appendEvent } from "../db/queries/events.ts";
import { getOpenPosition, insertPosition, lockSymbol, updatePosition } from "../db/queries/positions.ts";
import { updateSignalStatus } from "../db/queries/signals.ts";
import { stampSignal } from "../db/queries/signal-timeline.ts";
import { type Trade, getTrade, insertTrade, listPartialFills, updateTrade } from "../db/queries/trades.ts";
import { getEmergencyStop, getTradingConfig } from "../db/queries/trading-state.ts";
import { acquireOrderSlot, releaseOrderSlot, withOrderSlotLease } from "../db/queries/order-slots.ts";
import { type Db, newId } from "../db/queries/util.ts";
import type { DB } from "../db/schema.ts";
import { realizeFill } from "./fifo-books.ts";
import { controlsForTrade } from "./strategies.ts";

export interface ExecutionContext {
  db: Kysely<DB>;
  exchange: ExchangeAdapter;
  workerId: string;
  /** The job's attempt number: from the second on, reconcile before sending. */
  attempt: number;
  /**
   * Called under the symbol's order slot just before an order is sent: the runner withdraws the
   * position's resting stop on the exchange there (worker/monitor/exchange-stops.ts).
   */
  beforeSend?: (trade: Trade) => Promise<void>;
}

/** A refusal that retrying cannot change (the job ends failed, the reason on the trade). */
export class PermanentFailure extends Error {}

const describeOrder = (t: Pick<Trade, "side" | "quantity" | "symbol">) =>
  `${t.side.toUpperCase()} ${t.quantity} ${t.symbol}`;

/**
 * Ends a trade as failed or cancelled in `trx`: its row, its signal (when it has one and
 * `signalReason` is given), an activity line when `log` is given, and the live trade_update.
 * The one place the four writes of an ended trade are made (failTrade, bookOrder, resizeClose).
 */
async function endTrade(
  trx: Kysely<DB>,
  trade: Trade,
  end: {
    status: "failed" | "cancelled";
    reason: string;
    orderId?: string;
    signalReason?: string;
    log?: { level: "info" | "error"; message: string };
  },
): Promise<void> {
  await updateTrade(trx, trade.id, {
    status: end.status,
    errorMessage: end.reason,
    ...(end.orderId ? { orderId: end.orderId } : {}),
  });
  if (trade.signalId && end.signalReason !== undefined)
    await updateSignalStatus(trx, trade.signalId, end.status, end.signalReason);
  if (end.log) {
    await recordActivity(trx, {
      type: "trade",
      level: end.log.level,
      message: end.log.message,
      data: {
        tradeId: trade.id,
        symbol: trade.symbol,
        side: trade.side,
        quantity: trade.quantity,
        source: trade.source,
      },
    });
  }
  await pushTradeUpdate(trx, trade, end.status, { message: end.reason });
}

/** Tells the browsers that a trade changed: its id, symbol, side, new status and what `more` adds. */
function pushTradeUpdate(db: Db, trade: Trade, status: string, more: Record<string, unknown> = {}): Promise<void> {
  return appendEvent(db, "trade_update", { id: trade.id, symbol: trade.symbol, side: trade.side, status, ...more });
}

/** A trade whose order rests on the exchange: its order id (and `changes`) stored, logged, pushed as pending. */
async function markResting(
  db: Kysely<DB>,
  trade: Trade,
  orderId: string,
  message: string,
  changes: Parameters<typeof updateTrade>[2] = {},
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await updateTrade(trx, trade.id, { ...changes, orderId });
    await recordActivity(trx, { type: "trade", level: "info", message, data: { tradeId: trade.id, orderId } });
    await pushTradeUpdate(trx, trade, "pending");
  });
}

/** Marks a trade (and its signal) failed, with the reason logged and pushed. */
export async function failTrade(db: Kysely<DB>, trade: Trade, reason: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await endTrade(trx, trade, {
      status: "failed",
      reason,
      signalReason: reason,
      log: { level: "error", message: `Order failed: ${describeOrder(trade)}: ${reason}` },
    });
    await appendEvent(trx, "dashboard_update", { reason: "trade" });
  });
}

/**
 * The outcome of the trade's order could not be learnt after every retry (issue 15): it may
 * be on the exchange, so it is neither failed nor forgotten. `unknown`, shown with the
 * reason, and settled by the worker's order sync (settleUnknownTrade) once the exchange answers.
 */
export async function markUnknown(db: Kysely<DB>, trade: Trade, reason: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const message = `Outcome unknown: ${reason}. The order may be on ${trade.exchange}; the worker keeps asking for it by its client order id`;
    await updateTrade(trx, trade.id, { status: "unknown", errorMessage: message });
    await recordActivity(trx, {
      type: "trade",
      level: "error",
      message: `${describeOrder(trade)}: ${message}`,
      data: {
        tradeId: trade.id,
        symbol: trade.symbol,
        side: trade.side,
        quantity: trade.quantity,
        source: trade.source,
        clientOrderId: trade.clientOrderId,
      },
    });
    await pushTradeUpdate(trx, trade, "unknown", { message });
    await appendEvent(trx, "dashboard_update", { reason: "trade" });
  });
}

/**
 * Asks the exchange, by client order id, what became of a trade whose job gave up (or that is
 * `unknown`): found and final, it is booked; found and resting, it goes back to pending with
 * its order id (the order sync follows it); surely absent, it failed without being sent; no
 * answer, it is (or stays) unknown. Returns the trade's status afterwards.
 */
export async function settleUnknownTrade(
  db: Kysely<DB>,
  exchange: Pick<ExchangeAdapter, "name" | "findOrderByClientId">,
  trade: Trade,
  reason: string,
): Promise<Trade["status"]> {
  let order: ExchangeOrder | null;
  try {
    order = await exchange.findOrderByClientId(trade.clientOrderId, { since: trade.createdAt });
  } catch (error) {
    if (trade.status !== "unknown")
      await markUnknown(
        db,
        trade,
        `${reason}; asking ${exchange.name} for it failed too (${(error as Error).message})`,
      );
    return "unknown";
  }
  if (!order) {
    await failTrade(db, trade, `${reason}; ${exchange.name} has no order ${trade.clientOrderId}: nothing was sent`);
    return "failed";
  }
  if (order.status === "open") {
    await markResting(
      db,
      trade,
      order.orderId,
      `${describeOrder(trade)} found resting on ${exchange.name}: followed until it fills`,
      {
        status: "pending",
        errorMessage: null,
      },
    );
    return "pending";
  }
  return bookOrder(db, trade, order, exchange.name);
}

/**
 * Sends the pending trade's order (once) and books the result. Returns the trade's status
 * afterwards. Throws TemporaryError (retry later) when the outcome is unknown.
 *
 * One order in flight per exchange and symbol (issue 15): the order slot is taken before
 * anything is asked of the exchange and given back once the outcome is booked, so a
 * stop-loss close and a TradingView order on one symbol reach the exchange, and are booked,
 * one after the other, in the same order. Under the slot a reduce-only close is re-sized to
 * what is still open (nothing open: cancelled, nothing sent). An unknown outcome keeps the
 * slot until its retry settles it (or the slot's lease runs out).
 */
export async function executeTrade(ctx: ExecutionContext, tradeId: string): Promise<Trade["status"]> {
  const first = await getTrade(ctx.db, tradeId);
  if (!first) throw new PermanentFailure(`Trade ${tradeId} not found`);
  if (first.status !== "pending") return first.status;
  const exchangeName = ctx.exchange.name;
  const holder = `job:${first.jobId ?? first.id}`;
  await acquireOrderSlot(ctx.db, exchangeName, first.symbol, holder);
  let settled = false;
  try {
    // The lease is renewed while the exchange takes its time; a job's slot also outlives the
    // lease while the job lives (db/queries/order-slots.ts), so a slow answer never frees it.
    const status = await withOrderSlotLease(ctx.db, exchangeName, first.symbol, holder, () =>
      sendAndBook(ctx, tradeId),
    );
    settled = true;
    return status;
  } catch (error) {
    // A refusal is settled; an unknown outcome (TemporaryError ...) keeps the slot for its retry.
    settled = error instanceof PermanentFailure;
    throw error;
  } finally {
    if (settled) await releaseOrderSlot(ctx.db, exchangeName, first.symbol, holder).catch(() => undefined);
  }
}

/**
 * The exchange a trade goes to (docs/decisions/039-positions-stay-on-their-exchange.md): the
 * one it was written for, unless its symbol's open position is held by another exchange. Then
 * an order that only reduces that position goes there (reduce-only, bound to it) and any other
 * (an entry, an add, a flip) is refused: one open position per symbol, on one exchange.
 * Returns the trade as it will be sent and the adapter to send it to; null when refused.
 */
async function routeTrade(
  ctx: ExecutionContext,
  trade: Trade,
): Promise<{ trade: Trade; exchange: ExchangeAdapter } | null> {
  if (!trade.orderId) {
    const open = await getOpenPosition(ctx.db, trade.symbol);
    if (open && open.exchange !== trade.exchange) {
      const reduces =
        open.side !== sideForOrder(trade.side) &&
        D(trade.quantity).lte(open.remainingQuantity) &&
        trade.orderType === "market";
      if (!reduces) {
        await failTrade(
          ctx.db,
          trade,
          `${trade.symbol} has a position open on ${open.exchange}: close it there first (Close on Positions); new positions go to ${trade.exchange}`,
        );
        return null;
      }
      await updateTrade(ctx.db, trade.id, { exchange: open.exchange, reduceOnly: true, positionId: open.id });
      trade = { ...trade, exchange: open.exchange, reduceOnly: true, positionId: open.id };
    }
  }
  return { trade, exchange: await adapterFor(ctx.exchange, trade.exchange) };
}

/**
 * The adapter of the exchange a trade was written for (the active one, or the simulator that
 * holds older positions). A single adapter (not the switching one) reaches only itself: any
 * other exchange is refused with the reason, never sent to the wrong one.
 */
export async function adapterFor(exchange: ExchangeAdapter, name: string): Promise<ExchangeAdapter> {
  if (exchange.name === name) return exchange;
  const switching = exchange as ExchangeAdapter & { forExchange?: (name: string) => Promise<ExchangeAdapter> };
  if (typeof switching.forExchange === "function") return switching.forExchange(name);
  throw new PermanentFailure(notConnectedReason(name, exchange.label));
}

async function sendAndBook(ctx: ExecutionContext, tradeId: string): Promise<Trade["status"]> {
  // Re-read under the slot: another order on this symbol may have been booked meanwhile.
  let trade = await getTrade(ctx.db, tradeId);
  if (!trade) throw new PermanentFailure(`Trade ${tradeId} not found`);
  if (trade.status !== "pending") return trade.status;
  const routed = await routeTrade(ctx, trade);
  if (!routed) return "failed";
  trade = routed.trade;
  const exchange = routed.exchange;

  let order: ExchangeOrder | null = null;
  if (ctx.attempt > 1 || trade.orderId) {
    // We may have sent it before dying: the exchange knows it by our client order id.
    order = await exchange.findOrderByClientId(trade.clientOrderId, { since: trade.createdAt });
  }
  if (!order) {
    // The emergency stop blocks new entries; reduce-only closes (protection, Close,
    // flatten) always go out, so a stop never leaves a position unprotected.
    if (!trade.reduceOnly && (await getEmergencyStop(ctx.db)).active) {
      await failTrade(ctx.db, trade, "Emergency stop is active: order not sent");
      return "failed";
    }
    // A resting stop on the exchange must not act beside this order (a stop it finds filled is booked first).
    await ctx.beforeSend?.(trade);
    if (trade.reduceOnly) {
      const resized = await resizeClose(ctx.db, trade, await exchangeHolding(exchange, trade.symbol));
      if (!resized) return "cancelled";
      trade = resized;
    }
    try {
      stampSignal(ctx.db, trade.signalId, "sent");
      order = await exchange.placeOrder({
        clientOrderId: trade.clientOrderId,
        symbol: trade.symbol,
        side: trade.side,
        type: trade.orderType,
        quantity: trade.quantity,
        price: trade.price,
        leverage: trade.leverage ?? 1,
        marginType: trade.marginType === "isolated" ? "isolated" : "cross",
        reduceOnly: trade.reduceOnly,
      });
      stampSignal(ctx.db, trade.signalId, "acked");
    } catch (error) {
      if (error instanceof InvalidOrderError) {
        await failTrade(ctx.db, trade, error.message);
        return "failed";
      }
      throw error; // unknown outcome: the runner retries, and the retry reconciles first
    }
  }
  return bookOrder(ctx.db, trade, order, exchange.name);
}

/** What a live exchange holds of a symbol (side and quantity); null when unknown (the simulator, or no answer). */
export type ExchangeHolding = { side: "long" | "short"; quantity: string } | { side: "flat"; quantity: "0" } | null;

/**
 * A live exchange's position in `symbol`, asked just before a reduce-only close (issue 21,
 * defect 8: a close never exceeds what the exchange holds). The simulator's book is the app's
 * own: not asked. No answer: null (the close goes out as the app sizes it; the exchange
 * refuses an oversized close).
 */
export async function exchangeHolding(
  exchange: Pick<ExchangeAdapter, "getPositions"> & { current?: () => Promise<ExchangeAdapter> },
  symbol: string,
): Promise<ExchangeHolding> {
  try {
    const adapter = typeof exchange.current === "function" ? await exchange.current() : (exchange as ExchangeAdapter);
    if (adapter.name === SIMULATOR_NAME || !adapter.placeStopOrder) return null;
    const held = (await adapter.getPositions()).find((p) => p.symbol === symbol);
    return held && D(held.quantity).gt(0)
      ? { side: held.side, quantity: held.quantity }
      : { side: "flat", quantity: "0" };
  } catch {
    return null;
  }
}

/**
 * A reduce-only close about to be sent, under the order slot: at most what is still open on
 * the other side (earlier orders on the symbol are booked by now) of the position it was
 * written for (issue 21, defect 3: a stale close never closes a newer position), and at most
 * what the live exchange holds (defect 8). Nothing to reduce: the trade is cancelled, nothing
 * is sent, and null is returned.
 */
async function resizeClose(db: Kysely<DB>, trade: Trade, holding: ExchangeHolding): Promise<Trade | null> {
  return db.transaction().execute(async (trx) => {
    await lockSymbol(trx, trade.symbol);
    const open = await getOpenPosition(trx, trade.symbol, { forUpdate: true });
    const reduces = open !== null && open.side !== sideForOrder(trade.side);
    const samePosition = !trade.positionId || open?.id === trade.positionId;
    const exchangeHolds = holding === null || (holding.side !== "flat" && open !== null && holding.side === open.side);
    if (!reduces || !samePosition || !exchangeHolds) {
      const reason = !reduces
        ? "Nothing to close: the position was closed before this order was sent"
        : !samePosition
          ? "Nothing to close: the position this close was for was closed before it was sent (a newer position on the symbol is left alone)"
          : `Nothing to close on ${trade.exchange}: it holds no ${open!.side} ${trade.symbol} position (the drift alarm on Positions shows the difference)`;
      await endTrade(trx, trade, {
        status: "cancelled",
        reason,
        signalReason: reason,
        log: { level: "info", message: `${describeOrder(trade)} not sent: ${reason}` },
      });
      return null;
    }
    const exchangeLess = holding !== null && holding.side !== "flat" && D(holding.quantity).lt(open!.remainingQuantity);
    const limit = exchangeLess ? holding.quantity : open!.remainingQuantity;
    if (D(trade.quantity).lte(limit)) return trade;
    await updateTrade(trx, trade.id, { quantity: limit });
    await recordActivity(trx, {
      type: "trade",
      level: exchangeLess ? "warning" : "info",
      message: exchangeLess
        ? `${describeOrder(trade)} reduced to ${limit}: ${trade.exchange} holds only that much (the app's book says ${open!.remainingQuantity}; the drift alarm on Positions shows the difference)`
        : `${describeOrder(trade)} reduced to ${limit}: only that much is still open`,
      data: { tradeId: trade.id, symbol: trade.symbol, quantity: limit },
    });
    return { ...trade, quantity: limit };
  });
}

/** What the partial fills booked so far for an order came to (rows `<clientOrderId>#p<n>`). */
async function partialFillsOf(
  db: Db,
  clientOrderId: string,
): Promise<{ count: number; quantity: Big; fee: Big; notional: Big }> {
  const rows = await listPartialFills(db, clientOrderId);
  let quantity = D(0);
  let fee = D(0);
  let notional = D(0);
  for (const row of rows) {
    quantity = quantity.plus(String(row.executed_quantity ?? 0));
    fee = fee.plus(String(row.fee ?? 0));
    notional = notional.plus(D(String(row.executed_price ?? 0)).times(String(row.executed_quantity ?? 0)));
  }
  return { count: rows.length, quantity, fee, notional };
}

/**
 * The part of an order's fills not yet booked: its quantity, fee and average price (from the
 * order's average over all its fills, to the product's price tick: the exchange rounds its
 * average, fills happen on ticks).
 */
function unbookedChunk(order: ExchangeOrder, parts: { quantity: Big; fee: Big; notional: Big }, fallbackPrice: string) {
  const total = D(order.filledQuantity);
  const quantity = total.minus(parts.quantity);
  const average = D(order.averagePrice ?? fallbackPrice);
  const tick = resolveSymbol(order.symbol)?.quoteIncrement;
  const derived = average
    .times(total)
    .minus(parts.notional)
    .div(quantity.gt(0) ? quantity : 1);
  const price =
    parts.quantity.gt(0) && quantity.gt(0) ? (tick ? D(roundToIncrement(derived, tick)) : derived.round(8)) : average;
  const fee = D(order.fee).minus(parts.fee);
  return { quantity: quantity.toString(), price: price.toString(), fee: (fee.gt(0) ? fee : D(0)).toString() };
}

/**
 * A resting order partly filled (issue 15): what filled since the last look is booked at once
 * as its own executed trade (`<clientOrderId>#p<n>`, same order id), through the normal fill
 * path: the position opens or grows with its protection, the FIFO ledger and the statistics
 * see it. The order's own trade stays pending for the rest and, once the order is final, books
 * only the part no partial fill took.
 */
async function bookPartialFill(
  db: Kysely<DB>,
  trade: Trade,
  order: ExchangeOrder,
  exchangeName: string,
): Promise<Trade["status"]> {
  const parts = await partialFillsOf(db, trade.clientOrderId);
  const chunk = unbookedChunk(order, parts, trade.price ?? "0");
  if (D(chunk.quantity).lte(0)) return "pending";
  const part: Trade = {
    ...trade,
    id: newId(),
    clientOrderId: `${trade.clientOrderId}#p${parts.count + 1}`,
    quantity: chunk.quantity,
    jobId: null,
    orderId: order.orderId,
    status: "pending",
  };
  const filledPart: ExchangeOrder = {
    ...order,
    clientOrderId: part.clientOrderId,
    status: "filled",
    quantity: chunk.quantity,
    filledQuantity: chunk.quantity,
    averagePrice: chunk.price,
    fee: chunk.fee,
  };
  await bookOrder(db, part, filledPart, exchangeName, { insertFirst: true });
  if (!trade.orderId) await updateTrade(db, trade.id, { orderId: order.orderId });
  return "pending";
}

/** Applies what the exchange says about the trade's order to trades, positions and signals. */
export async function bookOrder(
  db: Kysely<DB>,
  trade: Trade,
  order: ExchangeOrder,
  exchangeName: string,
  options: { insertFirst?: boolean } = {},
): Promise<Trade["status"]> {
  if (order.status === "rejected") {
    await failTrade(db, trade, order.rejectReason ?? "Rejected by the exchange");
    return "failed";
  }
  if (order.status === "cancelled" && D(order.filledQuantity).lte(0)) {
    // The exchange's reason when it cancelled the order itself (the simulator: margin short
    // when the limit price was reached); a cancel someone asked for says "Cancelled".
    const reason = order.rejectReason ?? "Cancelled";
    await db.transaction().execute(async (trx) => {
      // Cancelled before anything filled: the signal's own neutral state, not a failure (issue 25).
      await endTrade(trx, trade, {
        status: "cancelled",
        reason,
        orderId: order.orderId,
        signalReason: order.rejectReason ?? "Order cancelled",
        log: order.rejectReason
          ? {
              level: "error",
              message: `Order cancelled by the exchange: ${describeOrder(trade)}: ${order.rejectReason}`,
            }
          : undefined,
      });
    });
    return "cancelled";
  }
  if (order.status === "open" && D(order.filledQuantity).gt(0)) return bookPartialFill(db, trade, order, exchangeName);
  if (order.status === "open") {
    // A resting limit order: booked when it fills (the price loop reports fills).
    if (!trade.orderId) {
      await markResting(db, trade, order.orderId, `Limit order resting: ${describeOrder(trade)} @ ${trade.price}`);
    }
    return "pending";
  }

  const config = await getTradingConfig(db);
  return db.transaction().execute(async (trx) => {
    await lockSymbol(trx, trade.symbol);
    if (options.insertFirst)
      await insertTrade(trx, { ...trade, signalId: trade.signalId, positionId: trade.positionId, jobId: trade.jobId });
    // Booked once: re-read under lock (two fill reports for one order must not double-book).
    const current = await getTrade(trx, trade.id, { forUpdate: true });
    if (!current || (current.status !== "pending" && current.status !== "unknown")) return current?.status ?? "failed";
    // Partial fills already booked as their own trades: this books only the rest.
    const parts = options.insertFirst ? null : await partialFillsOf(trx, trade.clientOrderId);
    const chunk = parts && parts.count > 0 ? unbookedChunk(order, parts, trade.price ?? "0") : null;
    const filled = chunk ? chunk.quantity : order.filledQuantity;
    const price = chunk ? chunk.price : (order.averagePrice ?? trade.price ?? "0");
    if (chunk) order = { ...order, fee: chunk.fee };
    if (chunk && D(filled).lte(0)) {
      const reason = `${order.status === "filled" ? "Filled" : "Cancelled"} after partial fills of ${parts!.quantity.toString()}, booked as their own trades`;
      await endTrade(trx, trade, { status: "cancelled", reason, orderId: order.orderId });
      return "cancelled" as const;
    }

    // Realized P&L by the one FIFO ledger (net of fees), computed before the fill is written.
    const realized = await realizeFill(trx, db, {
      id: trade.id,
      symbol: trade.symbol,
      side: trade.side,
      quantity: filled,
      price,
      fee: order.fee,
      leverage: trade.leverage ?? null,
    });
    const open = await getOpenPosition(trx, trade.symbol, { forUpdate: true });
    // A reduce-only close never exceeds what remains, and never opens or flips a position.
    const bookable = !trade.reduceOnly
      ? filled
      : open && open.side !== sideForOrder(trade.side)
        ? D(filled).lt(open.remainingQuantity)
          ? filled
          : open.remainingQuantity
        : "0";
    const effect: FillEffect = D(bookable).gt(0)
      ? applyFill(
          open
            ? {
                side: open.side,
                quantity: open.quantity,
                remaining: open.remainingQuantity,
                entryPrice: open.entryPrice,
              }
            : null,
          { side: trade.side, quantity: bookable, price },
        )
      : { reduced: null, position: null };
    let positionId: string | null = open?.id ?? null;
    let breakEvenNote: string | null = null;
    let breakEvenStop: string | null = null;

    if (open && effect.reduced) {
      const stillOpen = effect.position && !effect.position.isNew;
      // A close the rules requested settles its request (take-profit levels filled; break-even).
      // Break-even covers the fees the position paid, the exit's taker fee on its exchange and the offset (decision 046).
      const rule = applyCloseFill(open, trade.jobId, {
        entryFee: open.fees,
        quantity: open.quantity,
        exitFeeRate: takerFeeRate(open.exchange),
        tick: resolveSymbol(trade.symbol)?.quoteIncrement ?? null,
      });
      if (rule.breakEvenNow && stillOpen) breakEvenStop = rule.stopPrice;
      if (rule.breakEvenNow && stillOpen)
        breakEvenNote =
          rule.stopPrice === rule.ruleState.breakEvenStop
            ? `Break-even: stop for ${trade.symbol} moved to ${rule.stopPrice} (entry ${open.entryPrice} + fees + offset) after the first take-profit`
            : // A stop set by hand past break-even stays (decision 048): break-even never loosens it.
              `Break-even armed for ${trade.symbol} at ${rule.ruleState.breakEvenStop} after the first take-profit: the stop stays at ${rule.stopPrice}, set by hand and tighter`;
      await updatePosition(trx, open.id, {
        remainingQuantity: stillOpen ? effect.position!.remaining : "0",
        realizedPnl: D(open.realizedPnl)
          .plus(realized.realizedPnl ?? "0")
          .toString(),
        fees: D(open.fees)
          .plus(effect.position?.isNew ? D(order.fee).times(effect.reduced.quantity).div(filled) : order.fee)
          .toString(),
        currentPrice: price,
        ruleState: rule.ruleState,
        breakEvenTriggered: rule.breakEvenTriggered,
        stopPrice: rule.stopPrice,
        ...(stillOpen ? {} : { status: "closed" as const, closedAt: Date.now() }),
      });
    } else if (open && effect.position && !effect.position.isNew) {
      await updatePosition(trx, open.id, {
        quantity: effect.position.quantity,
        remainingQuantity: effect.position.remaining,
        entryPrice: effect.position.entryPrice,
        fees: D(open.fees).plus(order.fee).toString(),
        currentPrice: price,
        stopPrice: stopPriceFor({ ...open, entryPrice: effect.position.entryPrice }),
      });
    }
    if (effect.position?.isNew) {
      positionId = newId();
      const openedFee = effect.reduced
        ? D(order.fee).times(effect.position.quantity).div(filled).toString()
        : order.fee;
      const controls = await controlsForTrade(trx, config, trade);
      await insertPosition(trx, {
        id: positionId,
        symbol: trade.symbol,
        side: effect.position.side,
        quantity: effect.position.quantity,
        entryPrice: effect.position.entryPrice,
        currentPrice: price,
        entryTradeId: trade.id,
        advancedControls: controls,
        stopPrice: stopPriceFor({
          side: effect.position.side,
          entryPrice: effect.position.entryPrice,
          advancedControls: controls,
          breakEvenTriggered: false,
        }),
        leverage: trade.leverage ?? 1,
        marginType: trade.marginType ?? "cross",
        source: trade.source,
        signalId: trade.signalId,
        fees: openedFee,
        exchange: exchangeName,
      });
    }

    await updateTrade(trx, trade.id, {
      status: "executed",
      orderId: order.orderId,
      executedPrice: price,
      executedQuantity: filled,
      fee: order.fee,
      positionId,
      executedAt: realized.executedAt,
      realizedPnl: realized.realizedPnl,
    });
    if (trade.signalId) await updateSignalStatus(trx, trade.signalId, "executed");
    await stampSignal(trx, trade.signalId, "filled");
    const pnl = realized.realizedPnl !== null ? `, realised P&L ${toFixed(realized.realizedPnl, 2)} (net of fees)` : "";
    await recordActivity(trx, {
      type: "trade",
      level: "success",
      message:
        trade.source === "reconcile"
          ? `Booked from ${exchangeName} (reconciliation, no order sent): ${trade.side.toUpperCase()} ${filled} ${trade.symbol} @ ${price}${pnl}`
          : `${trade.clientOrderId.includes("#p") ? "Partial fill" : "Order filled"} on ${exchangeName}: ${trade.side.toUpperCase()} ${filled} ${trade.symbol} @ ${price} (fee ${order.fee})${pnl}`,
      // A flip (the fill closed `open` and opened another): the closed position is named, so its close is notified (issue 25).
      data: {
        tradeId: trade.id,
        orderId: order.orderId,
        symbol: trade.symbol,
        side: trade.side,
        quantity: filled,
        price,
        fee: order.fee,
        source: trade.source,
        ...(open && effect.reduced && effect.position?.isNew ? { closedPositionId: open.id } : {}),
      },
    });
    if (breakEvenNote) {
      await recordActivity(trx, {
        type: "trade",
        level: "info",
        message: breakEvenNote,
        data: { positionId, symbol: trade.symbol, stopPrice: breakEvenStop, entryPrice: open!.entryPrice },
      });
    }
    await pushTradeUpdate(trx, trade, "executed", { price, quantity: filled });
    await appendEvent(trx, "dashboard_update", { reason: "trade" });
    return "executed" as const;
  });
}
