// Editing one open position in place (issue 25, docs/decisions/048-edit-a-position.md): the
// shape PATCH /api/positions/{id} takes and the Positions edit form posts, checked by the same
// schema on the server and, with JavaScript, in the browser before the post. Percentages are
// percent (0.5 = 0.5 %), prices decimals. Whether a price is on the right side of the entry
// and the current price is the rules' part (app/core/rules/edit.ts), which knows the position.
// And a partial close: a quantity or a percent of what remains.
import { z } from "zod";
import { D, isDecimalString } from "../decimal.ts";
import { MAX_PRICE } from "./webhook-signal.ts";

export const MAX_TAKE_PROFIT_LEVELS = 10;

const text = z.string().trim().max(40, "Too long");

export const PositionEditSchema = z
  .object({
    /** The stop-loss price; "" removes the stop loss. */
    stopLoss: text.optional(),
    /** The take-profit levels not filled yet, as they should be (add, change, remove). */
    takeProfits: z
      .array(z.object({ price: text, close: text }).strict())
      .max(MAX_TAKE_PROFIT_LEVELS, `At most ${MAX_TAKE_PROFIT_LEVELS} take-profit levels`)
      .optional(),
    /**
     * The number of the first level in `takeProfits` (the levels already filled come before it),
     * so messages name a level as the screens do ("Take-profit 2" once TP1 has filled). Default 1.
     */
    takeProfitsFrom: z.coerce.number().int().min(1).max(MAX_TAKE_PROFIT_LEVELS).optional(),
    breakEven: z.boolean().optional(),
    breakEvenOffset: text.optional(),
    breakEvenOffsetUnit: z
      .enum(["ticks", "percent"], { error: "The break-even offset is in ticks or percent" })
      .optional(),
    trailing: z.boolean().optional(),
    trailingActivation: text.optional(),
    trailingRetrace: text.optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    const positive = (s: string) => isDecimalString(s) && D(s).gt(0);
    if (v.stopLoss !== undefined && v.stopLoss !== "" && (!positive(v.stopLoss) || D(v.stopLoss).gt(MAX_PRICE))) {
      ctx.addIssue({
        code: "custom",
        path: ["stopLoss"],
        message: "The stop loss must be a price above 0 (blank: no stop loss)",
      });
    }
    const first = v.takeProfitsFrom ?? 1;
    (v.takeProfits ?? []).forEach((level, i) => {
      if (!positive(level.price) || D(level.price).gt(MAX_PRICE))
        ctx.addIssue({
          code: "custom",
          path: ["takeProfits", i, "price"],
          message: `Take-profit ${first + i} needs a price above 0`,
        });
      if (!positive(level.close) || D(level.close).gt(100))
        ctx.addIssue({
          code: "custom",
          path: ["takeProfits", i, "close"],
          message: `Take-profit ${first + i} closes a share above 0 and at most 100 %`,
        });
    });
    if (v.breakEvenOffset !== undefined && v.breakEvenOffset !== "") {
      const ok = isDecimalString(v.breakEvenOffset) && D(v.breakEvenOffset).gte(0);
      const ticks = (v.breakEvenOffsetUnit ?? "ticks") === "ticks";
      if (
        !ok ||
        (ticks
          ? !Number.isInteger(Number(v.breakEvenOffset)) || Number(v.breakEvenOffset) > 1000
          : D(v.breakEvenOffset).gt(10))
      ) {
        ctx.addIssue({
          code: "custom",
          path: ["breakEvenOffset"],
          message: "The break-even offset is a whole number of ticks (0 to 1000) or a percent (0 to 10)",
        });
      }
    }
    if (v.trailing) {
      const a = v.trailingActivation ?? "";
      const r = v.trailingRetrace ?? "";
      if (!positive(a) || !positive(r) || D(a).gt(100) || D(r).gte(100)) {
        ctx.addIssue({
          code: "custom",
          path: ["trailingActivation"],
          message: "The trailing stop needs an activation and a distance above 0",
        });
      }
    }
  });

export type PositionEdit = z.infer<typeof PositionEditSchema>;

/**
 * The edit form's fields (docs/spec/screens.md, Positions): stopLoss, tpPrice / tpClose (one
 * pair per row; a row left blank is no level), breakEven / trailing checkboxes ("on"),
 * breakEvenOffset, breakEvenOffsetUnit, trailingActivation, trailingRetrace. The form always
 * posts the whole edit.
 */
export function positionEditFromForm(form: FormData): Record<string, unknown> {
  const str = (name: string) => String(form.get(name) ?? "");
  const prices = form.getAll("tpPrice").map(String);
  const closes = form.getAll("tpClose").map(String);
  const takeProfits: { price: string; close: string }[] = [];
  for (let i = 0; i < Math.max(prices.length, closes.length); i++) {
    const price = (prices[i] ?? "").trim();
    const close = (closes[i] ?? "").trim();
    if (price !== "" || close !== "") takeProfits.push({ price, close });
  }
  const unit = str("breakEvenOffsetUnit");
  const from = str("takeProfitsFrom");
  return {
    stopLoss: str("stopLoss"),
    takeProfits,
    ...(from ? { takeProfitsFrom: from } : {}),
    breakEven: form.get("breakEven") === "on",
    breakEvenOffset: str("breakEvenOffset"),
    ...(unit ? { breakEvenOffsetUnit: unit } : {}),
    trailing: form.get("trailing") === "on",
    trailingActivation: str("trailingActivation"),
    trailingRetrace: str("trailingRetrace"),
  };
}

/** A partial close: `quantity` (base units) or `percent` (of what remains), exactly one. */
export const PartialCloseSchema = z
  .object({ quantity: text.optional(), percent: text.optional() })
  .strict()
  .superRefine((v, ctx) => {
    const q = v.quantity ?? "";
    const p = v.percent ?? "";
    if ((q === "") === (p === "")) {
      ctx.addIssue({ code: "custom", path: ["quantity"], message: "Give a quantity or a percent to close" });
      return;
    }
    if (q !== "" && !(isDecimalString(q) && D(q).gt(0)))
      ctx.addIssue({ code: "custom", path: ["quantity"], message: "The quantity to close must be above 0" });
    if (p !== "" && !(isDecimalString(p) && D(p).gt(0) && D(p).lte(100)))
      ctx.addIssue({
        code: "custom",
        path: ["percent"],
        message: "The percent to close must be above 0 and at most 100",
      });
  });

export type PartialClose = z.infer<typeof PartialCloseSchema>;

/** What the edit form shows for one open position (decision 048): the values it posts back unchanged. */
export interface PositionEditView {
  id: string;
  symbol: string;
  side: "long" | "short";
  entryPrice: string;
  currentPrice: string | null;
  remainingQuantity: string;
  /** The stop in force ("" none); prices here are on the product's tick. */
  stopLoss: string;
  breakEvenTriggered: boolean;
  /** Levels the rules hold on to (filled, skipped, requested): shown, not editable. */
  lockedLevels: { n: number; price: string; close: string; state: string }[];
  /** The other enabled levels, editable (n: the level's number, TPn on the chart). */
  levels: { n: number; price: string; close: string }[];
  breakEven: boolean;
  breakEvenOffset: string;
  breakEvenOffsetUnit: "ticks" | "percent";
  trailing: boolean;
  trailingActivation: string;
  trailingRetrace: string;
}

/** The edit form's fields a link may open it on (a price chart's mark, decision 048): the stop, take-profit n, break-even, trailing. */
export type EditField = "stopLoss" | "breakEven" | "trailing" | `tp${number}`;

/** `focus` from a URL: one of the edit form's fields, else null. */
export function parseEditField(value: string | null | undefined): EditField | null {
  return value && /^(stopLoss|breakEven|trailing|tp[1-9][0-9]?)$/.test(value) ? (value as EditField) : null;
}

/** The id of the form control a field's link lands on (the URL's fragment, so it scrolls there without JavaScript). */
export const editFieldId = (field: EditField) => `edit-${field}`;

/**
 * The one edit path (decision 048): /positions?edit=<id>, opened on `focus` (scrolled to and
 * focused), returning to `back` (a same-origin path, e.g. the position's chart) after a save.
 */
export function positionEditHref(id: string, options: { focus?: EditField | null; back?: string | null } = {}): string {
  const query = new URLSearchParams({ edit: id });
  if (options.focus) query.set("focus", options.focus);
  if (options.back) query.set("back", options.back);
  return `/positions?${query.toString()}${options.focus ? `#${editFieldId(options.focus)}` : ""}`;
}
