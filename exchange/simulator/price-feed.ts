// Prices for the simulator, shared by every process through the `market_prices` table.
// - setPrice / setPrices / getPrice: the table (an upsert on both dialects), and each price
//   folded into its 1-minute candle (db/queries/candles.ts, decision 032);
// - createRandomWalk(seed): a deterministic walk per symbol, used when no market data is
//   reachable (this is what a fresh offline install shows; never after public prices were
//   seen: then a failure leaves the prices to go stale, app/core/price-source.ts);
// - fetchPublicPrices: Coinbase's public market data (no keys), the spot reference of each
//   perp of the catalog in one request, null on failure;
// - startPriceFeed: the loop: public prices when reachable, else the walk from the last
//   stored price; writes every product of the catalog it has a price for, then calls onTick
//   (where resting limits match).
import type { Kysely } from "kysely";
import { Big, D, parseDecimal, roundToIncrement } from "#app/core/decimal.ts";
import { judgePrice } from "#app/core/price-source.ts";
import { type ProductSpec, listProducts, productOf as catalogProduct } from "#app/core/products.ts";
import { firstOpensSince, recordCandleTicks } from "#db/queries/candles.ts";
import { isMysql, transactionWithLockRetry } from "#db/queries/util.ts";
import type { DB } from "#db/schema.ts";

export interface MarketPrice {
  symbol: string;
  price: string;
  bid: string | null;
  ask: string | null;
  source: string;
  updatedAt: number;
}

const norm = (value: string | number | null | undefined): string | null =>
  value === null || value === undefined || value === "" ? null : new Big(value).toString();

function positiveDecimal(value: unknown, what: string): string {
  const parsed = parseDecimal(value);
  if (parsed === null || !D(parsed).gt(0))
    throw new Error(`${what} must be a decimal number > 0, got ${String(value)}`);
  return parsed;
}

/** Stores the current price of a symbol (insert or update). `source`: coinbase | random-walk | test | ... */
export async function setPrice(
  db: Kysely<DB>,
  symbol: string,
  price: string,
  source = "manual",
  quote: { bid?: string | null; ask?: string | null; at?: number } = {},
): Promise<MarketPrice> {
  const [stored] = await setPrices(db, [{ symbol, price, source, ...quote }]);
  return stored!;
}

export interface PriceUpdate {
  symbol: string;
  price: string;
  source?: string;
  bid?: string | null;
  ask?: string | null;
  at?: number;
}

/**
 * Stores a batch of prices (a tick of the feed) in ONE transaction: each symbol's
 * `market_prices` row and the 1-minute candles (db/queries/candles.ts, one statement), so a
 * tick costs one commit however many symbols it moves.
 */
export async function setPrices(db: Kysely<DB>, updates: PriceUpdate[]): Promise<MarketPrice[]> {
  if (updates.length === 0) return [];
  const now = Date.now();
  const rows = updates.map((u) => ({
    symbol: u.symbol,
    price: positiveDecimal(u.price, "price"),
    bid: u.bid == null ? null : positiveDecimal(u.bid, "bid"),
    ask: u.ask == null ? null : positiveDecimal(u.ask, "ask"),
    source: (u.source ?? "manual").slice(0, 16),
    updated_at: u.at ?? now,
  }));
  const write = async (trx: Kysely<DB>) => {
    for (const values of rows) {
      const { symbol: _key, ...update } = values;
      const insert = trx.insertInto("market_prices").values(values);
      if (isMysql(trx)) await insert.onDuplicateKeyUpdate(update).execute();
      else await insert.onConflict((oc) => oc.column("symbol").doUpdateSet(update)).execute();
    }
    await recordCandleTicks(
      trx,
      rows.map((r) => ({ symbol: r.symbol, price: r.price, at: r.updated_at })),
    );
  };
  // Inside the caller's transaction it is the caller's to retry; alone, a deadlock victim
  // (e.g. with another process's tick on the same rows) is written again.
  if (db.isTransaction) await write(db);
  else await transactionWithLockRetry(db, write);
  return rows.map((r) => ({
    symbol: r.symbol,
    price: r.price,
    bid: r.bid,
    ask: r.ask,
    source: r.source,
    updatedAt: r.updated_at,
  }));
}

export async function getPrice(db: Kysely<DB>, symbol: string): Promise<MarketPrice | null> {
  const row = await db.selectFrom("market_prices").selectAll().where("symbol", "=", symbol).executeTakeFirst();
  return row ? rowToPrice(row) : null;
}

/** Every stored price, by symbol. */
export async function getPrices(db: Kysely<DB>): Promise<Map<string, MarketPrice>> {
  const rows = await db.selectFrom("market_prices").selectAll().execute();
  return new Map(rows.map((row) => [row.symbol, rowToPrice(row)]));
}

function rowToPrice(row: {
  symbol: string;
  price: string;
  bid: string | null;
  ask: string | null;
  source: string;
  updated_at: number;
}): MarketPrice {
  return {
    symbol: row.symbol,
    price: norm(row.price)!,
    bid: norm(row.bid),
    ask: norm(row.ask),
    source: row.source,
    updatedAt: Number(row.updated_at),
  };
}

function productOf(symbol: string): ProductSpec {
  const product = catalogProduct(symbol);
  if (!product) throw new Error(`Unknown symbol ${symbol}`);
  return product;
}

// ---------------------------------------------------------------------------------------
// Random walk

/** mulberry32: a small, fast, seedable PRNG (32-bit state). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hashString(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

export interface RandomWalk {
  /**
   * The next price of `symbol`: one step from `previous` (or from the product's reference
   * price when there is none), step = price x volatility x u with u uniform in [-1, 1],
   * rounded to the product's price tick, never below one tick.
   */
  next(symbol: string, previous?: string | null): string;
}

/** A walk whose steps depend only on the seed and, per symbol, on how many steps it took. */
export function createRandomWalk(seed: number): RandomWalk {
  const generators = new Map<string, () => number>();
  return {
    next(symbol, previous) {
      const product = productOf(symbol);
      let random = generators.get(symbol);
      if (!random) {
        random = mulberry32((seed ^ hashString(symbol)) >>> 0);
        generators.set(symbol, random);
      }
      // The random number becomes a decimal with 6 places: u in [-1, 1], no float in the price.
      const micro = Math.floor(random() * 2_000_001) - 1_000_000;
      const u = D(micro).div(1_000_000);
      const base = previous && D(previous).gt(0) ? D(previous) : D(product.referencePrice);
      const stepped = base.times(D(1).plus(u.times(product.volatility)));
      const rounded = D(roundToIncrement(stepped, product.quoteIncrement));
      return (rounded.gt(0) ? rounded : D(product.quoteIncrement)).toString();
    },
  };
}

// ---------------------------------------------------------------------------------------
// Coinbase public market data

/** Production, unless COINBASE_API_URL points the whole connector elsewhere (a test's fake Coinbase). */
export const COINBASE_PUBLIC_BASE = `${(process.env.COINBASE_API_URL || "https://api.coinbase.com").replace(/\/+$/, "")}/api/v3/brokerage/market/products`;

/** The part of `fetch` used here, so tests can pass a fake. */
export type FetchLike = (
  url: string,
  init?: { signal?: AbortSignal; headers?: Record<string, string> },
) => Promise<{ ok: boolean; status: number; json(): Promise<unknown> }>;

const defaultFetch: FetchLike = (url, init) => fetch(url, init);

/** The Coinbase spot product whose price is each perp's reference: BTC-PERP -> BTC-USD. */
export const publicProductId = (product: ProductSpec) => `${product.base}-USD`;

/**
 * Asks Coinbase's public market data for each perp's spot reference price in one request (GET
 * /market/products?product_ids={BASE}-USD&..., field `price` of each), rounded to our tick: one
 * request whatever the catalog's size (the public limit is about 10 a second). Null when the
 * request fails, times out (3 s), or prices none of them; a product missing from the answer
 * gets no price this tick (its stored price ages and shows stale).
 */
export async function fetchPublicPrices(
  fetchImpl: FetchLike = defaultFetch,
  options: { timeoutMs?: number; baseUrl?: string; products?: readonly ProductSpec[] } = {},
): Promise<Record<string, string> | null> {
  const products = options.products ?? listProducts();
  const timeoutMs = options.timeoutMs ?? 3000;
  const baseUrl = options.baseUrl ?? COINBASE_PUBLIC_BASE;
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve(null);
    }, timeoutMs);
  });
  const work = (async () => {
    const query = products.map((p) => `product_ids=${encodeURIComponent(publicProductId(p))}`).join("&");
    const response = await fetchImpl(`${baseUrl}?${query}`, {
      signal: controller.signal,
      headers: { accept: "application/json" },
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const body = (await response.json()) as { products?: unknown } | null;
    if (!Array.isArray(body?.products)) throw new Error("no products in the answer");
    const byId = new Map<string, unknown>();
    for (const item of body.products as { product_id?: unknown; price?: unknown }[])
      if (item && typeof item.product_id === "string") byId.set(item.product_id, item.price);
    const out: Record<string, string> = {};
    for (const product of products) {
      const price = parseDecimal(byId.get(publicProductId(product)));
      if (price === null || !D(price).gt(0)) continue;
      const rounded = roundToIncrement(price, product.quoteIncrement);
      if (D(rounded).gt(0)) out[product.symbol] = rounded;
    }
    if (Object.keys(out).length === 0) throw new Error("no product priced");
    return out;
  })().catch(() => null);
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
    // Whatever is still in flight after a timeout is abandoned; its rejection is handled above.
  }
}

export interface PublicPriceSource {
  /**
   * Public prices, or null when unreachable. Until they have answered once, a failure means
   * no new attempt for `retryMs` (an offline install); after that, every tick asks again.
   */
  get(): Promise<Record<string, string> | null>;
  /** Have public prices answered at least once? Then the feed never falls back to the walk. */
  readonly reached: boolean;
}

export function createPublicPriceSource(
  options: { fetchImpl?: FetchLike; retryMs?: number; timeoutMs?: number; now?: () => number } = {},
): PublicPriceSource {
  const retryMs = options.retryMs ?? 60_000;
  const now = options.now ?? Date.now;
  let blockedUntil = 0;
  let reached = false;
  return {
    get reached() {
      return reached;
    },
    async get() {
      if (now() < blockedUntil) return null;
      const prices = await fetchPublicPrices(options.fetchImpl, { timeoutMs: options.timeoutMs });
      if (prices) reached = true;
      else if (!reached) blockedUntil = now() + retryMs;
      return prices;
    },
  };
}

// ---------------------------------------------------------------------------------------
// The loop

export interface PriceTick {
  symbol: string;
  price: string;
  source: "coinbase" | "random-walk";
}

export interface PriceFeedOptions {
  intervalMs?: number;
  onTick?: (prices: PriceTick[]) => void | Promise<void>;
  /** Ask Coinbase's public market data first (default true). */
  usePublicPrices?: boolean;
  fetchImpl?: FetchLike;
  /** Seed of the random walk (default: the clock). */
  seed?: number;
  /** Called when a tick fails (database down ...); the loop carries on. Default console.warn. */
  onError?: (error: unknown) => void;
  now?: () => number;
}

export interface PriceFeed {
  /** One tick: read prices, store every product's, call onTick. */
  tick(): Promise<PriceTick[]>;
}

export function createPriceFeed(db: Kysely<DB>, options: PriceFeedOptions = {}): PriceFeed {
  const walk = createRandomWalk(options.seed ?? Date.now());
  const source =
    options.usePublicPrices === false
      ? null
      : createPublicPriceSource({ fetchImpl: options.fetchImpl, now: options.now });
  return {
    async tick() {
      const publicPrices = source ? await source.get() : null;
      // Once Coinbase's prices have been seen, a failed fetch writes nothing (the prices age
      // and turn stale) rather than inventing a walk from them (issue 15): the walk is the
      // offline simulator's feed only.
      if (!publicPrices && source?.reached) return [];
      const ticks: PriceTick[] = [];
      const stored = publicPrices ? null : await getPrices(db);
      for (const product of listProducts()) {
        if (publicPrices && !publicPrices[product.symbol]) continue;
        const tick: PriceTick = publicPrices
          ? { symbol: product.symbol, price: publicPrices[product.symbol]!, source: "coinbase" }
          : {
              symbol: product.symbol,
              price: walk.next(product.symbol, stored?.get(product.symbol)?.price),
              source: "random-walk",
            };
        ticks.push(tick);
      }
      await setPrices(db, ticks);
      await options.onTick?.(ticks);
      return ticks;
    },
  };
}

/**
 * Runs the feed every `intervalMs` (the next tick is scheduled when the previous one ends,
 * so a slow answer never stacks ticks). Returns stop(), which resolves once the tick in
 * progress (if any) has finished.
 */
export function startPriceFeed(db: Kysely<DB>, options: PriceFeedOptions = {}): () => Promise<void> {
  const intervalMs = options.intervalMs ?? 1000;
  const onError = options.onError ?? ((error: unknown) => console.warn("price feed tick failed:", error));
  const feed = createPriceFeed(db, options);
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();

  const loop = () => {
    if (stopped) return;
    running = feed
      .tick()
      .then(
        () => undefined,
        (error) => onError(error),
      )
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, intervalMs);
      });
  };
  loop();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}

// ---------------------------------------------------------------------------------------
// 24 h of history (issue 11): the first price of every minute is its candle's open
// (db/queries/candles.ts, decision 032; it replaced price_history).

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

export interface DayChange {
  /** Percent change from the first kept price in the window to `price`, 2 decimals. */
  change: string;
  /** When the window's first kept price was taken (24 h ago once the history reaches back that far). */
  since: number;
}

/** Per symbol, the change over the last 24 h (or since the oldest kept price, when younger). */
export async function dayChanges(
  db: Kysely<DB>,
  current: Map<string, string>,
  now = Date.now(),
): Promise<Map<string, DayChange>> {
  const firsts = await firstOpensSince(db, [...current.keys()], now - DAY_MS);
  const out = new Map<string, DayChange>();
  for (const [symbol, first] of firsts) {
    const price = current.get(symbol);
    const then = D(first.open);
    if (!price || then.lte(0)) continue;
    out.set(symbol, { change: D(price).minus(then).div(then).times(100).round(2).toString(), since: first.bucket });
  }
  return out;
}

/**
 * Symbols with an open position whose price the rules may not act on now (stale, or not the
 * active exchange's: app/core/price-source.ts), with why. The worker's price guard and the
 * health check ask the same question.
 */
export async function staleHeldPrices(
  db: Kysely<DB>,
  exchangeName: string,
  now = Date.now(),
  maxAgeMs?: number,
): Promise<{ symbol: string; reason: string }[]> {
  const held = await db
    .selectFrom("positions")
    .select("symbol")
    .where("status", "=", "open")
    .groupBy("symbol")
    .execute();
  if (held.length === 0) return [];
  const prices = await getPrices(db);
  return held.flatMap(({ symbol }) => {
    const verdict = judgePrice(prices.get(symbol), exchangeName, now, maxAgeMs);
    return verdict.usable ? [] : [{ symbol, reason: verdict.reason }];
  });
}
