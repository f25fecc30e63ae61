// Orders resting on a real exchange (a Coinbase limit order, or a market order not final
// when the worker stopped waiting) are not seen by the simulator's price loop: this loop asks
// the exchange about each pending trade that has an order id, and books those that became
// final (filled, cancelled, rejected) with the same bookOrder the worker uses, and the part
// of a resting order that filled meanwhile (a partial fill, booked as its own trade). bookOrder
// books once (it re-reads the trade under the symbol lock), so two workers overlapping here
// cannot double-book; only the price leader runs it, to spare the rate limit.
import type { Kysely } from "kysely";
import { D } from "../../app/core/decimal.ts";
import { OrderNotFoundError } from "../../app/core/exchange/errors.ts";
import type { ExchangeAdapter } from "../../app/core/exchange/types.ts";
import { recordActivity } from "../../db/queries/activity-logs.ts";
import { checkStrategyHeartbeats } from "../../db/queries/heartbeats.ts";
import { getTrade } from "../../db/queries/trades.ts";
import type { DB } from "../../db/schema.ts";
import { bookOrder, failTrade, settleUnknownTrade } from "../execution.ts";
import { syncExchangeStops } from "./exchange-stops.ts";
import { isPriceLeader } from "./price-loop.ts";

export const ORDER_SYNC_MS = 2_000;
const BATCH = 50;

/** One pass: returns how many trades changed. The simulator's orders are left to the price loop. */
export async function syncExchangeOrders(db: Kysely<DB>, exchange: ExchangeAdapter): Promise<number> {
  const name = exchange.name;
  if (name === "simulator") return 0;
  const pending = await db
    .selectFrom("trades")
    .select(["id", "order_id"])
    .where("status", "=", "pending")
    .where("exchange", "=", name)
    .where("order_id", "is not", null)
    .orderBy("created_at")
    .limit(BATCH)
    .execute();
  let changed = 0;
  for (const row of pending) {
    let order;
    try {
      order = await exchange.getOrder(row.order_id!);
    } catch (error) {
      if (!(error instanceof OrderNotFoundError)) throw error;
      const trade = await getTrade(db, row.id);
      if (trade?.status === "pending") {
        await failTrade(db, trade, `The exchange no longer knows order ${row.order_id}`);
        changed++;
      }
      continue;
    }
    // Still resting: only a part filled since the last look is booked (bookOrder: partial fills).
    if (order.status === "open" && D(order.filledQuantity).lte(0)) continue;
    const trade = await getTrade(db, row.id);
    if (trade?.status !== "pending") continue;
    await bookOrder(db, trade, order, name);
    changed++;
  }
  return changed;
}

/**
 * Trades whose outcome is unknown (issue 15): each asked for by its client order id and
 * settled (booked, back to pending while it rests, or failed when surely never sent); one
 * the exchange still cannot answer for stays unknown. Every exchange, the simulator too.
 */
export async function settleUnknownTrades(
  db: Kysely<DB>,
  exchange: Pick<ExchangeAdapter, "name" | "findOrderByClientId">,
): Promise<number> {
  const rows = await db
    .selectFrom("trades")
    .select("id")
    .where("status", "=", "unknown")
    .where("exchange", "=", exchange.name)
    .orderBy("created_at")
    .limit(BATCH)
    .execute();
  let changed = 0;
  for (const row of rows) {
    const trade = await getTrade(db, row.id);
    if (trade?.status !== "unknown") continue;
    if ((await settleUnknownTrade(db, exchange, trade, "reconciled")) !== "unknown") changed++;
  }
  return changed;
}

/**
 * Runs, every `intervalMs` on the price leader: the heartbeat check, settleUnknownTrades, and
 * on a real exchange syncExchangeOrders and syncExchangeStops. Returns stop().
 */
export function startOrderSync(options: {
  db: Kysely<DB>;
  exchange: ExchangeAdapter;
  workerId: string;
  intervalMs?: number;
}) {
  const { db, exchange, workerId } = options;
  let running = true;
  let lastError = "";
  const loop = (async () => {
    while (running) {
      try {
        if (await isPriceLeader(db, workerId)) {
          // Strategies whose expected heartbeat alert is overdue (issue 12).
          await checkStrategyHeartbeats(db);
          await settleUnknownTrades(db, exchange);
          if (exchange.name !== "simulator") {
            await syncExchangeOrders(db, exchange);
            // Resting stops on the exchange, in step with each position's protection (issue 15).
            await syncExchangeStops(db, exchange);
          }
        }
        lastError = "";
      } catch (error) {
        const message = (error as Error).message;
        if (message !== lastError) {
          lastError = message; // logged once per distinct failure, not every 2 s
          await recordActivity(db, {
            type: "system",
            level: "warning",
            message: `Order status check on ${exchange.name} failed: ${message}`,
          }).catch(() => undefined);
        }
      }
      await Bun.sleep(options.intervalMs ?? ORDER_SYNC_MS);
    }
  })();
  return async () => {
    running = false;
    await loop;
  };
}
