// Prices: one worker at a time (the leader: the live worker with the smallest id) moves
// the market and runs the rules monitor over every open position at the new prices
// (worker/monitor/rules-monitor.ts). Other workers stand by and take over if it dies.
// Where the prices come from follows the active exchange (issue 15, app/core/price-source.ts):
// - the simulator (and sandbox paper trading): its feed (Coinbase's public spot prices, or
//   the random walk offline), which also fills the simulator's resting limit orders;
// - live Coinbase: the traded CDE product's best bid/ask, polled through the adapter and
//   stored as "coinbase-cde"; the simulator's feed does not run.
// The monitor only sees prices the rules may act on (the active exchange's, fresh); a held
// symbol without one is reported stale by the price guard (worker/monitor/price-guard.ts).
import type { Kysely } from "kysely";
import { SIMULATOR_NAME } from "#exchange/simulator/adapter.ts";
import { matchRestingOrders } from "#exchange/simulator/resting-orders.ts";
import { type PriceTick, type PriceUpdate, createPriceFeed, setPrices } from "#exchange/simulator/price-feed.ts";
import type { ExchangeAdapter } from "../../app/core/exchange/types.ts";
import type { TradingProductResolver } from "#exchange/trading-product.ts";
import { DEFAULT_PRICE_MAX_AGE_MS, LIVE_PRICE_SOURCE, judgePrice } from "../../app/core/price-source.ts";
import { BUILTIN_PRODUCTS, isKnownSymbol } from "../../app/core/products.ts";
import { getTradeByClientOrderId } from "../../db/queries/trades.ts";
import { listHeartbeats } from "../../db/queries/worker-heartbeats.ts";
import type { DB } from "../../db/schema.ts";
import { bookOrder } from "../execution.ts";
import { type PriceGuard, createPriceGuard } from "./price-guard.ts";
import { applyPaperMargin } from "./paper-margin.ts";
import { type MonitorResult, createRulesMonitor } from "./rules-monitor.ts";

const LEADER_FRESH_MS = 10_000;

/** A tick's price of one symbol; `source` / `at` default to a test's price taken now. */
export type Tick = Pick<PriceTick, "symbol" | "price"> & { source?: string; at?: number };

export interface TickOptions {
  /** The active exchange's name: which prices the rules may act on (default the simulator). */
  exchangeName?: string;
  maxAgeMs?: number;
  now?: number;
  /** Reports held symbols without a usable price (stale), and their recovery. */
  guard?: PriceGuard;
}

/**
 * What one tick of prices does: the simulator's resting limit orders its prices cross fill
 * (and are booked), then the rules monitor evaluates every open position at the prices the
 * rules may act on (the active exchange's, fresh: app/core/price-source.ts). Tests drive this
 * directly (setPrice, then processPriceTicks) instead of running the loop.
 */
export async function processPriceTicks(
  db: Kysely<DB>,
  ticks: Tick[],
  monitor: ReturnType<typeof createRulesMonitor> = createRulesMonitor(db),
  options: TickOptions = {},
): Promise<MonitorResult> {
  const exchangeName = options.exchangeName ?? SIMULATOR_NAME;
  const now = options.now ?? Date.now();
  for (const tick of ticks) {
    if (tick.source === LIVE_PRICE_SOURCE) continue; // the simulator fills at its own prices only
    for (const order of await matchRestingOrders(db, tick.symbol, tick.price)) {
      const trade = await getTradeByClientOrderId(db, order.clientOrderId);
      if (trade && trade.status === "pending") await bookOrder(db, trade, order, SIMULATOR_NAME);
    }
  }
  await applyPaperMargin(db, ticks); // liquidations (and funding) on the paper accounts, booked in the app
  const usable = ticks.filter(
    (t) =>
      judgePrice({ source: t.source ?? "test", updatedAt: t.at ?? now }, exchangeName, now, options.maxAgeMs).usable,
  );
  const result = await monitor.tick(new Map(usable.map((t) => [t.symbol, t.price])));
  await options.guard?.check(db, exchangeName, now);
  return result;
}

/**
 * The symbols whose live price is polled every tick: the built-in products and every product
 * with an open position or an open order (the rules act on those). The rest of the catalog is
 * priced by Market Data's own product list, so a catalog of many perpetuals does not cost a
 * private request each per second (docs/decisions/051-every-coinbase-perpetual.md).
 */
export async function watchedSymbols(db: Kysely<DB>): Promise<string[]> {
  const [held, ordered] = await Promise.all([
    db.selectFrom("positions").select("symbol").where("status", "=", "open").groupBy("symbol").execute(),
    db.selectFrom("trades").select("symbol").where("status", "in", ["pending", "unknown"]).groupBy("symbol").execute(),
  ]);
  const symbols = new Set(BUILTIN_PRODUCTS.map((p) => p.symbol));
  for (const row of [...held, ...ordered]) if (isKnownSymbol(row.symbol)) symbols.add(row.symbol);
  return [...symbols];
}

/**
 * Live prices: each watched product's best bid/ask mid on the active exchange, stored as
 * "coinbase-cde" at the time the exchange gives its book (never later than now). A product
 * whose call fails, times out, or whose book is empty or one-sided has no tick: its stored
 * price ages and the guard reports it stale.
 */
export async function exchangeTicks(
  db: Kysely<DB>,
  exchange: Pick<ExchangeAdapter, "getTicker">,
  timeoutMs = 3000,
): Promise<Tick[]> {
  const answers = await Promise.allSettled(
    (await watchedSymbols(db)).map((symbol) =>
      Promise.race([
        exchange.getTicker(symbol),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error(`no price for ${symbol} within ${timeoutMs} ms`)), timeoutMs),
        ),
      ]),
    ),
  );
  const ticks: Tick[] = [];
  const updates: PriceUpdate[] = [];
  for (const answer of answers) {
    if (answer.status !== "fulfilled") continue;
    const ticker = answer.value;
    // The exchange's own time of the book (issue 21, defect 5): a book it reports as old stays old here.
    const at = Math.min(Date.parse(ticker.time) || 0, Date.now());
    updates.push({
      symbol: ticker.symbol,
      price: ticker.price,
      source: LIVE_PRICE_SOURCE,
      bid: ticker.bid,
      ask: ticker.ask,
      at,
    });
    ticks.push({ symbol: ticker.symbol, price: ticker.price, source: LIVE_PRICE_SOURCE, at });
  }
  // One commit for the batch: the prices and their 1-minute candles (decision 032).
  await setPrices(db, updates);
  return ticks;
}

export async function isPriceLeader(db: Kysely<DB>, workerId: string, now = Date.now()): Promise<boolean> {
  const alive = (await listHeartbeats(db)).filter(
    (b) => b.status === "running" && now - b.lastBeatAt <= LEADER_FRESH_MS,
  );
  const ids = alive.map((b) => b.workerId).sort();
  return ids.length === 0 || ids[0] === workerId;
}

export function startPriceLoop(options: {
  db: Kysely<DB>;
  workerId: string;
  intervalMs?: number;
  usePublicPrices?: boolean;
  /** The active exchange (default: the simulator). Live Coinbase prices come from it. */
  exchange?: Pick<ExchangeAdapter, "name" | "getTicker">;
  maxAgeMs?: number;
  /** The products as the active exchange trades them, for the rules (exchange/trading-product.ts). */
  products?: TradingProductResolver;
}) {
  const { db, workerId } = options;
  const feed = createPriceFeed(db, { usePublicPrices: options.usePublicPrices ?? true });
  const monitor = createRulesMonitor(db, { products: options.products });
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_PRICE_MAX_AGE_MS;
  const guard = createPriceGuard({ maxAgeMs });
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        if (await isPriceLeader(db, workerId)) {
          const exchangeName = options.exchange?.name ?? SIMULATOR_NAME;
          const ticks =
            exchangeName === SIMULATOR_NAME ? await feed.tick() : await exchangeTicks(db, options.exchange!);
          await processPriceTicks(db, ticks, monitor, { exchangeName, maxAgeMs, guard });
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
