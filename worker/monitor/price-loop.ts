// Prices: one worker at a time (the leader: the live worker with the smallest id) moves
// the market (public prices or the random walk), fills resting limit orders, and runs the
// rules monitor over every open position at the new prices (worker/monitor/rules-monitor.ts).
// Other workers stand by and take over if it dies.
import type { Kysely } from "kysely";
import { SIMULATOR_NAME, matchRestingOrders } from "../../app/core/exchange/simulator/adapter.ts";
import { type PriceTick, createPriceFeed } from "../../app/core/exchange/simulator/price-feed.ts";
import { getTradeByClientOrderId } from "../../db/queries/trades.ts";
import { listHeartbeats } from "../../db/queries/worker-heartbeats.ts";
import type { DB } from "../../db/schema.ts";
import { bookOrder } from "../execution.ts";
import { type MonitorResult, createRulesMonitor } from "./rules-monitor.ts";

const LEADER_FRESH_MS = 10_000;

/**
 * What one tick of prices does: resting limit orders it crosses fill (and are booked), then
 * the rules monitor evaluates every open position at the new prices. Tests drive this
 * directly (setPrice, then processPriceTicks) instead of running the loop.
 */
export async function processPriceTicks(
  db: Kysely<DB>,
  ticks: Pick<PriceTick, "symbol" | "price">[],
  monitor: ReturnType<typeof createRulesMonitor> = createRulesMonitor(db),
): Promise<MonitorResult> {
  for (const tick of ticks) {
    for (const order of await matchRestingOrders(db, tick.symbol, tick.price)) {
      const trade = await getTradeByClientOrderId(db, order.clientOrderId);
      if (trade && trade.status === "pending") await bookOrder(db, trade, order, SIMULATOR_NAME);
    }
  }
  return monitor.tick(new Map(ticks.map((t) => [t.symbol, t.price])));
}

export async function isPriceLeader(db: Kysely<DB>, workerId: string, now = Date.now()): Promise<boolean> {
  const alive = (await listHeartbeats(db)).filter((b) => b.status === "running" && now - b.lastBeatAt <= LEADER_FRESH_MS);
  const ids = alive.map((b) => b.workerId).sort();
  return ids.length === 0 || ids[0] === workerId;
}

export function startPriceLoop(options: { db: Kysely<DB>; workerId: string; intervalMs?: number; usePublicPrices?: boolean }) {
  const { db, workerId } = options;
  const feed = createPriceFeed(db, { usePublicPrices: options.usePublicPrices ?? true });
  const monitor = createRulesMonitor(db);
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        if (await isPriceLeader(db, workerId)) {
          await processPriceTicks(db, await feed.tick(), monitor);
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
