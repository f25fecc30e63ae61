// The Trading Rules form (docs/spec/screens.md, api.md#validation, figures.md#defaults-and-limits) and its one Zod schema, shared by the browser
// (instant validation) and the route action (the post, with or without JavaScript).
//
// The form's field names are the trading config's own paths (takeProfits[0].portfolio,
// stopLossOffset, trailingStop.activation, ...), but every percentage is typed IN PERCENT
// ("0.5" = 0.5 %); the schema divides by 100, so the output is the config's fractions.
// The output is a partial TradingConfig body for updateTradingConfig (app/services/
// trading.server.ts), which merges it onto the stored config and validates it again with
// TradingConfigSchema and the take-profit allocation rule.
//
// Rules (docs/decisions/007-trading-rules-form.md):
// - checkboxes/switches: present ("on") = true, absent = false (a plain HTML post);
// - take-profit portfolio % is clamped to 0..100; the enabled levels must total 100 % ± 0.1;
// - order size multiplier: anything that is not a number from 0.01 to 10 falls back to 1;
// - signal amount value: the per-type minimum/maximum/step of docs/spec/api.md#validation;
// - details of a switched-off section (amount control's type and value, the trailing stop's
//   activation and execute) are neither validated nor saved: the stored values stay.
import { parseWithZod } from "@conform-to/zod/v4";
import { z } from "zod";
import { D, isDecimalString } from "#app/core/decimal.ts";
import {
  SIGNAL_AMOUNT_TYPES,
  type TakeProfitLevel,
  type TradingConfig,
  takeProfitAllocationError,
} from "#app/core/schemas/trading-config.ts";

export type SignalAmountType = (typeof SIGNAL_AMOUNT_TYPES)[number];

/** docs/spec/api.md#validation: the signal amount value's bounds per type (input units: percent for percentage). */
export const SIGNAL_AMOUNT_RULES: Record<
  SignalAmountType,
  { label: string; min: string; max: string | null; step: string | null; help: string }
> = {
  multiplier: {
    label: "Multiplier",
    min: "0.01",
    max: null,
    step: null,
    help: "Signal quantity × this value (min 0.01)",
  },
  usd: { label: "USD amount", min: "1", max: null, step: "0.01", help: "Order notional in USD (min 1, step 0.01)" },
  percentage: {
    label: "Percentage of balance",
    min: "0.1",
    max: "100",
    step: "0.1",
    help: "Percent of the available balance (0.1 to 100, step 0.1)",
  },
  contracts: {
    label: "Contracts",
    min: "1",
    max: null,
    step: "1",
    help: "A fixed number of exchange contracts (whole numbers, min 1; on Coinbase one BTC contract is 0.01 BTC)",
  },
};

export const MULTIPLIER_MIN = "0.01";
export const MULTIPLIER_MAX = "10";
export const MULTIPLIER_FALLBACK = "1";

/** Checkbox-style booleans from a form post (SPEC: switches are real inputs). */
const checkbox = z.preprocess((v) => v === "on" || v === "true" || v === true, z.boolean());
const text = z.string().optional();

const RawFormSchema = z.object({
  autoTradingEnabled: checkbox,
  emergencyStopEnabled: checkbox,
  applyTakeProfitToSignals: checkbox,
  applyStopLossToSignals: checkbox,
  applyBreakEvenToSignals: checkbox,
  applyTrailingStopToSignals: checkbox,
  applyLeverageToSignals: checkbox,
  applyTakeProfitToManual: checkbox,
  applyStopLossToManual: checkbox,
  applyBreakEvenToManual: checkbox,
  applyTrailingStopToManual: checkbox,
  applyAmountControlToSignals: checkbox,
  orderSizeMultiplier: text,
  signalAmountType: text,
  signalAmountValue: text,
  takeProfits: z
    .array(z.object({ portfolio: text, priceDeviation: text, enabled: checkbox }))
    .max(10, "At most 10 take-profit levels")
    .optional(),
  stopLossOffset: text,
  breakEvenEnabled: checkbox,
  /** value: whole ticks, or percent of the entry (decision 046). */
  breakEvenOffset: z.object({ unit: text, value: text }).optional(),
  trailingStopEnabled: checkbox,
  trailingStop: z.object({ activation: text, execute: text }).optional(),
});
/** The form's values after field-level parsing: booleans and raw texts (percent). */
export type RawTradingRulesForm = z.output<typeof RawFormSchema>;

export const TradingRulesFormSchema = RawFormSchema.superRefine((form, ctx) => {
  for (const issue of formToConfig(form).issues)
    ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
}).transform((form) => formToConfig(form).config);

/** Parses a posted (or about to be posted) form: the same call in the browser and the action. */
export function parseTradingRulesForm(formData: FormData | URLSearchParams) {
  return parseWithZod(formData, { schema: TradingRulesFormSchema, disableAutoCoercion: true });
}

// ---------------------------------------------------------------------------------------
// Conversions (pure, unit-tested)
// ---------------------------------------------------------------------------------------

const isNumber = (v: string | undefined): v is string => v !== undefined && isDecimalString(v);
/** A percent text as a fraction: "0.5" → 0.005 (exact: decimal arithmetic, then a number). */
export const percentToFraction = (percent: string): number => Number(D(percent).div(100).toString());
/** A stored fraction as the percent text the form shows: 0.005 → "0.5". */
export const fractionToPercent = (fraction: number): string => D(fraction).times(100).toString();

/** docs/spec/api.md#validation: a take-profit level's portfolio percent is clamped to 0..100. Null when not a number. */
export function clampPortfolioPercent(value: string | undefined): string | null {
  const v = value?.trim();
  if (!isNumber(v)) return null;
  const n = D(v);
  if (n.lt(0)) return "0";
  if (n.gt(100)) return "100";
  return n.toString();
}

/** docs/spec/api.md#validation: the order size multiplier is 0.01..10; anything else falls back to 1. */
export function normalizeMultiplier(value: string | undefined): string {
  const v = value?.trim();
  if (!isNumber(v)) return MULTIPLIER_FALLBACK;
  const n = D(v);
  if (n.lt(MULTIPLIER_MIN) || n.gt(MULTIPLIER_MAX)) return MULTIPLIER_FALLBACK;
  return n.toString();
}

/** The per-type rule of the signal amount value; null when it is valid. */
export function signalAmountValueError(type: SignalAmountType, value: string | undefined): string | null {
  const rule = SIGNAL_AMOUNT_RULES[type];
  const v = value?.trim();
  if (!v) return "Signal amount value is required";
  if (!isNumber(v)) return "Signal amount value must be a number";
  const n = D(v);
  if (rule.max !== null && (n.lt(rule.min) || n.gt(rule.max)))
    return `${rule.label} must be between ${rule.min} and ${rule.max}`;
  if (n.lt(rule.min)) return `${rule.label} must be at least ${rule.min}`;
  if (rule.step !== null && !n.mod(rule.step).eq(0)) {
    return rule.step === "1"
      ? `${rule.label} must be a whole number`
      : `${rule.label} must be a multiple of ${rule.step}`;
  }
  return null;
}

/** A percent in (0, max]: the stop-loss offset, deviations, trailing activation/execute. */
function positivePercent(value: string | undefined, label: string, max: number): { value?: number; error?: string } {
  const v = value?.trim();
  if (!v) return { error: `${label} is required` };
  if (!isNumber(v)) return { error: `${label} must be a number` };
  const n = D(v);
  if (n.lte(0) || n.gt(max)) return { error: `${label} must be more than 0% and at most ${max}%` };
  return { value: percentToFraction(v) };
}

export interface FormIssue {
  path: (string | number)[];
  message: string;
}

/**
 * The form's values (percent texts, booleans) → the config body (fractions) and the
 * problems, each at its field's path.
 */
export function formToConfig(f: RawTradingRulesForm): { config: Partial<TradingConfig>; issues: FormIssue[] } {
  const issues: FormIssue[] = [];
  const config: Partial<TradingConfig> = {
    autoTradingEnabled: f.autoTradingEnabled,
    emergencyStopEnabled: f.emergencyStopEnabled,
    applyTakeProfitToSignals: f.applyTakeProfitToSignals,
    applyStopLossToSignals: f.applyStopLossToSignals,
    applyBreakEvenToSignals: f.applyBreakEvenToSignals,
    applyTrailingStopToSignals: f.applyTrailingStopToSignals,
    applyLeverageToSignals: f.applyLeverageToSignals,
    applyTakeProfitToManual: f.applyTakeProfitToManual,
    applyStopLossToManual: f.applyStopLossToManual,
    applyBreakEvenToManual: f.applyBreakEvenToManual,
    applyTrailingStopToManual: f.applyTrailingStopToManual,
    applyAmountControlToSignals: f.applyAmountControlToSignals,
    breakEvenEnabled: f.breakEvenEnabled,
    trailingStopEnabled: f.trailingStopEnabled,
    orderSizeMultiplier: normalizeMultiplier(f.orderSizeMultiplier),
  };

  // Take-profit levels: portfolio % clamped, deviation in (0, 1000] %.
  if (f.takeProfits) {
    const levels: TakeProfitLevel[] = [];
    f.takeProfits.forEach((level, i) => {
      const portfolio = clampPortfolioPercent(level.portfolio);
      if (portfolio === null) {
        issues.push({
          path: ["takeProfits", i, "portfolio"],
          message: level.portfolio?.trim() ? "Portfolio % must be a number" : "Portfolio % is required",
        });
      }
      const deviation = positivePercent(level.priceDeviation, "Price deviation", 1000);
      if (deviation.error) issues.push({ path: ["takeProfits", i, "priceDeviation"], message: deviation.error });
      levels.push({
        portfolio: portfolio === null ? 0 : percentToFraction(portfolio),
        priceDeviation: deviation.value ?? 0,
        enabled: Boolean(level.enabled),
      });
    });
    const allocation = takeProfitAllocationError(levels);
    if (allocation) issues.push({ path: ["takeProfits"], message: allocation });
    config.takeProfits = levels;
  }

  const stopLoss = positivePercent(f.stopLossOffset, "Stop-loss offset", 100);
  if (stopLoss.error) issues.push({ path: ["stopLossOffset"], message: stopLoss.error });
  else config.stopLossOffset = stopLoss.value;

  // Break-even offset (decision 046): whole ticks 0..1000, or 0..5 % of the entry; blank = none. Not posted: the stored one stays.
  if (f.breakEvenOffset) {
    const error = breakEvenOffsetError(f.breakEvenOffset.unit, f.breakEvenOffset.value);
    if (error) issues.push({ path: ["breakEvenOffset", "value"], message: error });
    else config.breakEvenOffset = breakEvenOffsetFromForm(f.breakEvenOffset.unit, f.breakEvenOffset.value);
  }

  if (f.trailingStopEnabled) {
    const activation = positivePercent(f.trailingStop?.activation, "Activation", 100);
    const execute = positivePercent(f.trailingStop?.execute, "Trailing distance", 100);
    if (activation.error) issues.push({ path: ["trailingStop", "activation"], message: activation.error });
    if (execute.error) issues.push({ path: ["trailingStop", "execute"], message: execute.error });
    if (activation.value !== undefined && execute.value !== undefined)
      config.trailingStop = { activation: activation.value, execute: execute.value };
  }

  if (f.applyAmountControlToSignals) {
    const type = f.signalAmountType as SignalAmountType;
    if (!SIGNAL_AMOUNT_TYPES.includes(type)) {
      issues.push({
        path: ["signalAmountType"],
        message: "Signal amount type must be multiplier, usd, percentage or contracts",
      });
    } else {
      const error = signalAmountValueError(type, f.signalAmountValue);
      if (error) issues.push({ path: ["signalAmountValue"], message: error });
      else {
        config.signalAmountType = type;
        config.signalAmountValue = D(f.signalAmountValue!.trim()).toString();
      }
    }
  }

  return { config, issues };
}

/** The break-even offset's texts → null when valid, else the message (decision 046). */
export function breakEvenOffsetError(unit: string | undefined, value: string | undefined): string | null {
  if (unit !== "ticks" && unit !== "percent") return "Break-even offset unit must be ticks or percent";
  const v = value?.trim();
  if (!v) return null;
  if (!isNumber(v)) return "Break-even offset must be a number";
  if (unit === "ticks")
    return D(v).mod(1).eq(0) && D(v).lte(1000)
      ? null
      : "Break-even offset must be a whole number of ticks from 0 to 1000";
  return D(v).lte(5) ? null : "Break-even offset must be from 0% to 5%";
}

/** A valid offset's texts as the config's value: ticks as a count, percent as a fraction. */
export function breakEvenOffsetFromForm(
  unit: string | undefined,
  value: string | undefined,
): TradingConfig["breakEvenOffset"] {
  const v = value?.trim() || "0";
  return unit === "ticks"
    ? { unit: "ticks", value: Number(D(v).toString()) }
    : { unit: "percent", value: percentToFraction(v) };
}

export type TradingRulesFormValues = ReturnType<typeof configToFormValues>;

/** The values the form starts from: the stored config, percentages as percent texts. */
export function configToFormValues(config: TradingConfig) {
  return {
    autoTradingEnabled: config.autoTradingEnabled,
    emergencyStopEnabled: config.emergencyStopEnabled,
    applyTakeProfitToSignals: config.applyTakeProfitToSignals,
    applyStopLossToSignals: config.applyStopLossToSignals,
    applyBreakEvenToSignals: config.applyBreakEvenToSignals,
    applyTrailingStopToSignals: config.applyTrailingStopToSignals,
    applyLeverageToSignals: config.applyLeverageToSignals,
    applyTakeProfitToManual: config.applyTakeProfitToManual,
    applyStopLossToManual: config.applyStopLossToManual,
    applyBreakEvenToManual: config.applyBreakEvenToManual,
    applyTrailingStopToManual: config.applyTrailingStopToManual,
    applyAmountControlToSignals: config.applyAmountControlToSignals,
    orderSizeMultiplier: config.orderSizeMultiplier,
    signalAmountType: config.signalAmountType,
    signalAmountValue: config.signalAmountValue,
    takeProfits: config.takeProfits.map((l) => ({
      portfolio: fractionToPercent(l.portfolio),
      priceDeviation: fractionToPercent(l.priceDeviation),
      enabled: l.enabled,
    })),
    stopLossOffset: fractionToPercent(config.stopLossOffset),
    breakEvenEnabled: config.breakEvenEnabled,
    breakEvenOffset: {
      unit: config.breakEvenOffset.unit,
      value:
        config.breakEvenOffset.unit === "ticks"
          ? String(config.breakEvenOffset.value)
          : fractionToPercent(config.breakEvenOffset.value),
    },
    trailingStopEnabled: config.trailingStopEnabled,
    trailingStop: {
      activation: fractionToPercent(config.trailingStop.activation),
      execute: fractionToPercent(config.trailingStop.execute),
    },
  };
}

/** Sum of the enabled levels' portfolio percents, as the form shows it live ("100"). */
export function enabledTotalPercent(levels: { portfolio: string; enabled: boolean }[]): string {
  return levels
    .filter((l) => l.enabled)
    .reduce((acc, l) => acc.plus(clampPortfolioPercent(l.portfolio) ?? 0), D(0))
    .round(2)
    .toString();
}

/** The first message of a failed submission (for the 'Error Saving Rules' toast). */
export function firstFormError(error: Record<string, string[] | null> | null | undefined): string {
  if (!error) return "Please check the highlighted fields";
  // The allocation rule first: it is the one docs/spec/api.md#validation names first.
  const ordered = Object.entries(error).sort(([a], [b]) => (a === "takeProfits" ? -1 : b === "takeProfits" ? 1 : 0));
  for (const [, messages] of ordered) if (messages?.length) return messages[0]!;
  return "Please check the highlighted fields";
}
