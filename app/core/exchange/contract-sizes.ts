// Coinbase's contract sizes and what the simulator's "Use Coinbase contract sizes" means for
// paper orders (docs/decisions/025-contracts-and-rounding.md). No database and no node
// modules: the screens import it too (the note before credentials are saved, issue 22). The
// product as an exchange trades it (TradingProduct) is resolved by exchange/trading-product.ts.
import { D } from "../decimal.ts";
import type { ProductSpec } from "../products.ts";

/**
 * Coinbase's contract sizes for the CDE products our symbols map to (BIP / ETP / SLP / XPP
 * -20DEC30-CDE), as the fake Coinbase (tests/msw/coinbase.ts) and Coinbase's product listings ("Observed
 * contract sizes") give them. Used by the simulator's setting and when Coinbase cannot be read.
 */
export const COINBASE_CONTRACT_SIZES: Readonly<Record<string, string>> = Object.freeze({
  "BTC-PERP": "0.01",
  "ETH-PERP": "0.1",
  "SOL-PERP": "5",
  "XRP-PERP": "500",
});

/** "BTC 0.01, ETH 0.1, SOL 5, XRP 500", from COINBASE_CONTRACT_SIZES. */
export function contractSizesText(): string {
  return Object.entries(COINBASE_CONTRACT_SIZES)
    .map(([symbol, size]) => `${symbol.replace(/-PERP$/, "")} ${size}`)
    .join(", ");
}

const WHERE_TO_CHANGE = "Change it under Exchanges → Use Coinbase contract sizes.";

/**
 * Said before saving the first Coinbase credentials while the simulator's setting is still at
 * its default: saving turns it on (decision 025).
 */
export function contractSizesSwitchNote(): string {
  return `Once saved, paper orders are sized in whole Coinbase contracts (${contractSizesText()}); positions already open keep closing on the simulator. ${WHERE_TO_CHANGE}`;
}

/** Said by a save that turned it on. */
export function contractSizesSwitchedNotice(): string {
  return `Paper orders are now sized in whole Coinbase contracts (${contractSizesText()}); positions already open keep closing on the simulator. ${WHERE_TO_CHANGE}`;
}

export interface TradingProduct extends ProductSpec {
  /** One exchange contract in the base asset (null: the simulator's base unit). */
  contractSize: string | null;
  /** Where the increments come from. */
  basis: "coinbase" | "coinbase-static" | "simulator";
}

/** The spec with one contract as increment and minimum. */
export function withContracts(
  spec: ProductSpec,
  contractSize: string,
  basis: TradingProduct["basis"],
  minSize?: string,
): TradingProduct {
  const min = minSize && D(minSize).gt(contractSize) ? D(minSize).toString() : D(contractSize).toString();
  return {
    ...spec,
    baseIncrement: D(contractSize).toString(),
    baseMinSize: min,
    contractSize: D(contractSize).toString(),
    basis,
  };
}

/**
 * The spec in Coinbase's contract size: the one its product list gave (the catalog), else the
 * static one; a symbol without either trades as the simulator's own spec.
 */
export function staticCoinbaseProduct(spec: ProductSpec): TradingProduct {
  const size = spec.coinbaseContractSize ?? COINBASE_CONTRACT_SIZES[spec.symbol];
  return size ? withContracts(spec, size, "coinbase-static") : { ...spec, contractSize: null, basis: "simulator" };
}
