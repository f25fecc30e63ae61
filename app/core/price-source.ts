// Which prices the protection rules may act on (issue 15). A price is usable when it comes
// from the ACTIVE exchange's own market for the traded product and is fresh:
//   - live Coinbase: the CDE product's best bid/ask mid, polled by the price loop through the
//     adapter (source "coinbase-cde"); spot, public or simulated prices never qualify;
//   - the simulator (and sandbox paper trading): the simulator's feed, Coinbase's public spot
//     prices ("coinbase") or, offline, the random walk ("random-walk"); never "coinbase-cde".
// A price older than the maximum age (PRICE_MAX_AGE_SECONDS, default 15 s), or from another
// source, triggers nothing: the position shows "price stale" and the health check warns.
// docs/decisions/026-price-source-and-order-races.md.

/** market_prices.source of the live exchange's own product prices. */
export const LIVE_PRICE_SOURCE = "coinbase-cde";
export const RANDOM_WALK_SOURCE = "random-walk";
export const DEFAULT_PRICE_MAX_AGE_MS = 15_000;

export interface PricePoint {
  source: string;
  /** When the price was taken, epoch ms. */
  updatedAt: number;
}

export type PriceVerdict = { usable: true; reason: null } | { usable: false; reason: string };

/** The sources the rules accept for this exchange ("coinbase" live, or the simulator). */
export function acceptsSource(exchangeName: string, source: string): boolean {
  return exchangeName === "coinbase" ? source === LIVE_PRICE_SOURCE : source !== LIVE_PRICE_SOURCE;
}

/** Can the rules act on this price now? The reason says why not, for the log and the screen. */
export function judgePrice(
  price: PricePoint | null | undefined,
  exchangeName: string,
  now = Date.now(),
  maxAgeMs = DEFAULT_PRICE_MAX_AGE_MS,
): PriceVerdict {
  if (!price) return { usable: false, reason: "no price yet" };
  if (!acceptsSource(exchangeName, price.source)) {
    return {
      usable: false,
      reason: `the last price comes from ${sourceLabel(price.source)}, not ${exchangeName === "coinbase" ? "Coinbase's futures market" : "the simulator's feed"}`,
    };
  }
  const age = now - price.updatedAt;
  if (age > maxAgeMs)
    return {
      usable: false,
      reason: `the last price is ${Math.round(age / 1000)} s old (limit ${Math.round(maxAgeMs / 1000)} s)`,
    };
  return { usable: true, reason: null };
}

/** How a price's source is named wherever a price is shown. */
export function sourceLabel(source: string): string {
  switch (source) {
    case LIVE_PRICE_SOURCE:
      return "Coinbase futures prices";
    case "coinbase":
      return "Coinbase public spot prices";
    case RANDOM_WALK_SOURCE:
      return "simulated prices (random walk, offline simulator)";
    default:
      return `${source} prices`;
  }
}
