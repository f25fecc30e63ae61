// Market Data (docs/spec/screens.md, api.md#shapes Market product, api.md, figures.md#defaults-and-limits) from the active exchange adapter
// (getExchange: the simulator, or Coinbase). The product list is cached per web process and
// database with a TTL and single-flight, so any number of browsers polling
// /api/market/products (30 s) and /api/market/summary (10 s) cost one upstream call per
// TTL; a failed refresh serves the last good list (marked stale) rather than an error.
// 24 h change and volume come from the adapter (the simulator's from its kept minute history
// and its own paper fills, decision 022); null when unknown, and the screen says so. The summary's one market-wide
// figure is the total 24 h volume the exchange reports (decision 049); no market cap or dominance.
import type { Kysely } from "kysely";
import { D } from "#app/core/decimal.ts";
import type { ExchangeAdapter, Product, Ticker } from "#app/core/exchange/types.ts";
import type { DB } from "#db/schema.ts";
import { tradingProductsFor } from "#exchange/trading-product.ts";
import { getExchange } from "#exchange/factory.ts";

type Db = Kysely<DB>;

export const PRODUCTS_TTL_MS = 10_000;
export const TOP_MOVERS = 5;

/** docs/spec/api.md#shapes Market product. */
export interface MarketProduct {
  id: string;
  productId: string;
  baseCurrencyId: string;
  quoteCurrencyId: string;
  status: "online" | "offline";
  price: string | null;
  priceChange24h: string | null;
  /** Set when the change is over less than 24 h (the price history is younger): its start. */
  priceChangeSince: string | null;
  volume24h: string | null;
  /** What the volume counts when it is not the market's ("paper fills"). */
  volumeBasis: string | null;
  midMarketPrice: string | null;
  minMarketFunds: string;
  baseIncrement: string;
  quoteIncrement: string;
  baseMinSize: string;
  fcmTradingSessionEnabled: boolean;
  lastUpdated: string;
}

export interface MarketProductDetails extends MarketProduct {
  bid: string | null;
  ask: string | null;
  priceSource: string | null;
}

export interface MarketSummary {
  totalProducts: number;
  onlineProducts: number;
  /** The exchange's own 24 h volume in its quote currency, or null when it reports none (decision 049). */
  volume24h: MarketVolume | null;
  topGainers: MarketProduct[];
  topLosers: MarketProduct[];
  /** False when the exchange reports no 24 h change (the simulator). */
  hasChangeData: boolean;
  source: string;
  lastUpdated: string;
  stale: boolean;
}

/**
 * Σ 24 h base volume × last price over the products that report both, in their quote
 * currency (the most common one; products quoted otherwise are left out and not counted).
 * No market cap or dominance: no exchange adapter reports them (decision 049).
 */
export interface MarketVolume {
  notional: string;
  quote: string;
  /** How many products the sum covers. */
  products: number;
  /** What the volume counts when it is not the market's ("paper fills": the simulator's own). */
  basis: string | null;
}

export function totalVolume(products: MarketProduct[]): MarketVolume | null {
  const known = products.filter((p) => p.volume24h !== null && p.price !== null);
  if (known.length === 0) return null;
  const counts = new Map<string, number>();
  for (const p of known) counts.set(p.quoteCurrencyId, (counts.get(p.quoteCurrencyId) ?? 0) + 1);
  const quote = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
  const counted = known.filter((p) => p.quoteCurrencyId === quote);
  const notional = counted.reduce((sum, p) => sum.plus(D(p.volume24h!).times(p.price!)), D(0));
  return {
    notional: notional.toString(),
    quote,
    products: counted.length,
    basis: counted.find((p) => p.volumeBasis)?.volumeBasis ?? null,
  };
}

interface Entry {
  source: string;
  products: MarketProduct[];
  fetchedAt: number;
  stale: boolean;
}

interface Cache {
  entry: Entry | null;
  inflight: Promise<Entry> | null;
  /** Upstream calls made (tests read it). */
  upstreamCalls: number;
}

// One cache per database for the whole process, even when this module is loaded twice (the
// built server bundle and a test importing the source share it through the global registry).
const caches: WeakMap<object, Cache> = ((globalThis as Record<symbol, unknown>)[Symbol.for("perpdesk.marketCache")] ??=
  new WeakMap<object, Cache>()) as WeakMap<object, Cache>;

function cacheFor(db: Db): Cache {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = { entry: null, inflight: null, upstreamCalls: 0 }));
  return cache;
}

export function marketCacheStats(db: Db) {
  return { upstreamCalls: cacheFor(db).upstreamCalls };
}

/** Tests: forget the cached list. */
export function resetMarketCache(db: Db) {
  caches.delete(db);
}

export function toMarketProduct(p: Product, at: number): MarketProduct {
  return {
    id: p.symbol,
    productId: p.symbol,
    baseCurrencyId: p.base,
    quoteCurrencyId: p.quote,
    status: p.status,
    price: p.price,
    priceChange24h: p.priceChange24h ?? null,
    priceChangeSince: p.changeSince ? new Date(p.changeSince).toISOString() : null,
    volume24h: p.volume24h ?? null,
    volumeBasis: p.volumeBasis ?? null,
    midMarketPrice: null,
    minMarketFunds: p.minMarketFunds,
    baseIncrement: p.baseIncrement,
    quoteIncrement: p.quoteIncrement,
    baseMinSize: p.baseMinSize,
    fcmTradingSessionEnabled: p.status === "online",
    lastUpdated: new Date(at).toISOString(),
  };
}

export interface MarketOptions {
  exchange?: ExchangeAdapter;
  now?: number;
  ttlMs?: number;
}

async function loadProducts(db: Db, options: MarketOptions = {}): Promise<Entry> {
  const cache = cacheFor(db);
  const exchange = options.exchange ?? getExchange(db);
  const now = options.now ?? Date.now();
  const ttl = options.ttlMs ?? PRODUCTS_TTL_MS;
  const entry = cache.entry;
  if (entry && entry.source === exchange.name && now - entry.fetchedAt < ttl) return entry;
  cache.inflight ??= (async () => {
    cache.upstreamCalls += 1;
    try {
      const products = await exchange.getProducts();
      const at = Date.now();
      const fresh: Entry = {
        source: exchange.name,
        products: products.map((p) => toMarketProduct(p, at)),
        fetchedAt: at,
        stale: false,
      };
      cache.entry = fresh;
      return fresh;
    } catch (error) {
      // The last good list beats an error page; it is marked stale and retried next time.
      if (cache.entry && cache.entry.source === exchange.name) return { ...cache.entry, stale: true };
      throw error;
    } finally {
      cache.inflight = null;
    }
  })();
  return cache.inflight;
}

/**
 * The products, with the increment and minimum the worker enforces on an entry (issue 22):
 * the active exchange's trading product (whole Coinbase contracts live, or on the simulator
 * with "Use Coinbase contract sizes"; exchange/trading-product.ts), not the
 * exchange's listing alone.
 */
export async function getMarketProducts(db: Db, options: MarketOptions = {}): Promise<MarketProduct[]> {
  const products = (await loadProducts(db, options)).products;
  const traded = tradingProductsFor(db, options.exchange ?? getExchange(db));
  return Promise.all(
    products.map(async (p) => {
      const product = await traded.product(p.productId).catch(() => null);
      return product ? { ...p, baseIncrement: product.baseIncrement, baseMinSize: product.baseMinSize } : p;
    }),
  );
}

const byChange = (a: MarketProduct, b: MarketProduct) => D(b.priceChange24h!).cmp(D(a.priceChange24h!));

/** Top gainers: the largest positive 24 h changes; losers: the largest negative, SPEC's 5 each. */
export function topMovers(products: MarketProduct[], count = TOP_MOVERS) {
  const known = products.filter((p) => p.priceChange24h !== null);
  const gainers = known
    .filter((p) => D(p.priceChange24h!).gt(0))
    .sort(byChange)
    .slice(0, count);
  const losers = known
    .filter((p) => D(p.priceChange24h!).lt(0))
    .sort((a, b) => byChange(b, a))
    .slice(0, count);
  return { gainers, losers, hasChangeData: known.length > 0 };
}

export async function getMarketSummary(db: Db, options: MarketOptions = {}): Promise<MarketSummary> {
  const entry = await loadProducts(db, options);
  const { gainers, losers, hasChangeData } = topMovers(entry.products);
  return {
    totalProducts: entry.products.length,
    onlineProducts: entry.products.filter((p) => p.status === "online").length,
    volume24h: totalVolume(entry.products),
    topGainers: gainers,
    topLosers: losers,
    hasChangeData,
    source: entry.source,
    lastUpdated: new Date(entry.fetchedAt).toISOString(),
    stale: entry.stale,
  };
}

/** One product with its best bid/ask (mid-market price). Null when the exchange has no such product. */
export async function getMarketProduct(
  db: Db,
  productId: string,
  options: MarketOptions = {},
): Promise<MarketProductDetails | null> {
  const products = await getMarketProducts(db, options);
  const wanted = productId.toLowerCase();
  const product = products.find((p) => p.productId.toLowerCase() === wanted);
  if (!product) return null;
  const exchange = options.exchange ?? getExchange(db);
  let ticker: Ticker | null = null;
  try {
    ticker = await exchange.getTicker(product.productId);
  } catch {
    ticker = null; // no quote yet: the details show the list's price alone
  }
  const mid = ticker?.bid && ticker?.ask ? D(ticker.bid).plus(ticker.ask).div(2).toString() : null;
  return {
    ...product,
    price: ticker?.price ?? product.price,
    midMarketPrice: mid,
    bid: ticker?.bid ?? null,
    ask: ticker?.ask ?? null,
    priceSource: ticker?.source ?? null,
    lastUpdated: ticker?.time ?? product.lastUpdated,
  };
}
