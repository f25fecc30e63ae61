// Where the Coinbase connector sends its requests, and how our symbols map to Coinbase's
// products (docs/decisions/009-coinbase-connector.md).
import type { Db } from "#db/queries/util.ts";
import { getSetting, setSetting } from "#db/queries/settings.ts";
import { isKnownSymbol, listProducts, symbolsText } from "#app/core/products.ts";

export const AT_PRODUCTION_URL = "https://api.coinbase.com";
export const AT_SANDBOX_URL = "https://api-sandbox.coinbase.com";
export const EXCHANGE_PRODUCTION_URL = "https://api.exchange.coinbase.com";
export const EXCHANGE_SANDBOX_URL = "https://api-public.sandbox.exchange.coinbase.com";
export const AT_PREFIX = "/api/v3/brokerage";

/** The keys a Coinbase client needs (core/exchange/credentials.ts adds where they came from). */
export interface CoinbaseKeys {
  apiKey: string;
  apiSecret: string;
  /** Only Coinbase Exchange API keys have one (profiles and reports). */
  passphrase: string | null;
  sandbox: boolean;
}

export interface CoinbaseHosts {
  /** Advanced Trade, production (also the public market data). */
  advancedTrade: string;
  /** Advanced Trade's static sandbox. */
  advancedTradeSandbox: string;
  exchange: string;
  exchangeSandbox: string;
}

const trimSlash = (url: string) => url.replace(/\/+$/, "");

/**
 * The hosts, overridable by COINBASE_API_URL (every Advanced Trade call, sandbox or not) and
 * COINBASE_EXCHANGE_API_URL (every Exchange API call), so a test can point the app at a fake.
 */
export function coinbaseHosts(env: Record<string, string | undefined> = process.env): CoinbaseHosts {
  const at = env.COINBASE_API_URL ? trimSlash(env.COINBASE_API_URL) : null;
  const ex = env.COINBASE_EXCHANGE_API_URL ? trimSlash(env.COINBASE_EXCHANGE_API_URL) : null;
  return {
    advancedTrade: at ?? AT_PRODUCTION_URL,
    advancedTradeSandbox: at ?? AT_SANDBOX_URL,
    exchange: ex ?? EXCHANGE_PRODUCTION_URL,
    exchangeSandbox: ex ?? EXCHANGE_SANDBOX_URL,
  };
}

// ---------------------------------------------------------------------------------------
// Symbol map: our symbol -> Coinbase product id (US perpetual-style futures on CDE).

export const DEFAULT_PRODUCT_MAP: Readonly<Record<string, string>> = Object.freeze({
  "BTC-PERP": "BIP-20DEC30-CDE",
  "ETH-PERP": "ETP-20DEC30-CDE",
  "SOL-PERP": "SLP-20DEC30-CDE",
  "XRP-PERP": "XPP-20DEC30-CDE",
});

export const PRODUCT_MAP_SETTING = "coinbase_product_map";

const PRODUCT_ID = /^[A-Z0-9]{2,12}(-[A-Z0-9]{2,12}){1,3}$/;

/**
 * The stored map over the catalog's Coinbase ids (products read from Coinbase's list,
 * docs/decisions/051-every-coinbase-perpetual.md) over the defaults; unknown symbols and
 * malformed ids are ignored.
 */
export async function getProductMap(db: Db): Promise<Record<string, string>> {
  const stored = await getSetting<Record<string, unknown>>(db, PRODUCT_MAP_SETTING);
  const map: Record<string, string> = { ...DEFAULT_PRODUCT_MAP };
  for (const product of listProducts()) if (product.coinbaseProductId) map[product.symbol] = product.coinbaseProductId;
  for (const [symbol, id] of Object.entries(stored ?? {})) {
    if (isKnownSymbol(symbol) && typeof id === "string" && PRODUCT_ID.test(id.trim().toUpperCase()))
      map[symbol] = id.trim().toUpperCase();
  }
  return map;
}

/** Saves a mapping (validated); returns the resulting whole map. */
export async function setProductMap(db: Db, changes: Record<string, string>): Promise<Record<string, string>> {
  for (const [symbol, id] of Object.entries(changes)) {
    if (!isKnownSymbol(symbol)) throw new Error(`Unknown symbol ${symbol}: use one of ${symbolsText()}`);
    if (!PRODUCT_ID.test(id.trim().toUpperCase()))
      throw new Error(`${id} is not a Coinbase product id (like BIP-20DEC30-CDE)`);
  }
  const current = (await getSetting<Record<string, string>>(db, PRODUCT_MAP_SETTING)) ?? {};
  const next = {
    ...current,
    ...Object.fromEntries(Object.entries(changes).map(([s, id]) => [s, id.trim().toUpperCase()])),
  };
  await setSetting(db, PRODUCT_MAP_SETTING, next);
  return getProductMap(db);
}
