// A strategy's contract (issue 12, docs/decisions/027-strategies.md): the JSON of
// /api/strategies and what is stored. Its pieces are the trading config's own schemas
// (amount type and value, take-profit levels, stop-loss, break-even, trailing stop), so a
// strategy's sizing and rule overrides mean exactly what the Trading Rules fields mean.
import { z } from "zod";
import { D } from "../decimal.ts";
import { isKnownSymbol, symbolsText } from "../products.ts";
import { TradingConfigSchema } from "./trading-config.ts";

/** The protection rules a strategy may override; an absent field comes from Trading Rules. */
export const StrategyRulesSchema = TradingConfigSchema.pick({
  takeProfits: true,
  stopLossOffset: true,
  breakEvenEnabled: true,
  breakEvenOffset: true,
  trailingStopEnabled: true,
  trailingStop: true,
}).partial();
export type StrategyRules = z.infer<typeof StrategyRulesSchema>;

export const STRATEGY_NAME_MESSAGE = "Name must be 1 to 60 characters: letters, numbers, spaces, - _ .";

const optionalDecimal = (message: string) =>
  z.preprocess(
    (v) => (v === "" || v === undefined ? null : v),
    z
      .union([z.string(), z.number()])
      .transform((v) => String(v).trim())
      .refine((v) => /^\d+(\.\d+)?$/.test(v) && D(v).gt(0), { message })
      .transform((v) => D(v).toString())
      .nullable(),
  );

const optionalCount = z.preprocess(
  (v) => (v === "" || v === undefined ? null : v),
  z.coerce
    .number()
    .int("Max open positions must be a whole number")
    .min(1, "Max open positions must be at least 1")
    .max(100, "Max open positions must be at most 100")
    .nullable(),
);

export const StrategyInputSchema = z.object({
  name: z
    .string({ error: "Name is required" })
    .trim()
    .min(1, "Name is required")
    .max(60, STRATEGY_NAME_MESSAGE)
    .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, STRATEGY_NAME_MESSAGE)
    .refine((v) => v.toLowerCase() !== "default", {
      message: '"default" is the global secret\'s strategy: choose another name',
    }),
  enabled: TradingConfigSchema.shape.autoTradingEnabled.default(true),
  /** Product symbols (BTC-PERP ...); empty = every symbol. */
  allowedSymbols: z
    .array(
      z
        .string()
        .trim()
        .toUpperCase()
        .refine((s) => isKnownSymbol(s), { error: () => `Allowed symbols must be among ${symbolsText()}` }),
    )
    .max(500)
    .default([])
    .transform((list) => [...new Set(list)]),
  amountType: TradingConfigSchema.shape.signalAmountType.default("multiplier"),
  amountValue: TradingConfigSchema.shape.signalAmountValue.default("1"),
  maxPositionSize: optionalDecimal("Max position size must be a positive number").default(null),
  maxOpenPositions: optionalCount.default(null),
  leverage: z.coerce
    .number()
    .int("Leverage must be a whole number from 1 to 10")
    .min(1, "Leverage must be a whole number from 1 to 10")
    .max(10, "Leverage must be a whole number from 1 to 10")
    .default(1),
  rules: StrategyRulesSchema.default({}),
});
export type StrategyInput = z.infer<typeof StrategyInputSchema>;

export interface Strategy extends StrategyInput {
  id: string;
  createdAt: string;
  updatedAt: string;
  secretRotatedAt: string;
}

/** The strategy id filters use for signals sent with the global secret. */
export const DEFAULT_STRATEGY_ID = "default";
