// The perpetual products the app trades (docs/spec/figures.md#defaults-and-limits,
// docs/decisions/051-every-coinbase-perpetual.md). Quantities are in the base asset; the Coinbase
// connector converts them to contracts with each product's contract size.
//
// The catalog is the four built-in products plus every perpetual read from Coinbase's product
// list (exchange/coinbase/catalog.ts, stored in settings and loaded into each process by
// app/services/product-catalog.server.ts with setCatalog). It is process-wide state on purpose:
// schemas, sizing and the simulator ask for a product synchronously, on the server and in the
// browser (the root loader hands the same list to the page).
export interface ProductSpec {
  symbol: string; // BTC-PERP
  base: string; // BTC
  quote: string; // USDC
  baseIncrement: string; // smallest order size step
  baseMinSize: string;
  quoteIncrement: string; // price tick
  minMarketFunds: string; // smallest notional
  /** Where the random-walk price starts when no market data is reachable. */
  referencePrice: string;
  /** Per-tick volatility of the random walk (fraction). */
  volatility: string;
  /** One Coinbase contract in the base asset, when known (Coinbase's list); else contract-sizes.ts. */
  coinbaseContractSize?: string;
  /** Coinbase's product id (BIP-20DEC30-CDE ...), when the product came from its list. */
  coinbaseProductId?: string;
  /** Coinbase's own name ("BTC PERP"), when listed. */
  displayName?: string;
}

/** The four products a fresh install knows before Coinbase's list has been read (or offline). */
export const BUILTIN_PRODUCTS: readonly ProductSpec[] = [
  {
    symbol: "BTC-PERP",
    base: "BTC",
    quote: "USDC",
    baseIncrement: "0.0001",
    baseMinSize: "0.0001",
    quoteIncrement: "0.1",
    minMarketFunds: "10",
    referencePrice: "95000",
    volatility: "0.0008",
  },
  {
    symbol: "ETH-PERP",
    base: "ETH",
    quote: "USDC",
    baseIncrement: "0.001",
    baseMinSize: "0.001",
    quoteIncrement: "0.01",
    minMarketFunds: "10",
    referencePrice: "3400",
    volatility: "0.001",
  },
  {
    symbol: "SOL-PERP",
    base: "SOL",
    quote: "USDC",
    baseIncrement: "0.01",
    baseMinSize: "0.01",
    quoteIncrement: "0.001",
    minMarketFunds: "10",
    referencePrice: "180",
    volatility: "0.0014",
  },
  {
    symbol: "XRP-PERP",
    base: "XRP",
    quote: "USDC",
    baseIncrement: "1",
    baseMinSize: "1",
    quoteIncrement: "0.0001",
    minMarketFunds: "10",
    referencePrice: "2.2",
    volatility: "0.0014",
  },
];

export const DEFAULT_SYMBOL = "ETH-PERP";

interface Catalog {
  products: readonly ProductSpec[];
  bySymbol: Map<string, ProductSpec>;
  symbols: readonly string[];
}

const catalogOf = (products: readonly ProductSpec[]): Catalog => ({
  products,
  bySymbol: new Map(products.map((p) => [p.symbol, p])),
  symbols: products.map((p) => p.symbol),
});

// Held on globalThis under a registered symbol: the server's entry (server.ts) and the worker
// load the catalog, and the Remix build (its own bundled copy of this module) must see it.
const KEY = Symbol.for("perpdesk.productCatalog");
const holder = globalThis as unknown as { [KEY]?: Catalog };
holder[KEY] ??= catalogOf(BUILTIN_PRODUCTS);
const current = (): Catalog => holder[KEY]!;

/**
 * Replaces the catalog: the built-in products (completed by what Coinbase says of them) and
 * every listed product, sorted with the built-in ones first, then by symbol. Idempotent.
 */
export function setCatalog(listed: readonly ProductSpec[]): void {
  const listedBySymbol = new Map(listed.map((p) => [p.symbol, p]));
  const builtin = BUILTIN_PRODUCTS.map((p) => {
    const seen = listedBySymbol.get(p.symbol);
    // A built-in product keeps its own increments and walk; Coinbase adds its id and contract size.
    return seen
      ? {
          ...p,
          coinbaseContractSize: seen.coinbaseContractSize,
          coinbaseProductId: seen.coinbaseProductId,
          displayName: seen.displayName,
        }
      : p;
  });
  const extra = listed
    .filter((p) => !BUILTIN_PRODUCTS.some((b) => b.symbol === p.symbol))
    .sort((a, b) => a.symbol.localeCompare(b.symbol));
  holder[KEY] = catalogOf([...builtin, ...extra]);
}

/** Every product the app trades now. */
export const listProducts = (): readonly ProductSpec[] => current().products;
/** The products beyond the built-in four (what the browser needs to know of the catalog). */
export const listedExtras = (): ProductSpec[] =>
  current().products.filter((p) => !BUILTIN_PRODUCTS.some((b) => b.symbol === p.symbol));
/** Their symbols (BTC-PERP ...), built-in first. */
export const listSymbols = (): readonly string[] => current().symbols;
export const isKnownSymbol = (symbol: string): boolean => current().bySymbol.has(symbol);
/** The product of an exact symbol, or undefined. */
export const productOf = (symbol: string | undefined): ProductSpec | undefined =>
  symbol === undefined ? undefined : current().bySymbol.get(symbol);

/** The symbols for a message: all of them up to 8, else the first 6 and how many more. */
export function symbolsText(): string {
  const all = current().symbols;
  return all.length <= 8 ? all.join(", ") : `${all.slice(0, 6).join(", ")} and ${all.length - 6} more`;
}

/** Other names of a base asset on TradingView and other venues. */
const BASE_ALIASES: Readonly<Record<string, string>> = { XBT: "BTC" };

/**
 * The ticker mapping rule (docs/spec/webhook.md#symbols): a product symbol as it is, else a
 * TradingView ticker reduced to its base asset: drop an exchange prefix ("BINANCE:"), a ".P"
 * suffix, "PERP", then the quote (USDT, USDC, USD, PERP) and a trailing "-" or "_"; XBT is
 * BTC. The base names the product `{BASE}-PERP` if the catalog has it. "BTCUSD",
 * "BTCUSDT.P", "BINANCE:BTCUSDT.P", "COINBASE:BTC-USD", "btc-perp" are all BTC-PERP.
 */
export function resolveSymbol(input: string): ProductSpec | null {
  const raw = input.trim().toUpperCase();
  const { bySymbol } = current();
  const exact = bySymbol.get(raw);
  if (exact) return exact;
  const ticker = raw.includes(":") ? raw.slice(raw.indexOf(":") + 1) : raw;
  const stripped = ticker
    .replace(/\.P$/, "")
    .replace(/[-_]?PERP(ETUAL)?$/, "")
    .replace(/[-_]?(USDT|USDC|USD)$/, "")
    .replace(/[-_]$/, "");
  const base = BASE_ALIASES[stripped] ?? stripped;
  return base ? (bySymbol.get(`${base}-PERP`) ?? null) : null;
}

export const isFuturesSymbol = (symbol: string) => symbol.includes("-PERP") || symbol.includes("-FUTURE");
