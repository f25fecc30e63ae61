// Every Coinbase perpetual (docs/decisions/051-every-coinbase-perpetual.md): the product list
// is read from Coinbase's public market data (no keys), reduced to the perpetuals the app can
// trade, stored in settings (`product_catalog`) and loaded into each process's catalog
// (app/core/products.ts, setCatalog). Offline, or before the first read, the catalog is the
// four built-in products.
import { D, parseDecimal } from "#app/core/decimal.ts";
import { type ProductSpec, listProducts, setCatalog } from "#app/core/products.ts";
import { recordActivity } from "#db/queries/activity-logs.ts";
import { getSetting, getSettingCached, setSetting } from "#db/queries/settings.ts";
import type { Db } from "#db/queries/util.ts";
import type { WireProduct } from "./advanced-trade.ts";

export const PRODUCT_CATALOG_SETTING = "product_catalog";

/** What is stored: the listed perpetuals, when and from where. */
export interface StoredCatalog {
  fetchedAt: number;
  source: string;
  products: ProductSpec[];
}

/** A listed product the app does not take, and why (said in the refresh's log line). */
export interface SkippedProduct {
  productId: string;
  reason: string;
}

const ROOT = /^[A-Z0-9]{2,12}$/;
/** Per-tick volatility of the offline walk for a listed product (the built-in ones have their own). */
const LISTED_VOLATILITY = "0.0014";
const positive = (value: unknown): string | null => {
  const parsed = parseDecimal(value);
  return parsed !== null && D(parsed).gt(0) ? parsed : null;
};

/**
 * The perpetuals of a Coinbase product list, as the app's products. A product is taken when it
 * is a FUTURE, not on the retired INTX venue, perpetual (its expiry type says PERPETUAL, or its
 * name says PERP: Coinbase's US perpetual-style contracts are listed as EXPIRING with a
 * five-year expiry and a name like "BTC PERP"), tradable, and has a contract root, a contract
 * size, a price step and a price. Its symbol is `{ROOT}-PERP`; of two products with one root,
 * the later expiry is kept (then the smaller id). Sizes are in the base asset: one step is
 * `base_increment` contracts x `contract_size`.
 */
export function parsePerpetuals(wire: readonly WireProduct[]): { products: ProductSpec[]; skipped: SkippedProduct[] } {
  const skipped: SkippedProduct[] = [];
  const byRoot = new Map<string, { spec: ProductSpec; expiry: number; id: string }>();
  for (const w of wire) {
    const id = typeof w?.product_id === "string" ? w.product_id : "";
    if (!id || w.product_type !== "FUTURE") continue;
    const details = w.future_product_details ?? null;
    const perpetual = details?.contract_expiry_type === "PERPETUAL" || /\bPERP\b/i.test(String(w.display_name ?? ""));
    if (!perpetual) continue;
    const skip = (reason: string) => void skipped.push({ productId: id, reason });
    if (w.product_venue === "INTX") {
      skip("on the international exchange (INTX), which the app does not trade");
      continue;
    }
    if (w.trading_disabled || w.cancel_only || /offline|delisted/i.test(w.status ?? "")) {
      skip("not open for trading");
      continue;
    }
    const root = String(details?.contract_root_unit ?? "")
      .trim()
      .toUpperCase();
    if (!ROOT.test(root)) {
      skip("no contract root unit");
      continue;
    }
    const contractSize = positive(details?.contract_size);
    const tick = positive(w.price_increment) ?? positive(w.quote_increment);
    const price = positive(w.price) ?? positive(w.mid_market_price);
    if (!contractSize || !tick || !price) {
      skip(!contractSize ? "no contract size" : !tick ? "no price increment" : "no price");
      continue;
    }
    const contracts = D(positive(w.base_increment) ?? "1");
    const minContracts = D(positive(w.base_min_size) ?? "1");
    const spec: ProductSpec = {
      symbol: `${root}-PERP`,
      base: root,
      quote: (w.quote_currency_id || "USD").toUpperCase(),
      baseIncrement: contracts.times(contractSize).toString(),
      baseMinSize: (minContracts.gt(contracts) ? minContracts : contracts).times(contractSize).toString(),
      quoteIncrement: tick,
      minMarketFunds: positive(w.quote_min_size) ?? "10",
      referencePrice: price,
      volatility: LISTED_VOLATILITY,
      coinbaseContractSize: contractSize,
      coinbaseProductId: id,
      displayName: typeof w.display_name === "string" ? w.display_name.slice(0, 40) : undefined,
    };
    const expiry = Date.parse(String(details?.contract_expiry ?? "")) || Number.MAX_SAFE_INTEGER;
    const kept = byRoot.get(root);
    if (!kept || expiry > kept.expiry || (expiry === kept.expiry && id < kept.id)) {
      if (kept) skipped.push({ productId: kept.id, reason: `another ${root} perpetual (${id}) is kept` });
      byRoot.set(root, { spec, expiry, id });
    } else skip(`another ${root} perpetual (${kept.id}) is kept`);
  }
  const products = [...byRoot.values()].map((k) => k.spec).sort((a, b) => a.symbol.localeCompare(b.symbol));
  return { products, skipped };
}

/** The part of `fetch` used here, so tests can pass a fake. */
export type CatalogFetch = (
  url: string,
  init?: { signal?: AbortSignal; headers?: Record<string, string> },
) => Promise<{ ok: boolean; status: number; json(): Promise<unknown> }>;

/** Production's public market data, unless COINBASE_API_URL points the connector elsewhere (a fake). */
export const catalogUrl = (env: Record<string, string | undefined> = process.env) =>
  `${(env.COINBASE_API_URL || "https://api.coinbase.com").replace(/\/+$/, "")}/api/v3/brokerage/market/products?product_type=FUTURE`;

/** Coinbase's list of futures (public), or an Error saying why not (offline, HTTP status, timeout). */
export async function fetchFutures(
  options: { fetchImpl?: CatalogFetch; url?: string; timeoutMs?: number } = {},
): Promise<WireProduct[]> {
  const fetchImpl = options.fetchImpl ?? ((url, init) => fetch(url, init));
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 10_000);
  try {
    const response = await fetchImpl(options.url ?? catalogUrl(), {
      signal: controller.signal,
      headers: { accept: "application/json" },
    });
    if (!response.ok) throw new Error(`Coinbase answered HTTP ${response.status}`);
    const body = (await response.json()) as { products?: unknown } | null;
    if (!Array.isArray(body?.products)) throw new Error("Coinbase's answer has no product list");
    return body.products as WireProduct[];
  } catch (error) {
    if (controller.signal.aborted) throw new Error("Coinbase did not answer within the time limit");
    throw error instanceof Error ? error : new Error(String(error));
  } finally {
    clearTimeout(timer);
  }
}

function isStoredProduct(value: unknown): value is ProductSpec {
  const p = value as Record<string, unknown> | null;
  if (!p || typeof p !== "object") return false;
  const decimals = ["baseIncrement", "baseMinSize", "quoteIncrement", "minMarketFunds", "referencePrice", "volatility"];
  return (
    typeof p.symbol === "string" &&
    /^[A-Z0-9]{2,12}-PERP$/.test(p.symbol) &&
    typeof p.base === "string" &&
    typeof p.quote === "string" &&
    decimals.every((k) => positive(p[k]) !== null)
  );
}

/** The stored catalog (rows that do not look like a product are dropped), or null. */
export async function readStoredCatalog(db: Db, ttlMs = 0): Promise<StoredCatalog | null> {
  const stored =
    ttlMs > 0
      ? await getSettingCached<StoredCatalog>(db, PRODUCT_CATALOG_SETTING, ttlMs)
      : await getSetting<StoredCatalog>(db, PRODUCT_CATALOG_SETTING);
  if (!stored || !Array.isArray(stored.products)) return null;
  return {
    fetchedAt: Number(stored.fetchedAt) || 0,
    source: String(stored.source ?? "coinbase"),
    products: stored.products.filter(isStoredProduct),
  };
}

let appliedAt = -1;

/** Loads the stored catalog into this process (a no-op when it has not changed). */
export async function loadCatalog(db: Db, ttlMs = 0): Promise<StoredCatalog | null> {
  const stored = await readStoredCatalog(db, ttlMs);
  const at = stored?.fetchedAt ?? 0;
  if (at !== appliedAt) {
    setCatalog(stored?.products ?? []);
    appliedAt = at;
  }
  return stored;
}

export interface CatalogRefresh {
  products: number;
  added: string[];
  removed: string[];
  skipped: SkippedProduct[];
}

/**
 * Reads Coinbase's list, stores the perpetuals with one activity line in one transaction, and
 * loads them into this process. Throws (with why) when Coinbase cannot be read or lists no
 * perpetual: the stored catalog stays as it was.
 */
export async function refreshCatalog(
  db: Db,
  options: { fetchImpl?: CatalogFetch; url?: string; timeoutMs?: number; by?: string; now?: number } = {},
): Promise<CatalogRefresh> {
  const { products: listed, skipped } = parsePerpetuals(await fetchFutures(options));
  if (listed.length === 0) throw new Error("Coinbase's product list has no perpetual the app can trade");
  const previous = (await readStoredCatalog(db))?.products ?? [];
  const after = new Set(listed.map((p) => p.symbol));
  const added = listed.map((p) => p.symbol).filter((s) => !previous.some((p) => p.symbol === s));
  // A product Coinbase no longer lists stays known (a position on it must still close, its
  // history still shows); Coinbase itself refuses new orders on it.
  const kept = previous.filter((p) => !after.has(p.symbol));
  const removed = kept.map((p) => p.symbol);
  const products = [...listed, ...kept];
  const fetchedAt = options.now ?? Date.now();
  await db.transaction().execute(async (trx) => {
    await setSetting(trx, PRODUCT_CATALOG_SETTING, { fetchedAt, source: "coinbase", products } satisfies StoredCatalog);
    await recordActivity(trx, {
      type: "system",
      level: "info",
      message:
        `Products read from Coinbase${options.by ? ` by ${options.by}` : ""}: ${listed.length} perpetuals` +
        (added.length ? `, new: ${added.join(", ")}` : "") +
        (removed.length ? `, no longer listed: ${removed.join(", ")}` : ""),
      data: { products: listed.length, added, removed, skipped: skipped.slice(0, 20) },
    });
  });
  setCatalog(products);
  appliedAt = fetchedAt;
  return { products: listed.length, added, removed, skipped };
}

export interface CatalogSyncOptions {
  /** Read Coinbase's list too (the worker), not only the stored catalog (the web). */
  refreshFromCoinbase?: boolean;
  /** How often the stored catalog is read again (default 15 s). */
  loadEveryMs?: number;
  /** How often Coinbase's list is read (default 6 h; the first read is at start). */
  refreshEveryMs?: number;
  fetchImpl?: CatalogFetch;
  /** Told once per kind of failure in a row, not on every attempt. */
  onError?: (message: string) => void;
}

/**
 * Keeps this process's catalog in step with the stored one, and (the worker) the stored one
 * with Coinbase's list. Returns stop(). Resolves once the stored catalog was loaded the first
 * time, so nothing is served with a catalog older than the database's.
 */
export async function startCatalogSync(db: Db, options: CatalogSyncOptions = {}): Promise<() => void> {
  const onError = options.onError ?? ((message: string) => console.warn(`[products] ${message}`));
  let lastError = "";
  const report = (message: string) => {
    if (message !== lastError) onError(message);
    lastError = message;
  };
  const load = () =>
    loadCatalog(db).then(
      () => undefined,
      (error) => report(`the stored product list could not be read: ${(error as Error).message}`),
    );
  const refresh = () =>
    refreshCatalog(db, { fetchImpl: options.fetchImpl }).then(
      () => {
        lastError = "";
      },
      (error) =>
        report(
          `Coinbase's product list could not be read (${(error as Error).message}); trading ${listProducts().length} known products`,
        ),
    );
  await load();
  const timers = [setInterval(load, options.loadEveryMs ?? 15_000)];
  if (options.refreshFromCoinbase) {
    void refresh();
    timers.push(setInterval(refresh, options.refreshEveryMs ?? 6 * 3_600_000));
  }
  for (const timer of timers) timer.unref?.();
  return () => {
    for (const timer of timers) clearInterval(timer);
  };
}
