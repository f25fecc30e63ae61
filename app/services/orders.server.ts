// Manual orders: validated and sized here, then written as a pending trade plus its job
// in ONE transaction; the worker sends it (the same path as signals).
import { marginBalance } from "#app/core/exchange/types.ts";
import type { Kysely } from "kysely";
import { pokeWorkers } from "./worker-wake.server.ts";
import { D, floorToIncrement, toFixed } from "#app/core/decimal.ts";
import { getPrice } from "#app/core/exchange/simulator/price-feed.ts";
import { resolveSymbol } from "#app/core/products.ts";
import type { ManualOrder } from "#app/core/schemas/manual-order.ts";
import { recordActivity } from "#db/queries/activity-logs.ts";
import { appendEvent } from "#db/queries/events.ts";
import { enqueueJob } from "#db/queries/jobs.ts";
import { type Trade, getTrade, insertTrade } from "#db/queries/trades.ts";
import { getEmergencyStop } from "#db/queries/trading-state.ts";
import { newId } from "#db/queries/util.ts";
import type { DB } from "#db/schema.ts";
import { getExchange } from "./exchange.server.ts";

export type PlaceResult = { ok: true; trade: Trade } | { ok: false; status: 400 | 409 | 503; error: string; field?: string };

/** The order size in the base asset for the chosen amount type. */
async function resolveQuantity(db: Kysely<DB>, order: ManualOrder): Promise<{ quantity: string } | { error: string; status: 400 | 503 }> {
  const product = resolveSymbol(order.symbol)!;
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
    return { status: 400, error: `Order size ${toFixed(raw, 8).replace(/\.?0+$/, "")} ${product.base} is below the minimum ${product.baseMinSize} for ${order.symbol}` };
  }
  return { quantity };
}

export async function placeManualOrder(db: Kysely<DB>, order: ManualOrder, by: string): Promise<PlaceResult> {
  const stop = await getEmergencyStop(db);
  if (stop.active) return { ok: false, status: 409, error: "Emergency stop is active: no orders are sent until it is reset" };
  const sized = await resolveQuantity(db, order);
  if ("error" in sized) return { ok: false, status: sized.status, error: sized.error, field: "quantity" };

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
      quantity: sized.quantity,
      price: order.price,
      source: "manual",
      clientOrderId: `job-${job.id}`,
      exchange,
      jobId: job.id,
      leverage: order.leverage,
      marginType: order.marginType,
    });
    await recordActivity(trx, {
      type: "trade",
      level: "info",
      message: `Manual order queued by ${by}: ${order.side.toUpperCase()} ${sized.quantity} ${order.symbol}${order.price ? ` @ ${order.price}` : ""}`,
      data: { tradeId, symbol: order.symbol, side: order.side, quantity: sized.quantity, amountType: order.amountType, amount: order.quantity, leverage: order.leverage, marginType: order.marginType },
    });
    await appendEvent(trx, "trade_update", { id: tradeId, symbol: order.symbol, side: order.side, status: "pending" });
  });
  pokeWorkers(db);
  return { ok: true, trade: (await getTrade(db, tradeId))! };
}
