// The perpetual products the app trades (docs/spec/figures.md#defaults-and-limits). Quantities are in the base asset;
// the Coinbase connector converts them to contracts with each product's contract size.
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
}

export const PRODUCTS: ProductSpec[] = [
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

export const SYMBOLS = PRODUCTS.map((p) => p.symbol);
export const DEFAULT_SYMBOL = "ETH-PERP";

const BY_SYMBOL = new Map(PRODUCTS.map((p) => [p.symbol, p]));

/** Accepts TradingView tickers too: "BTCUSD", "BTCUSDT.P", "BINANCE:BTCUSDT.P", "btc-perp". */
export function resolveSymbol(input: string): ProductSpec | null {
  const raw = input.trim().toUpperCase();
  if (BY_SYMBOL.has(raw)) return BY_SYMBOL.get(raw)!;
  const ticker = raw.includes(":") ? raw.slice(raw.indexOf(":") + 1) : raw;
  const base = ticker
    .replace(/\.P$/, "")
    .replace(/-?PERP$/, "")
    .replace(/-?(USDT|USDC|USD)$/, "")
    .replace(/-$/, "");
  return BY_SYMBOL.get(`${base}-PERP`) ?? null;
}

export const isFuturesSymbol = (symbol: string) => symbol.includes("-PERP") || symbol.includes("-FUTURE");
