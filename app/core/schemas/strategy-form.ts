// The Strategies screen's form (one Zod schema for the browser and the action). Percentages
// are typed in percent, as on Trading Rules; a blank override means "from Trading Rules".
// The output is the /api/strategies body (StrategyInput), checked with the same rules.
import { parseWithZod } from "@conform-to/zod/v4";
import { z } from "zod";
import { D, isDecimalString } from "#app/core/decimal.ts";
import { StrategyInputSchema } from "#app/core/schemas/strategy.ts";
import { SIGNAL_AMOUNT_TYPES, takeProfitAllocationError } from "#app/core/schemas/trading-config.ts";
import { percentToFraction, signalAmountValueError } from "#app/core/schemas/trading-rules-form.ts";

const text = z.string().optional();
const list = z.preprocess((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]), z.array(z.string()));

export const RawStrategyFormSchema = z.object({
  name: text,
  enabled: z.preprocess((v) => v === "on" || v === "true" || v === true, z.boolean()),
  allowedSymbols: list,
  amountType: text,
  amountValue: text,
  leverage: text,
  maxPositionSize: text,
  maxOpenPositions: text,
  stopLossOffset: text,
  breakEven: text,
  /** "5 ticks" or "0.1%" (decision 046); blank: from Trading Rules. */
  breakEvenOffset: text,
  trailing: text,
  trailingActivation: text,
  trailingExecute: text,
  takeProfits: text,
});
type RawForm = z.output<typeof RawStrategyFormSchema>;

const percent = (v: string | undefined, label: string, issues: { path: string[]; message: string }[], path: string) => {
  const t = v?.trim();
  if (!t) return undefined;
  if (!isDecimalString(t) || D(t).lte(0) || D(t).gt(100)) {
    issues.push({ path: [path], message: `${label} must be more than 0% and at most 100%` });
    return undefined;
  }
  return percentToFraction(t);
};

/** A strategy's break-even offset as typed: "5 ticks" / "5t" → ticks, "0.1%" → a fraction of the entry; blank → null (Trading Rules'). */
export function parseBreakEvenOffsetText(
  value: string | undefined,
): { unit: "ticks" | "percent"; value: number } | null | "invalid" {
  const t = value?.trim().toLowerCase() ?? "";
  if (!t) return null;
  const ticks = /^(\d+)\s*(ticks?|t)$/.exec(t);
  if (ticks) return Number(ticks[1]) <= 1000 ? { unit: "ticks", value: Number(ticks[1]) } : "invalid";
  const percent = /^(\d+(\.\d+)?)\s*%$/.exec(t);
  if (percent && isDecimalString(percent[1]!) && D(percent[1]!).lte(5))
    return { unit: "percent", value: percentToFraction(percent[1]!) };
  return "invalid";
}

/** The form's texts → the strategy body, and the problems at their fields. */
export function formToStrategy(f: RawForm) {
  const issues: { path: string[]; message: string }[] = [];
  const rules: Record<string, unknown> = {};
  const sl = percent(f.stopLossOffset, "Stop-loss offset", issues, "stopLossOffset");
  if (sl !== undefined) rules.stopLossOffset = sl;
  if (f.breakEven === "on" || f.breakEven === "off") rules.breakEvenEnabled = f.breakEven === "on";
  const offset = parseBreakEvenOffsetText(f.breakEvenOffset);
  if (offset === "invalid")
    issues.push({
      path: ["breakEvenOffset"],
      message:
        "Break-even offset: whole ticks (e.g. 5 ticks, 0 to 1000) or a percent of the entry (e.g. 0.1%, 0 to 5%)",
    });
  else if (offset) rules.breakEvenOffset = offset;
  if (f.trailing === "on" || f.trailing === "off") {
    rules.trailingStopEnabled = f.trailing === "on";
    const activation = percent(f.trailingActivation, "Activation", issues, "trailingActivation");
    const execute = percent(f.trailingExecute, "Trailing distance", issues, "trailingExecute");
    if (activation !== undefined && execute !== undefined) rules.trailingStop = { activation, execute };
  }
  const tp = f.takeProfits?.trim();
  if (tp) {
    const levels = tp
      .split(/[,;\n]+/)
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const [portfolio, deviation] = part.split("@").map((s) => s?.trim());
        return portfolio && deviation && isDecimalString(portfolio) && isDecimalString(deviation) && D(deviation).gt(0)
          ? { portfolio: percentToFraction(portfolio), priceDeviation: percentToFraction(deviation), enabled: true }
          : null;
      });
    if (levels.some((l) => l === null))
      issues.push({
        path: ["takeProfits"],
        message: "Take-profit levels: portfolio%@deviation%, comma separated (e.g. 50@1, 50@2)",
      });
    else {
      const allocation = takeProfitAllocationError(levels as never);
      if (allocation) issues.push({ path: ["takeProfits"], message: allocation });
      rules.takeProfits = levels;
    }
  }
  const body = {
    name: f.name ?? "",
    enabled: f.enabled,
    allowedSymbols: f.allowedSymbols,
    amountType: f.amountType || "multiplier",
    amountValue: f.amountValue?.trim() || "",
    leverage: f.leverage?.trim() || "1",
    maxPositionSize: f.maxPositionSize?.trim() || null,
    maxOpenPositions: f.maxOpenPositions?.trim() || null,
    rules,
  };
  const parsed = StrategyInputSchema.safeParse(body);
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      issues.push({ path: [String(issue.path[0] ?? "name")], message: issue.message });
  } else if (SIGNAL_AMOUNT_TYPES.includes(parsed.data.amountType)) {
    const amount = signalAmountValueError(parsed.data.amountType, parsed.data.amountValue);
    if (amount) issues.push({ path: ["amountValue"], message: amount });
  }
  return { body, input: parsed.success ? parsed.data : null, issues };
}

export const StrategyFormSchema = RawStrategyFormSchema.superRefine((form, ctx) => {
  for (const issue of formToStrategy(form).issues)
    ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
}).transform((form) => formToStrategy(form).input!);

export function parseStrategyForm(formData: FormData) {
  return parseWithZod(formData, { schema: StrategyFormSchema, disableAutoCoercion: true });
}
