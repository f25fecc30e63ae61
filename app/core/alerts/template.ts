// The alert template builder (issue 12): the one pure function that turns the trader's
// choices into the exact TradingView alert message, and the explanation of each field.
// The webhook's own parser (app/core/schemas/webhook-signal.ts) is the contract: every
// message built here parses, once TradingView has filled its placeholders, into the
// intended action, quantity and target (app/core/alerts/template.test.ts proves it per mode).
import { z } from "zod";
import { D, parseDecimal } from "../decimal.ts";
import { isKnownSymbol } from "../products.ts";
import { MAX_QUANTITY } from "../schemas/webhook-signal.ts";

export const ALERT_MODES = ["entry", "exit", "reverse", "target"] as const;
export type AlertMode = (typeof ALERT_MODES)[number];

export const ALERT_MODE_LABELS: Record<AlertMode, string> = {
  entry: "Entry (buy/sell)",
  exit: "Exit (close)",
  reverse: "Reverse",
  target: "Target position",
};

/** TradingView's placeholders the builder uses, as TradingView spells them. */
export const PLACEHOLDERS = {
  action: "{{strategy.order.action}}",
  contracts: "{{strategy.order.contracts}}",
  marketPosition: "{{strategy.market_position}}",
  marketPositionSize: "{{strategy.market_position_size}}",
  ticker: "{{ticker}}",
  close: "{{close}}",
  orderId: "{{strategy.order.id}}",
  barTime: "{{time}}",
  timenow: "{{timenow}}",
} as const;

export const TICKER = "ticker";

/** The builder's choices as they travel in the query string (a plain GET form). */
export interface AlertTemplateOptions {
  mode: AlertMode;
  orderType: "market" | "limit";
  /** `strategy`: the size comes from the strategy's placeholders; `fixed`: `quantity`. */
  sizing: "strategy" | "fixed";
  /** The fixed quantity (base asset), a decimal string > 0. */
  quantity: string;
  /** Sent only in entry mode and only when the trading config applies leverage to signals. */
  leverage: number | null;
  /** `ticker` ({{ticker}}) or one of the products (BTC-PERP ...). */
  symbol: string;
  /** Reverse mode: the side the position ends on. */
  direction: "long" | "short";
  /** order_id ({{strategy.order.id}}) + bar_time ({{time}}): TradingView's re-sends are one signal. */
  dedupe: boolean;
  /** timenow ({{timenow}}): TradingView's fire time, the first hop of the latency timeline. */
  fireTime: boolean;
  /** Kept with the signal (the alert's `strategy` field); empty: not sent. */
  strategy: string;
}

export const DEFAULT_ALERT_OPTIONS: AlertTemplateOptions = {
  mode: "entry",
  orderType: "market",
  sizing: "strategy",
  quantity: "1",
  leverage: null,
  symbol: TICKER,
  direction: "long",
  dedupe: true,
  fireTime: true,
  strategy: "",
};

/** Query-string names, each with the prefix (default `alert_`), so several builders can share a page. */
export const ALERT_PARAM_KEYS = {
  submitted: "",
  mode: "mode",
  orderType: "order",
  sizing: "sizing",
  quantity: "qty",
  leverage: "leverage",
  symbol: "symbol",
  direction: "direction",
  dedupe: "dedupe",
  fireTime: "timenow",
  reveal: "reveal",
} as const;

export const alertParamName = (key: keyof typeof ALERT_PARAM_KEYS, prefix = "alert") =>
  ALERT_PARAM_KEYS[key] ? `${prefix}_${ALERT_PARAM_KEYS[key]}` : prefix;

const text = (value: string | null | undefined) => (value ?? "").trim();

export const AlertBuilderParamsSchema = z.object({
  mode: z.enum(ALERT_MODES).catch(DEFAULT_ALERT_OPTIONS.mode),
  orderType: z.enum(["market", "limit"]).catch(DEFAULT_ALERT_OPTIONS.orderType),
  sizing: z.enum(["strategy", "fixed"]).catch(DEFAULT_ALERT_OPTIONS.sizing),
  direction: z.enum(["long", "short"]).catch(DEFAULT_ALERT_OPTIONS.direction),
});

export interface ParsedAlertParams {
  options: AlertTemplateOptions;
  /** Field errors of the fixed quantity or leverage (the message falls back to the default). */
  errors: Partial<Record<"quantity" | "leverage", string>>;
  /** The builder form was submitted (checkboxes absent then mean off). */
  submitted: boolean;
  reveal: boolean;
}

export function quantityError(value: string): string | null {
  const parsed = parseDecimal(value);
  if (parsed === null) return "Quantity must be a number";
  if (D(parsed).lte(0)) return "Quantity must be greater than 0";
  if (D(parsed).gt(MAX_QUANTITY)) return "Quantity is too large";
  return null;
}

export function leverageError(value: string): string | null {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 && n <= 10 ? null : "Leverage must be a whole number from 1 to 10";
}

/**
 * The builder's choices from a query string. Tolerant: an unknown value falls back to its
 * default, a bad quantity or leverage is reported and replaced by the default.
 * `leverageApplies`: the trading config applies leverage to signals (else none is sent).
 */
export function parseAlertBuilderParams(
  params: URLSearchParams,
  {
    prefix = "alert",
    leverageApplies = false,
    strategy = "",
  }: { prefix?: string; leverageApplies?: boolean; strategy?: string } = {},
): ParsedAlertParams {
  const get = (key: keyof typeof ALERT_PARAM_KEYS) => params.get(alertParamName(key, prefix));
  const submitted = params.has(alertParamName("submitted", prefix));
  const choices = AlertBuilderParamsSchema.parse({
    mode: get("mode"),
    orderType: get("orderType"),
    sizing: get("sizing"),
    direction: get("direction"),
  });
  const errors: ParsedAlertParams["errors"] = {};

  let quantity = text(get("quantity")) || DEFAULT_ALERT_OPTIONS.quantity;
  const qtyError = quantityError(quantity);
  if (qtyError) {
    if (choices.sizing === "fixed") errors.quantity = qtyError;
    quantity = DEFAULT_ALERT_OPTIONS.quantity;
  } else quantity = parseDecimal(quantity)!;

  let leverage: number | null = null;
  if (leverageApplies) {
    const raw = text(get("leverage")) || "1";
    const levError = leverageError(raw);
    if (levError) errors.leverage = levError;
    leverage = levError ? 1 : Number(raw);
  }

  const rawSymbol = text(get("symbol")).toUpperCase();
  const symbol = isKnownSymbol(rawSymbol) ? rawSymbol : TICKER;
  const flag = (key: "dedupe" | "fireTime" | "reveal", fallback: boolean) =>
    submitted ? get(key) !== null && get(key) !== "off" : fallback;

  return {
    options: {
      ...choices,
      quantity,
      leverage,
      symbol,
      dedupe: flag("dedupe", DEFAULT_ALERT_OPTIONS.dedupe),
      fireTime: flag("fireTime", DEFAULT_ALERT_OPTIONS.fireTime),
      strategy,
    },
    errors,
    submitted,
    reveal: flag("reveal", false),
  };
}

/** The choices as query-string pairs (the GET form's own encoding), for links and replaceState. */
export function alertBuilderSearch(
  options: AlertTemplateOptions,
  { prefix = "alert", reveal = false } = {},
): URLSearchParams {
  const params = new URLSearchParams();
  params.set(alertParamName("submitted", prefix), "1");
  params.set(alertParamName("mode", prefix), options.mode);
  params.set(alertParamName("orderType", prefix), options.orderType);
  params.set(alertParamName("sizing", prefix), options.sizing);
  params.set(alertParamName("quantity", prefix), options.quantity);
  if (options.leverage !== null) params.set(alertParamName("leverage", prefix), String(options.leverage));
  params.set(alertParamName("symbol", prefix), options.symbol);
  if (options.mode === "reverse") params.set(alertParamName("direction", prefix), options.direction);
  if (options.dedupe) params.set(alertParamName("dedupe", prefix), "on");
  if (options.fireTime) params.set(alertParamName("fireTime", prefix), "on");
  if (reveal) params.set(alertParamName("reveal", prefix), "on");
  return params;
}

/**
 * The alert body as an ordered object: what TradingView will POST once it has filled the
 * placeholders. `secret` goes in as given (the caller decides whether it is the real one).
 */
export function buildAlertBody(options: AlertTemplateOptions, secret: string): Record<string, string | number> {
  const fixed = options.sizing === "fixed";
  const body: Record<string, string | number> = { secret };
  body.action = options.mode === "reverse" ? (options.direction === "long" ? "buy" : "sell") : PLACEHOLDERS.action;
  body.symbol = options.symbol === TICKER ? PLACEHOLDERS.ticker : options.symbol;
  // `quantity` is required by the webhook in every mode; in the target modes it is ignored.
  body.quantity = fixed ? options.quantity : PLACEHOLDERS.contracts;
  body.order_type = options.orderType;
  if (options.orderType === "limit") body.price = PLACEHOLDERS.close;
  if (options.mode === "exit") {
    body.market_position = "flat";
    body.market_position_size = "0";
  } else if (options.mode === "reverse") {
    body.market_position = options.direction;
    body.market_position_size = fixed ? options.quantity : PLACEHOLDERS.marketPositionSize;
  } else if (options.mode === "target") {
    body.market_position = PLACEHOLDERS.marketPosition;
    body.market_position_size = fixed ? options.quantity : PLACEHOLDERS.marketPositionSize;
  }
  if (options.mode === "entry" && options.leverage !== null) body.leverage = options.leverage;
  if (options.dedupe) {
    body.order_id = PLACEHOLDERS.orderId;
    body.bar_time = PLACEHOLDERS.barTime;
  }
  if (options.fireTime) body.timenow = PLACEHOLDERS.timenow;
  if (options.strategy.trim()) body.strategy = options.strategy.trim().slice(0, 255);
  return body;
}

/** THE message to paste into TradingView: pretty JSON with the placeholders and the secret. */
export function buildAlertMessage(options: AlertTemplateOptions, secret: string): string {
  return JSON.stringify(buildAlertBody(options, secret), null, 2);
}

/**
 * What TradingView does to the message when the alert fires: each {{placeholder}} replaced
 * by its value (tests use it with sample values). Unknown placeholders stay as they are.
 */
export function substitutePlaceholders(message: string, values: Record<string, string>): string {
  return message.replace(/\{\{([a-z_.]+)\}\}/g, (whole, name: string) => (name in values ? values[name]! : whole));
}

export interface AlertFieldHelp {
  field: string;
  /** The value as it stands in the message. */
  value: string;
  /** What TradingView puts there when the alert fires. */
  tradingView: string;
  /** What the app does with it. */
  app: string;
}

/** A short explanation of each field of the message built from these choices. */
export function explainAlertFields(
  options: AlertTemplateOptions,
  { secretShown = true }: { secretShown?: boolean } = {},
): AlertFieldHelp[] {
  const body = buildAlertBody(options, "secret");
  const target = options.mode !== "entry";
  const fixed = options.sizing === "fixed";
  const lines: AlertFieldHelp[] = [];
  const add = (field: string, tradingView: string, app: string) => {
    if (field in body)
      lines.push({
        field,
        value: field === "secret" ? (secretShown ? "your webhook secret" : "hidden") : String(body[field]),
        tradingView,
        app,
      });
  };
  add(
    "secret",
    "Nothing: sent as written.",
    "Proves the alert is yours; a wrong or missing secret is refused with 401.",
  );
  add(
    "action",
    options.mode === "reverse" ? "Nothing: fixed." : '"buy" or "sell", the side of the strategy\'s order.',
    target
      ? "Required by the format, not used to decide: the position is brought to market_position."
      : "The side of the order the app sends.",
  );
  add(
    "symbol",
    options.symbol === TICKER ? "The chart's ticker, e.g. BINANCE:ETHUSDT.P." : "Nothing: fixed.",
    options.symbol === TICKER
      ? "Mapped to the perpetual of its base asset (see the ticker mapping); unknown tickers are refused with 400."
      : "The product traded.",
  );
  add(
    "quantity",
    fixed ? "Nothing: fixed." : "The number of contracts of the strategy's order.",
    target
      ? "Required by the format, ignored: the order size is the difference to the target."
      : "The order size in the base asset (Trading Rules' amount control for signals may resize it).",
  );
  add("order_type", "Nothing: fixed.", options.orderType === "limit" ? "A limit order at price." : "A market order.");
  add("price", "The bar's close price.", "The limit price.");
  add(
    "market_position",
    options.mode === "target"
      ? '"long", "flat" or "short": the strategy\'s position after the order.'
      : "Nothing: fixed.",
    options.mode === "exit"
      ? "Target flat: the app closes the whole position on the symbol; a repeated exit finds it flat and sends nothing."
      : "The target: the app sends the one order that opens, adds, reduces, flips or closes to reach it.",
  );
  add(
    "market_position_size",
    options.mode === "exit"
      ? "Nothing: fixed."
      : fixed
        ? "Nothing: fixed."
        : "The strategy's position size after the order.",
    "The target size in the base asset (ignored when flat).",
  );
  add("leverage", "Nothing: fixed.", "The leverage of the position (Trading Rules apply leverage to signals).");
  add(
    "order_id",
    "The strategy order's id (e.g. Long, Exit).",
    "With bar_time names the alert: a re-send of the same order on the same bar is stored once.",
  );
  add("bar_time", "The bar's open time.", "With order_id, the deduplication key.");
  add(
    "timenow",
    "The time the alert fired (UTC, whole seconds).",
    "The alert's own time: an entry older than 30 s when the worker takes it is not chased. Also the first hop of the signal's latency timeline.",
  );
  add("strategy", "Nothing: fixed.", "Kept with the signal.");
  return lines;
}
