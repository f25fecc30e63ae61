// The TradingView webhook body (docs/spec/webhook.md): validated field by
// field so a 400 can name the field.
import { parseDecimal, D } from "../decimal.ts";
import { type ProductSpec, isKnownSymbol, resolveSymbol, symbolsText } from "../products.ts";
import { parseFireTime } from "../timeline.ts";

export const MAX_QUANTITY = "1000000000";
export const MAX_PRICE = "1000000000000";

export interface WebhookSignal {
  action: "buy" | "sell";
  symbol: string; // ours: BTC-PERP ...
  product: ProductSpec;
  quantity: string;
  orderType: "market" | "limit";
  price: string | null;
  /** The alert's own time (epoch ms) from `timestamp` or else `timenow`, when it carried one. */
  timestamp: number | null;
  strategy: string | null;
  /** An explicit alert id (id / alert_id), else the strategy order's id and bar (order_id@bar_time), used for deduplication. */
  alertId: string | null;
  /**
   * Target-position mode (issue 12): the strategy's position after this alert
   * ({{strategy.market_position}} / {{strategy.market_position_size}}). The worker brings the
   * position to it instead of applying buy/sell blindly; null for a plain buy/sell alert.
   */
  target: PositionTarget | null;
}

export interface PositionTarget {
  side: "long" | "short" | "flat";
  /** Size in the base asset; "0" for flat. */
  size: string;
}

/**
 * The target of an alert body (stored payloads too: the worker reads it from the signal),
 * null without `market_position`, or the field's error.
 */
export function parsePositionTarget(body: Record<string, unknown>): PositionTarget | null | WebhookParseError {
  const raw = body.market_position;
  if (raw === undefined || raw === null || raw === "") return null;
  const side = typeof raw === "string" ? raw.trim().toLowerCase() : "";
  if (side !== "long" && side !== "short" && side !== "flat")
    return fail("market_position", "market_position must be long, flat or short");
  if (side === "flat") return { side, size: "0" };
  const rawSize = body.market_position_size;
  if (rawSize === undefined || rawSize === null || rawSize === "")
    return fail("market_position_size", "market_position_size is required with market_position long or short");
  const size = typeof rawSize === "number" || typeof rawSize === "string" ? parseDecimal(rawSize) : null;
  if (size === null || D(size).lt(0))
    return fail("market_position_size", "market_position_size must be a number of 0 or more");
  if (D(size).gt(MAX_QUANTITY)) return fail("market_position_size", "market_position_size is too large");
  return D(size).eq(0) ? { side: "flat", size: "0" } : { side, size };
}

/** The target stored with a signal (its payload), or null when it had none or it does not parse. */
export function storedPositionTarget(payload: Record<string, unknown> | null | undefined): PositionTarget | null {
  if (!payload) return null;
  const target = parsePositionTarget(payload);
  return target && !("ok" in target) ? target : null;
}

type WebhookParseError = { ok: false; field: string; error: string };
export type WebhookParseResult = { ok: true; signal: WebhookSignal } | WebhookParseError;

const fail = (field: string, error: string): WebhookParseError => ({ ok: false, field, error });

function parseTimestamp(value: unknown): number | null | undefined {
  if (value === undefined || value === null || value === "") return null;
  if (typeof value === "number" && Number.isFinite(value))
    return value < 1e12 ? Math.round(value * 1000) : Math.round(value);
  if (typeof value === "string") {
    const trimmed = value.trim();
    if (/^\d+(\.\d+)?$/.test(trimmed)) return parseTimestamp(Number(trimmed));
    const ms = Date.parse(trimmed);
    if (Number.isFinite(ms)) return ms;
  }
  return undefined;
}

function positiveDecimal(value: unknown, field: string, maxValue: string): string | WebhookParseError {
  if (value === undefined || value === null || value === "") return fail(field, `${field} is required`);
  if (typeof value !== "number" && typeof value !== "string") return fail(field, `${field} must be a number`);
  const parsed = parseDecimal(value);
  if (parsed === null) return fail(field, `${field} must be a number`);
  if (D(parsed).lte(0)) return fail(field, `${field} must be greater than 0`);
  if (D(parsed).gt(maxValue)) return fail(field, `${field} is too large`);
  return parsed;
}

/**
 * `strict`: only the products' own symbols (BTC-PERP ...) are accepted, no ticker mapping
 * (Webhook Config's "Strict ticker mapping", issue 11): an alert for BTCUSD on a chart of
 * another instrument is refused instead of trading BTC-PERP.
 */
export function parseWebhookSignal(
  body: Record<string, unknown>,
  options: { strict?: boolean } = {},
): WebhookParseResult {
  const action = typeof body.action === "string" ? body.action.trim().toLowerCase() : undefined;
  if (!body.action) return fail("action", "action is required");
  if (action !== "buy" && action !== "sell") return fail("action", "action must be buy or sell");

  if (body.symbol === undefined || body.symbol === null || body.symbol === "")
    return fail("symbol", "symbol is required");
  if (typeof body.symbol !== "string") return fail("symbol", "symbol must be a string");
  const product = options.strict
    ? isKnownSymbol(body.symbol.trim().toUpperCase())
      ? resolveSymbol(body.symbol)
      : null
    : resolveSymbol(body.symbol);
  if (!product) {
    return fail(
      "symbol",
      options.strict
        ? `symbol ${body.symbol.slice(0, 40)} is not one of ${symbolsText()} (strict ticker mapping is on)`
        : `symbol ${body.symbol.slice(0, 40)} is not supported (${symbolsText()})`,
    );
  }

  const quantity = positiveDecimal(body.quantity, "quantity", MAX_QUANTITY);
  if (typeof quantity !== "string") return quantity;

  const rawType = body.order_type ?? body.orderType;
  if (rawType === undefined || rawType === null || rawType === "") return fail("order_type", "order_type is required");
  const orderType = typeof rawType === "string" ? rawType.trim().toLowerCase() : undefined;
  if (orderType !== "market" && orderType !== "limit") return fail("order_type", "order_type must be market or limit");

  let price: string | null = null;
  if (orderType === "limit" || (body.price !== undefined && body.price !== null && body.price !== "")) {
    const parsed = positiveDecimal(body.price, "price", MAX_PRICE);
    if (typeof parsed !== "string") {
      if (orderType === "limit")
        return parsed.error === "price is required" ? fail("price", "price is required for limit orders") : parsed;
      return parsed;
    }
    price = parsed;
  }

  const stamped = parseTimestamp(body.timestamp);
  if (stamped === undefined) return fail("timestamp", "timestamp must be an ISO date or epoch time");
  // The alert's fire time: `timestamp`, else `timenow` ({{timenow}}), the one the Alert template
  // builder sends (app/core/alerts/template.ts): either arms the late-entry guard
  // (docs/decisions/005-signal-handling.md). A `timenow` that does not parse is no time, as on
  // the latency timeline (parseFireTime).
  const timestamp = stamped ?? parseFireTime(body.timenow);

  if (body.strategy !== undefined && body.strategy !== null && typeof body.strategy !== "string") {
    return fail("strategy", "strategy must be a string");
  }
  const rawId = body.alert_id ?? body.id;
  const scalar = (v: unknown) => (typeof v === "string" || typeof v === "number" ? String(v).trim() : "");
  // A strategy order's id ({{strategy.order.id}}) repeats across bars: with its bar ({{time}}) it names one alert.
  const orderKey = scalar(body.order_id) ? `order:${scalar(body.order_id)}@${scalar(body.bar_time)}` : null;
  const alertId =
    typeof rawId === "string" || typeof rawId === "number"
      ? String(rawId).slice(0, 100)
      : orderKey
        ? orderKey.slice(0, 100)
        : null;

  const target = parsePositionTarget(body);
  if (target && "ok" in target) return target;

  return {
    ok: true,
    signal: {
      action,
      symbol: product.symbol,
      product,
      quantity,
      orderType,
      price,
      timestamp,
      strategy: typeof body.strategy === "string" ? body.strategy.slice(0, 255) : null,
      alertId,
      target,
    },
  };
}
