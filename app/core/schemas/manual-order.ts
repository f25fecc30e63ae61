// The manual order form and POST /api/trades (docs/spec/api.md#shapes, api.md#validation): one schema for the form's
// instant validation, the page action and the API.
import { z } from "zod";
import { D, isDecimalString } from "../decimal.ts";
import { isFuturesSymbol, isKnownSymbol } from "../products.ts";
import { MAX_PRICE, MAX_QUANTITY } from "./webhook-signal.ts";

export const LEVERAGE_OPTIONS = [1, 2, 3, 5, 10] as const;
export const AMOUNT_TYPES = ["quantity", "usd", "percentage"] as const;

const positive = (v: string | undefined) => v !== undefined && isDecimalString(v) && D(v).gt(0);

export const ManualOrderSchema = z
  .object({
    symbol: z.string({ error: "Trading pair is required" }).min(1, "Trading pair is required"),
    side: z.enum(["buy", "sell"], { error: "Side is required" }),
    orderType: z.enum(["market", "limit"], { error: "Order type is required" }),
    amountType: z.enum(AMOUNT_TYPES, { error: "Amount type is required" }),
    quantity: z
      .string({ error: "Amount is required" })
      .trim()
      .min(1, "Amount is required")
      .max(40, "Quantity must be a positive number greater than 0"),
    price: z.string().trim().max(40, "Price must be a positive number greater than 0 for limit orders").optional(),
    leverage: z.string().trim().optional(),
    marginType: z.string().trim().optional(),
  })
  .superRefine((v, ctx) => {
    if (!positive(v.quantity)) {
      ctx.addIssue({
        code: "custom",
        path: ["quantity"],
        message: "Quantity must be a positive number greater than 0",
      });
    } else if (D(v.quantity).gt(MAX_QUANTITY)) {
      // The webhook's caps (issue 10): a typo of many zeros is refused, not sent.
      ctx.addIssue({
        code: "custom",
        path: ["quantity"],
        message: `Amount must be at most ${Number(MAX_QUANTITY).toLocaleString("en-US")}`,
      });
    }
    if (v.orderType === "limit" && !positive(v.price)) {
      ctx.addIssue({
        code: "custom",
        path: ["price"],
        message: "Price must be a positive number greater than 0 for limit orders",
      });
    } else if (v.orderType === "limit" && D(v.price!).gt(MAX_PRICE)) {
      ctx.addIssue({
        code: "custom",
        path: ["price"],
        message: `Price must be at most ${Number(MAX_PRICE).toLocaleString("en-US")}`,
      });
    }
    if (!isKnownSymbol(v.symbol)) {
      ctx.addIssue({ code: "custom", path: ["symbol"], message: `Trading pair ${v.symbol} is not supported` });
    }
    if (v.leverage !== undefined && v.leverage !== "") {
      const n = Number(v.leverage);
      if (!Number.isInteger(n) || n < 1 || n > 10)
        ctx.addIssue({ code: "custom", path: ["leverage"], message: "Leverage must be a whole number from 1 to 10" });
    }
    if (v.marginType && v.marginType !== "cross" && v.marginType !== "isolated") {
      ctx.addIssue({ code: "custom", path: ["marginType"], message: "Margin type must be cross or isolated" });
    }
    if (v.amountType === "percentage" && positive(v.quantity) && D(v.quantity).gt(100)) {
      ctx.addIssue({ code: "custom", path: ["quantity"], message: "Percentage must be at most 100" });
    }
  })
  .transform((v) => {
    const futures = isFuturesSymbol(v.symbol);
    return {
      ...v,
      price: v.orderType === "limit" ? v.price! : null,
      // Futures fields only for -PERP symbols: leverage defaults to 1, margin type to cross.
      leverage: futures ? (v.leverage ? Number(v.leverage) : 1) : 1,
      marginType: (futures && v.marginType === "isolated" ? "isolated" : "cross") as "cross" | "isolated",
    };
  });
export type ManualOrder = z.infer<typeof ManualOrderSchema>;

/** POST /api/trades also accepts SPEC §3's trade payload: futures fields under signalData. */
export function manualOrderFromBody(body: Record<string, unknown>): Record<string, unknown> {
  const signalData = (body.signalData ?? {}) as Record<string, unknown>;
  const str = (v: unknown) => (v === undefined || v === null ? undefined : String(v));
  return {
    symbol: str(body.symbol),
    side: typeof body.side === "string" ? body.side.toLowerCase() : undefined,
    orderType: str(body.orderType),
    amountType: str(body.amountType) ?? "quantity",
    quantity: str(body.quantity),
    price: str(body.price),
    leverage: str(body.leverage ?? signalData.leverage),
    marginType: str(body.marginType ?? signalData.margin_type),
  };
}
