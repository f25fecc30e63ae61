// The what-if replay's request (issue 25, docs/spec/api.md POST /api/replay, docs/decisions/047-replay.md):
// one schema for the Replay screen's form (Conform, with and without JavaScript) and the JSON
// API. Percentages are entered as percent (0.5 = 0.5 %) and become the engine's fractions in
// ruleSetControls. Dates are whole UTC days.
import { z } from "zod";
import type { AdvancedControls } from "../orders/controls.ts";
import { type TradingConfig, takeProfitAllocationError } from "./trading-config.ts";

export const MAX_RULE_SETS = 3;
export const MAX_REPLAY_TP_LEVELS = 5;
export const MAX_REPLAY_DAYS = 31;
export const DEFAULT_REPLAY_DAYS = 30;
export const DAY_MS = 86_400_000;
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

/** Checkboxes: "on" (a form), true (JSON); absent = off. */
const flag = z.preprocess((v) => v === true || v === "on" || v === "true", z.boolean());
const percent = (label: string, max: number) =>
  z.coerce
    .number({ message: `${label} must be a number` })
    .finite(`${label} must be a number`)
    .min(0, `${label} must be 0 or more`)
    .max(max, `${label} must be at most ${max}`);
const date = (label: string) =>
  z
    .string({ message: `${label} is required` })
    .trim()
    .refine(
      (v) => DATE_RE.test(v) && new Date(`${v}T00:00:00.000Z`).toISOString().slice(0, 10) === v,
      `${label} must be a date (YYYY-MM-DD)`,
    );

export const ReplayTakeProfitSchema = z.object({
  /** Move from the entry, percent. */
  price: percent("Take-profit price", 1000).optional(),
  /** Share of the position it closes, percent. */
  close: percent("Take-profit close", 100).optional(),
});

export const ReplayRuleSetSchema = z
  .object({
    enabled: flag,
    takeProfits: z.array(ReplayTakeProfitSchema).max(MAX_REPLAY_TP_LEVELS).optional().default([]),
    /** Percent from the entry; empty or 0: no stop loss. */
    stopLoss: percent("Stop loss", 100).optional(),
    breakEven: flag,
    /** Beyond entry + fees (decision 046): ticks or percent of the entry. */
    breakEvenOffset: z.coerce
      .number({ message: "Break-even offset must be a number" })
      .finite()
      .min(0, "Break-even offset must be 0 or more")
      .max(1000)
      .optional(),
    breakEvenOffsetUnit: z.enum(["ticks", "percent"]).optional().default("percent"),
    trailing: flag,
    trailingActivation: percent("Trailing activation", 100).optional(),
    trailingRetrace: percent("Trailing distance", 100).optional(),
  })
  .superRefine((set, ctx) => {
    if (!set.enabled) return;
    set.takeProfits.forEach((row, i) => {
      if (
        (row.price === undefined) !== (row.close === undefined) ||
        (row.price !== undefined && (!(row.price > 0) || !(row.close! > 0)))
      ) {
        ctx.addIssue({
          code: "custom",
          path: ["takeProfits", i, "price"],
          message: `Take-profit ${i + 1} needs a price move and a close share above 0`,
        });
      }
    });
    const allocation = takeProfitAllocationError(levelsOf(set));
    if (allocation) ctx.addIssue({ code: "custom", path: ["takeProfits"], message: allocation });
    if (set.breakEven && !(set.stopLoss && set.stopLoss > 0))
      ctx.addIssue({ code: "custom", path: ["breakEven"], message: "Break-even moves the stop loss: set a stop loss" });
    if (
      set.breakEven &&
      set.breakEvenOffsetUnit === "ticks" &&
      set.breakEvenOffset !== undefined &&
      !Number.isInteger(set.breakEvenOffset)
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["breakEvenOffset"],
        message: "Break-even offset in ticks must be a whole number",
      });
    }
    if (set.breakEven && set.breakEvenOffsetUnit === "percent" && (set.breakEvenOffset ?? 0) > 5) {
      ctx.addIssue({ code: "custom", path: ["breakEvenOffset"], message: "Break-even offset must be at most 5 %" });
    }
    if (
      set.trailing &&
      !(set.trailingActivation !== undefined && set.trailingRetrace !== undefined && set.trailingRetrace > 0)
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["trailingRetrace"],
        message: "The trailing stop needs an activation and a distance above 0",
      });
    }
  });
export type ReplayRuleSet = z.infer<typeof ReplayRuleSetSchema>;

export const ReplayRequestSchema = z
  .object({
    from: date("From"),
    to: date("To"),
    /** "all", "default" (the global secret) or a strategy id. */
    strategy: z.string().trim().max(100).optional().default("all"),
    sets: z
      .array(ReplayRuleSetSchema)
      .min(1, "Add a rule set")
      .max(MAX_RULE_SETS, `At most ${MAX_RULE_SETS} rule sets`),
  })
  .superRefine((input, ctx) => {
    if (!input.sets.some((s) => s.enabled))
      ctx.addIssue({ code: "custom", path: ["sets"], message: "Turn on at least one rule set" });
    const from = Date.parse(`${input.from}T00:00:00.000Z`);
    const to = Date.parse(`${input.to}T00:00:00.000Z`);
    if (Number.isFinite(from) && Number.isFinite(to)) {
      if (to < from) ctx.addIssue({ code: "custom", path: ["to"], message: "To must be on or after From" });
      else if ((to - from) / DAY_MS + 1 > MAX_REPLAY_DAYS)
        ctx.addIssue({ code: "custom", path: ["to"], message: `The period can be at most ${MAX_REPLAY_DAYS} days` });
    }
  });
export type ReplayRequest = z.infer<typeof ReplayRequestSchema>;

/** The period in epoch ms: From's 00:00 UTC to the end of To's day (not beyond `now`). */
export function replayPeriod(
  input: Pick<ReplayRequest, "from" | "to">,
  now = Date.now(),
): { from: number; to: number } {
  const from = Date.parse(`${input.from}T00:00:00.000Z`);
  const to = Math.min(Date.parse(`${input.to}T00:00:00.000Z`) + DAY_MS - 1, now);
  return { from, to: Math.max(from, to) };
}

function levelsOf(set: ReplayRuleSet) {
  return set.takeProfits
    .filter((row) => row.price !== undefined && row.close !== undefined && row.price > 0)
    .map((row) => ({ portfolio: row.close! / 100, priceDeviation: row.price! / 100, enabled: true }));
}

/** The engine's controls (fractions) for a rule set of the form. */
export function ruleSetControls(set: ReplayRuleSet): AdvancedControls {
  const levels = levelsOf(set);
  const stop = set.stopLoss && set.stopLoss > 0 ? set.stopLoss / 100 : null;
  const offset = set.breakEvenOffset ?? 0;
  return {
    takeProfits: levels.length > 0 ? levels : null,
    stopLossOffset: stop,
    breakEven: set.breakEven && stop !== null,
    breakEvenOffset:
      set.breakEven && stop !== null
        ? { unit: set.breakEvenOffsetUnit, value: set.breakEvenOffsetUnit === "percent" ? offset / 100 : offset }
        : null,
    trailingStop:
      set.trailing && set.trailingActivation !== undefined && set.trailingRetrace !== undefined
        ? { activation: set.trailingActivation / 100, execute: set.trailingRetrace / 100 }
        : null,
  };
}

const asPercent = (fraction: number) => Number((fraction * 100).toPrecision(12));

/** A rule set prefilled from the Trading Rules (docs/spec/screens.md Replay). */
export function ruleSetFromConfig(config: TradingConfig): ReplayRuleSet {
  const offset = (config as Partial<TradingConfig> & { breakEvenOffset?: { unit: "ticks" | "percent"; value: number } })
    .breakEvenOffset;
  return {
    enabled: true,
    takeProfits: config.takeProfits
      .filter((l) => l.enabled)
      .slice(0, MAX_REPLAY_TP_LEVELS)
      .map((l) => ({ price: asPercent(l.priceDeviation), close: asPercent(l.portfolio) })),
    stopLoss: config.stopLossOffset > 0 ? asPercent(config.stopLossOffset) : undefined,
    breakEven: config.breakEvenEnabled && config.stopLossOffset > 0,
    breakEvenOffset: offset ? (offset.unit === "percent" ? asPercent(offset.value) : offset.value) : undefined,
    breakEvenOffsetUnit: offset?.unit ?? "percent",
    trailing: config.trailingStopEnabled,
    trailingActivation: asPercent(config.trailingStop.activation),
    trailingRetrace: asPercent(config.trailingStop.execute),
  };
}

/** The form's defaults: the last DEFAULT_REPLAY_DAYS days to today, all strategies, three rule sets from the Trading Rules. */
export function defaultReplayRequest(config: TradingConfig, now = Date.now()): ReplayRequest {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const set = ruleSetFromConfig(config);
  return {
    from: day(now - (DEFAULT_REPLAY_DAYS - 1) * DAY_MS),
    to: day(now),
    strategy: "all",
    sets: Array.from({ length: MAX_RULE_SETS }, () => ({
      ...set,
      takeProfits: set.takeProfits.map((l) => ({ ...l })),
    })),
  };
}

/** How a rule set reads in a column's heading: "TP 0.5/1/1.5 % · SL 0.5 % · BE · trail 1.2/0.6 %". */
export function describeRuleSet(controls: AdvancedControls): string {
  const pct = (f: number) => String(asPercent(f));
  const parts: string[] = [];
  parts.push(
    controls.takeProfits ? `TP ${controls.takeProfits.map((l) => pct(l.priceDeviation)).join("/")} %` : "no TP",
  );
  parts.push(controls.stopLossOffset ? `SL ${pct(controls.stopLossOffset)} %` : "no SL");
  if (controls.breakEven) parts.push("BE");
  if (controls.trailingStop)
    parts.push(`trail ${pct(controls.trailingStop.activation)}/${pct(controls.trailingStop.execute)} %`);
  return parts.join(" · ");
}
