// The trading configuration (docs/spec/api.md#shapes), its defaults (figures.md#defaults-and-limits) and its rules (api.md#validation).
// Percentages are stored as fractions (0.005 = 0.5 %). Shared by the API, the Trading
// Rules form and the worker.
import { z } from "zod";
import { D } from "../decimal.ts";

const fraction = z.coerce.number().finite().min(0).max(1);
const bool = z.preprocess((v) => (v === "true" || v === "on" ? true : v === "false" ? false : v), z.boolean());

export const TakeProfitLevelSchema = z.object({
  portfolio: fraction, // share of the position closed at this level
  priceDeviation: z.coerce.number().finite().min(0).max(10), // move from entry, as a fraction
  enabled: bool,
});
export type TakeProfitLevel = z.infer<typeof TakeProfitLevelSchema>;

export const SIGNAL_AMOUNT_TYPES = ["multiplier", "usd", "percentage", "contracts"] as const;

const decimalString = (message: string) =>
  z
    .union([z.string(), z.number()])
    .transform((v) => String(v).trim())
    .refine((v) => /^\d+(\.\d+)?$/.test(v) && D(v).gt(0), { message });

export const TradingConfigSchema = z.object({
  takeProfits: z.array(TakeProfitLevelSchema).max(10),
  stopLossOffset: fraction,
  breakEvenEnabled: bool,
  /** What the break-even stop adds beyond entry + fees (decision 046): whole ticks, or a fraction of the entry. */
  breakEvenOffset: z
    .object({ unit: z.enum(["ticks", "percent"]), value: z.coerce.number().finite().min(0) })
    .refine((o) => (o.unit === "ticks" ? Number.isInteger(o.value) && o.value <= 1000 : o.value <= 0.05), {
      message: "Break-even offset must be 0 to 1000 whole ticks, or 0 to 5 %",
    }),
  trailingStop: z.object({ activation: fraction, execute: fraction }),
  trailingStopEnabled: bool,
  autoTradingEnabled: bool,
  emergencyStopEnabled: bool,
  applyTakeProfitToSignals: bool,
  applyStopLossToSignals: bool,
  applyBreakEvenToSignals: bool,
  applyTrailingStopToSignals: bool,
  orderSizeMultiplier: decimalString("Order size multiplier must be between 0.01 and 10").refine(
    (v) => D(v).gte("0.01") && D(v).lte(10),
    { message: "Order size multiplier must be between 0.01 and 10" },
  ),
  applyLeverageToSignals: bool,
  signalAmountType: z.enum(SIGNAL_AMOUNT_TYPES),
  signalAmountValue: decimalString("Signal amount value must be a positive number"),
  applyAmountControlToSignals: bool,
  applyTakeProfitToManual: bool,
  applyStopLossToManual: bool,
  applyBreakEvenToManual: bool,
  applyTrailingStopToManual: bool,
});
export type TradingConfig = z.infer<typeof TradingConfigSchema>;

export const DEFAULT_TRADING_CONFIG: TradingConfig = {
  takeProfits: [
    { portfolio: 0.2, priceDeviation: 0.005, enabled: true },
    { portfolio: 0.3, priceDeviation: 0.01, enabled: true },
    { portfolio: 0.5, priceDeviation: 0.015, enabled: true },
  ],
  stopLossOffset: 0.005,
  breakEvenEnabled: true,
  breakEvenOffset: { unit: "percent", value: 0.001 },
  trailingStop: { activation: 0.012, execute: 0.006 },
  trailingStopEnabled: true,
  autoTradingEnabled: true,
  emergencyStopEnabled: true,
  applyTakeProfitToSignals: true,
  applyStopLossToSignals: true,
  applyBreakEvenToSignals: true,
  applyTrailingStopToSignals: true,
  orderSizeMultiplier: "1",
  applyLeverageToSignals: false,
  signalAmountType: "multiplier",
  signalAmountValue: "1",
  applyAmountControlToSignals: false,
  applyTakeProfitToManual: true,
  applyStopLossToManual: true,
  applyBreakEvenToManual: true,
  applyTrailingStopToManual: true,
};

export const TP_TOLERANCE_PERCENT = 0.1;

/** Total of the enabled take-profit levels, in percent (e.g. 100, 99.5). */
export function enabledTakeProfitPercent(levels: TakeProfitLevel[]): string {
  return levels
    .filter((l) => l.enabled)
    .reduce((acc, l) => acc.plus(D(l.portfolio).times(100)), D(0))
    .round(2)
    .toString();
}

/** docs/spec/api.md#validation: null when valid, else the exact message. No enabled level is valid (no TP). */
export function takeProfitAllocationError(levels: TakeProfitLevel[]): string | null {
  if (!levels.some((l) => l.enabled)) return null;
  const total = enabledTakeProfitPercent(levels);
  if (D(total).minus(100).abs().lte(TP_TOLERANCE_PERCENT)) return null;
  return `Invalid Portfolio Allocation: Enabled Take Profit levels must total 100%, currently ${total}%`;
}

/** Accepts the body bare or wrapped under `config` (docs/spec/api.md#shapes), fills omitted fields from `base`. */
export function parseTradingConfigBody(
  body: unknown,
  base: TradingConfig = DEFAULT_TRADING_CONFIG,
): { success: true; config: TradingConfig } | { success: false; error: string; field?: string } {
  const raw =
    body && typeof body === "object" && "config" in body && typeof (body as any).config === "object"
      ? (body as { config: unknown }).config
      : body;
  if (!raw || typeof raw !== "object" || Array.isArray(raw))
    return { success: false, error: "Trading config must be an object" };
  const merged = { ...base, ...(raw as Record<string, unknown>) };
  const parsed = TradingConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.map(String).join(".");
    return { success: false, error: field ? `${field}: ${issue.message}` : issue.message, field };
  }
  const allocation = takeProfitAllocationError(parsed.data.takeProfits);
  if (allocation) return { success: false, error: allocation, field: "takeProfits" };
  return { success: true, config: parsed.data };
}
