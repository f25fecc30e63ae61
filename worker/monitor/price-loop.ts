// Prices: one worker at a time (the leader: the live worker with the smallest id) moves
// the market (public prices or the random walk), fills resting limit orders, and marks
// open positions to the new price. Other workers stand by and take over if it dies.
import type { Kysely } from "kysely";
import { SIMULATOR_NAME, matchRestingOrders } from "../../app/core/exchange/simulator/adapter.ts";
import { createPriceFeed } from "../../app/core/exchange/simulator/price-feed.ts";
import { getTradeByClientOrderId } from "../../db/queries/trades.ts";
import { listHeartbeats } from "../../db/queries/worker-heartbeats.ts";
import type { DB } from "../../db/schema.ts";
import { bookOrder } from "../execution.ts";

const LEADER_FRESH_MS = 10_000;

export async function isPriceLeader(db: Kysely<DB>, workerId: string, now = Date.now()): Promise<boolean> {
  const alive = (await listHeartbeats(db)).filter((b) => b.status === "running" && now - b.lastBeatAt <= LEADER_FRESH_MS);
  const ids = alive.map((b) => b.workerId).sort();
  return ids.length === 0 || ids[0] === workerId;
}

export function startPriceLoop(options: { db: Kysely<DB>; workerId: string; intervalMs?: number; usePublicPrices?: boolean }) {
  const { db, workerId } = options;
  const feed = createPriceFeed(db, { usePublicPrices: options.usePublicPrices ?? true });
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        if (await isPriceLeader(db, workerId)) {
          const ticks = await feed.tick();
          for (const tick of ticks) {
            await db
              .updateTable("positions")
              .set({ current_price: tick.price, updated_at: Date.now() })
              .where("symbol", "=", tick.symbol)
              .where("status", "=", "open")
              .execute();
            for (const order of await matchRestingOrders(db, tick.symbol, tick.price)) {
              const trade = await getTradeByClientOrderId(db, order.clientOrderId);
              if (trade && trade.status === "pending") await bookOrder(db, trade, order, SIMULATOR_NAME);
            }
          }
        }
      } catch (error) {
        console.error(`[worker] price tick failed: ${(error as Error).message}`);
      }
      await Bun.sleep(options.intervalMs ?? 1000);
    }
  })();
  return async () => {
    running = false;
    await loop;
  };
}
