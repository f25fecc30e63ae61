// Manual orders: validated and sized here, then written as a pending trade plus its job
// in ONE transaction; the worker sends it (the same path as signals).
import { marginBalance } from "#app/core/exchange/types.ts";
import type { Kysely } from "kysely";
import { pokeWorkers } from "./worker-wake.server.ts";
import { D, floorToIncrement, toFixed } from "#app/core/decimal.ts";
import { SIM_TAKER_FEE_RATE, insufficientMargin } from "#exchange/simulator/margin.ts";
import { getPrice } from "#exchange/simulator/price-feed.ts";
import { sideForOrder } from "#app/core/orders/net-position.ts";
import { exitLine, exitPart } from "#app/core/orders/exit-only.ts";
import { getOpenPosition } from "#db/queries/positions.ts";
import { listHeartbeats } from "#db/queries/worker-heartbeats.ts";
import { WORKER_ONLINE_MS } from "./health.server.ts";
import { resolveSymbol } from "#app/core/products.ts";
import type { ManualOrder } from "#app/core/schemas/manual-order.ts";
import { recordActivity } from "#db/queries/activity-logs.ts";
import { appendEvent } from "#db/queries/events.ts";
import { enqueueJob } from "#db/queries/jobs.ts";
import { type Trade, getTrade, insertTrade, newClientOrderId, tradeRowToTrade } from "#db/queries/trades.ts";
import { CLOSE_JOB_PRIORITY } from "#app/core/schemas/job-payloads.ts";
import { getEmergencyStop } from "#db/queries/trading-state.ts";
import { newId } from "#db/queries/util.ts";
import type { DB } from "#db/schema.ts";
import { getExchange } from "#exchange/factory.ts";
import { tradingProductsFor } from "#exchange/trading-product.ts";
import { reducingProduct } from "#app/core/rules/index.ts";

export type PlaceResult =
  | { ok: true; trade: Trade }
  | { ok: false; status: 400 | 409 | 503; error: string; field?: string };

/**
 * The order size in the base asset for the chosen amount type, by the one sizing rule of the
 * worker (decisions 025 and 039): in the active exchange's steps (whole Coinbase contracts when
 * it trades them, or on the simulator with "Use Coinbase contract sizes"), an exit of a
 * position the simulator holds in the simulator's own steps; under the minimum it is refused
 * here, before anything is queued, naming the minimum.
 */
async function resolveQuantity(
  db: Kysely<DB>,
  order: ManualOrder,
): Promise<{ quantity: string } | { error: string; status: 400 | 503 }> {
  const spec = resolveSymbol(order.symbol)!;
  const traded = (await tradingProductsFor(db, getExchange(db)).product(order.symbol)) ?? {
    ...spec,
    contractSize: null,
  };
  const product = reducingProduct(
    traded,
    { ...traded, baseIncrement: spec.baseIncrement, baseMinSize: spec.baseMinSize },
    await getOpenPosition(db, order.symbol),
    order.side,
  );
  let raw: string;
  if (order.amountType === "quantity") {
    raw = order.quantity;
  } else {
    const reference = order.price ?? (await getPrice(db, order.symbol))?.price ?? null;
    if (!reference) return { status: 503, error: `No market price for ${order.symbol} yet: try again in a moment` };
    if (order.amountType === "usd") {
      raw = D(order.quantity).div(reference).toString();
    } else {
      const balances = await getExchange(db).getBalances();
      const available = marginBalance(balances).available;
      raw = D(available).times(order.quantity).div(100).times(order.leverage).div(reference).toString();
    }
  }
  const quantity = floorToIncrement(raw, product.baseIncrement);
  if (D(quantity).lt(product.baseMinSize)) {
    const contract =
      product.contractSize && D(product.contractSize).eq(product.baseMinSize)
        ? ` (one contract of ${product.contractSize} ${product.base})`
        : "";
    return {
      status: 400,
      error: `Order size ${toFixed(raw, 8).replace(/\.?0+$/, "")} ${product.base} is below the minimum ${product.baseMinSize} for ${order.symbol}${contract}`,
    };
  }
  return { quantity };
}

/**
 * The obvious overdraw, refused before the order is accepted (issue 11): on the simulator,
 * whose balance the app knows, an order that opens or adds to a position needs its margin
 * (quantity × price ÷ leverage) plus the taker fee in the available balance. An order
 * against the open position (a reduce or a flip) is left to the exchange, as are orders to
 * Coinbase, whose buying power only Coinbase computes. Null when it may go.
 */
async function marginShortfall(db: Kysely<DB>, order: ManualOrder, quantity: string): Promise<string | null> {
  const exchange = await getExchange(db).current();
  if (exchange.name !== "simulator") return null;
  const open = await getOpenPosition(db, order.symbol);
  if (open && open.side !== sideForOrder(order.side)) return null;
  const reference = order.price ?? (await getPrice(db, order.symbol))?.price ?? null;
  if (!reference) return null;
  const notional = D(quantity).times(reference);
  const needs = notional.div(order.leverage).plus(notional.times(SIM_TAKER_FEE_RATE));
  const balance = marginBalance(await exchange.getBalances());
  return needs.gt(balance.available) ? insufficientMargin(needs.toString(), balance.available, balance.currency) : null;
}

export async function placeManualOrder(db: Kysely<DB>, order: ManualOrder, by: string): Promise<PlaceResult> {
  const stop = await getEmergencyStop(db);
  // The emergency stop blocks entries, never exits (docs/decisions/019): an order against the
  // open position goes out reduce-only, bound to it, cut to what is open (a flip is close only).
  const held = stop.active ? await getOpenPosition(db, order.symbol) : null;
  const blocked = {
    ok: false,
    status: 409,
    error: "Emergency stop is active: no new positions are opened until it is reset",
  } as const;
  if (stop.active && !exitPart(held, order.side, "0")) return blocked;
  const sized = await resolveQuantity(db, order);
  if ("error" in sized) return { ok: false, status: sized.status, error: sized.error, field: "quantity" };
  const exit = stop.active ? exitPart(held, order.side, sized.quantity) : null;
  if (stop.active && !exit) return blocked;
  const quantity = exit ? exit.quantity : sized.quantity;
  const overdraw = await marginShortfall(db, order, quantity);
  if (overdraw) return { ok: false, status: 400, error: overdraw, field: "quantity" };

  // The exchange that will receive it (simulator, or Coinbase when credentials say so).
  const exchange = (await getExchange(db).current()).name;
  const tradeId = newId();
  await db.transaction().execute(async (trx) => {
    const job = await enqueueJob(trx, { task: "place-order", payload: { tradeId }, jobKey: `trade:${tradeId}` });
    await insertTrade(trx, {
      id: tradeId,
      symbol: order.symbol,
      side: order.side,
      orderType: order.orderType,
      quantity,
      price: order.price,
      source: "manual",
      clientOrderId: newClientOrderId(),
      exchange,
      jobId: job.id,
      leverage: order.leverage,
      marginType: order.marginType,
      ...(exit && held ? { reduceOnly: true, positionId: held.id } : {}),
    });
    await recordActivity(trx, {
      type: "trade",
      level: "info",
      message: `Manual order queued by ${by}: ${order.side.toUpperCase()} ${quantity} ${order.symbol}${order.price ? ` @ ${order.price}` : ""}`,
      data: {
        tradeId,
        symbol: order.symbol,
        side: order.side,
        quantity,
        amountType: order.amountType,
        amount: order.quantity,
        leverage: order.leverage,
        marginType: order.marginType,
      },
    });
    if (exit && held) {
      await recordActivity(trx, {
        type: "trade",
        level: "warning",
        message: exitLine({ side: order.side, asked: sized.quantity, symbol: order.symbol, position: held, exit }),
        data: { tradeId, positionId: held.id, symbol: order.symbol, quantity },
      });
    }
    await appendEvent(trx, "trade_update", { id: tradeId, symbol: order.symbol, side: order.side, status: "pending" });
  });
  pokeWorkers(db);
  return { ok: true, trade: (await getTrade(db, tradeId))! };
}

// ---------------------------------------------------------------------------------------
// Open orders and cancelling (issue 11)

/** Resting orders: pending trades the exchange has (an order id), oldest first. */
export async function listOpenOrders(db: Kysely<DB>): Promise<Trade[]> {
  const rows = await db
    .selectFrom("trades")
    .selectAll()
    .where("status", "=", "pending")
    .where("order_id", "is not", null)
    .orderBy("created_at")
    .limit(500)
    .execute();
  return rows.map(tradeRowToTrade);
}

/** How long an API call waits for the worker to finish a cancel or a flatten before answering 202. */
export const WAIT_FOR_WORKER_MS = 10_000;

/** Polls until every job is finished (completed, failed or cancelled) or the time is up. */
export async function waitForJobs(db: Kysely<DB>, ids: number[], timeoutMs = WAIT_FOR_WORKER_MS): Promise<boolean> {
  if (ids.length === 0) return true;
  const end = Date.now() + timeoutMs;
  for (;;) {
    const rows = await db.selectFrom("jobs").select("status").where("id", "in", ids).execute();
    if (rows.every((r) => r.status === "completed" || r.status === "failed" || r.status === "cancelled")) return true;
    if (Date.now() >= end) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export type CancelResult =
  | { ok: true; status: Trade["status"]; done: boolean; jobId: number }
  | { ok: false; status: 404 | 409; error: string };

/**
 * Queues the cancel of one resting order without waiting. No job key: a cancel is
 * idempotent (a second one finds the trade no longer pending), and a failed one may be
 * asked again.
 */
export async function queueCancel(db: Kysely<DB>, trade: Pick<Trade, "id">, by: string): Promise<number> {
  const job = await enqueueJob(db, {
    task: "cancel-order",
    payload: { tradeId: trade.id, requestedBy: by },
    priority: CLOSE_JOB_PRIORITY,
  });
  return job.id;
}

/**
 * Cancels one resting order: the worker asks the exchange and books the outcome; this waits
 * for it (WAIT_FOR_WORKER_MS) and answers what the trade became (`done: false` when the
 * worker has not answered yet).
 */
export async function cancelOrderBy(db: Kysely<DB>, tradeId: string, by: string): Promise<CancelResult> {
  const trade = await getTrade(db, tradeId);
  if (!trade) return { ok: false, status: 404, error: "Trade not found" };
  if (trade.status !== "pending") return { ok: false, status: 409, error: `The order is already ${trade.status}` };
  if (!trade.orderId)
    return { ok: false, status: 409, error: "The order is being sent to the exchange: try again in a moment" };
  const jobId = await queueCancel(db, trade, by);
  pokeWorkers(db);
  const done = await waitForJobs(db, [jobId]);
  const after = (await getTrade(db, tradeId))!;
  return { ok: true, status: after.status, done, jobId };
}

/** Cancels every resting order; answers how many ended cancelled and whether all were handled. */
export async function cancelAllOrders(
  db: Kysely<DB>,
  by: string,
): Promise<{ cancelled: number; done: boolean; jobIds: number[] }> {
  const open = await listOpenOrders(db);
  const jobIds: number[] = [];
  for (const trade of open) jobIds.push(await queueCancel(db, trade, by));
  if (jobIds.length) pokeWorkers(db);
  const done = await waitForJobs(db, jobIds);
  const cancelled = open.length
    ? Number(
        (
          await db
            .selectFrom("trades")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where(
              "id",
              "in",
              open.map((t) => t.id),
            )
            .where("status", "=", "cancelled")
            .executeTakeFirst()
        )?.n ?? 0,
      )
    : 0;
  return { cancelled, done, jobIds };
}

/** How long a manual order's form waits for the worker's outcome before saying "queued". */
export const ORDER_OUTCOME_WAIT_MS = 3_000;

/**
 * What became of an accepted manual order (issue 11): waits for its job while a worker is
 * running (ORDER_OUTCOME_WAIT_MS), then answers the trade as it is: executed, resting on the
 * exchange, failed with its reason, or still queued. No running worker: no wait.
 */
export async function awaitOrderOutcome(
  db: Kysely<DB>,
  trade: Trade,
): Promise<{ trade: Trade; workerRunning: boolean }> {
  const now = Date.now();
  const workerRunning = (await listHeartbeats(db)).some((beat) => now - beat.lastBeatAt <= WORKER_ONLINE_MS);
  if (workerRunning && trade.jobId != null) await waitForJobs(db, [trade.jobId], ORDER_OUTCOME_WAIT_MS);
  return { trade: (await getTrade(db, trade.id)) ?? trade, workerRunning };
}
