// How big an order a signal becomes (docs/decisions/039-positions-stay-on-their-exchange.md "One sizing rule", docs/decisions/005-signal-handling.md):
// - amount control off: the signal's quantity × orderSizeMultiplier;
// - amount control on: by signalAmountType — multiplier (× value), usd (value / price),
//   percentage (value % of the available balance, as notional / price), contracts (value
//   EXCHANGE contracts: value × the product's contractSize, e.g. on Coinbase 1 = one BIP
//   contract = 0.01 BTC; on the simulator without "Use Coinbase contract sizes" the product
//   has no contract size and 1 contract = 1 base unit, as before);
// rounded DOWN to the product's base increment, and refused below its minimum size. The
// product is the active exchange's (exchange/trading-product.ts), so on Coinbase
// the increment is one contract. docs/decisions/025-contracts-and-rounding.md.
import { D, floorToIncrement } from "../decimal.ts";
import type { ProductSpec } from "../products.ts";
import type { TradingConfig } from "../schemas/trading-config.ts";

export type SizingResult = { ok: true; quantity: string; basis: string } | { ok: false; error: string };

export function sizeSignalOrder(input: {
  signalQuantity: string;
  config: Pick<
    TradingConfig,
    "orderSizeMultiplier" | "applyAmountControlToSignals" | "signalAmountType" | "signalAmountValue"
  >;
  /** The product as the active exchange trades it; contractSize: one exchange contract in the base asset (absent/null: 1). */
  product: ProductSpec & { contractSize?: string | null };
  /** Current price: needed for usd and percentage sizing. */
  price: string | null;
  /** Available quote balance: needed for percentage sizing. */
  available: string | null;
  leverage?: number;
}): SizingResult {
  const { config, product } = input;
  let raw;
  let basis: string;
  if (!config.applyAmountControlToSignals) {
    raw = D(input.signalQuantity).times(config.orderSizeMultiplier);
    basis = `signal quantity ${input.signalQuantity} × multiplier ${config.orderSizeMultiplier}`;
  } else {
    const value = config.signalAmountValue;
    switch (config.signalAmountType) {
      case "multiplier":
        raw = D(input.signalQuantity).times(value);
        basis = `signal quantity ${input.signalQuantity} × ${value}`;
        break;
      case "usd":
        if (!input.price || D(input.price).lte(0))
          return { ok: false, error: `No price for ${product.symbol}: cannot size a USD amount` };
        raw = D(value).div(input.price);
        basis = `${value} USD at ${input.price}`;
        break;
      case "percentage": {
        if (!input.price || D(input.price).lte(0))
          return { ok: false, error: `No price for ${product.symbol}: cannot size a percentage` };
        if (input.available === null) return { ok: false, error: "Balance unknown: cannot size a percentage" };
        const notional = D(input.available)
          .times(value)
          .div(100)
          .times(input.leverage ?? 1);
        raw = notional.div(input.price);
        basis = `${value}% of ${input.available} available${(input.leverage ?? 1) > 1 ? ` × ${input.leverage}x` : ""} at ${input.price}`;
        break;
      }
      case "contracts": {
        const contract = product.contractSize;
        raw = contract ? D(value).times(contract) : D(value);
        basis = contract ? `${value} contracts of ${D(contract).toString()} ${product.base}` : `${value} contracts`;
        break;
      }
    }
  }
  const quantity = floorToIncrement(raw, product.baseIncrement);
  if (D(quantity).lt(product.baseMinSize)) {
    return {
      ok: false,
      error: `Order size ${raw.toString()} is below the minimum ${product.baseMinSize} for ${product.symbol} (${basis})`,
    };
  }
  return { ok: true, quantity, basis };
}
