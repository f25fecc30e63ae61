// What the dashboard's first paint carries (issue 24, decision 043): each panel's rows reduced
// to the fields its screen renders (docs/spec/screens.md Dashboard), so the page's loader data
// is not the API's whole objects. The panels then poll their APIs, whose full objects have
// these fields too (a row type here is a subset of the API's shape).
import type { ActivityLog } from "./types/activity-logs.ts";
import type { Signal } from "./types/signals.ts";
import type { Trade } from "./types/trades.ts";

/** A Recent Orders row: symbol, side, quantity, price, source, status (and its reason). */
export type RecentOrder = Pick<
  Trade,
  | "id"
  | "symbol"
  | "side"
  | "quantity"
  | "executedQuantity"
  | "price"
  | "executedPrice"
  | "source"
  | "status"
  | "errorMessage"
>;

export const recentOrder = (t: RecentOrder): RecentOrder => ({
  id: t.id,
  symbol: t.symbol,
  side: t.side,
  quantity: t.quantity,
  executedQuantity: t.executedQuantity,
  price: t.price,
  executedPrice: t.executedPrice,
  source: t.source,
  status: t.status,
  errorMessage: t.errorMessage,
});

/** An Open Positions row: symbol, side, quantity, entry → current price, unrealised P&L. */
export interface PositionSummary {
  id: string;
  symbol: string;
  side: "long" | "short";
  remainingQuantity: string;
  entryPrice: string;
  currentPrice: string | null;
  unrealizedPnl: string | null;
}

export const positionSummary = (p: PositionSummary): PositionSummary => ({
  id: p.id,
  symbol: p.symbol,
  side: p.side,
  remainingQuantity: p.remainingQuantity,
  entryPrice: p.entryPrice,
  currentPrice: p.currentPrice,
  unrealizedPnl: p.unrealizedPnl,
});

/** A Signals row: its action, symbol, order type, price, the alert's fields it shows (TEST, ticker, target), status and age. */
export type SignalRow = Pick<
  Signal,
  | "id"
  | "action"
  | "symbol"
  | "orderType"
  | "price"
  | "quantity"
  | "payload"
  | "processed"
  | "status"
  | "statusReason"
  | "createdAt"
>;

/** The alert's fields a row reads: TEST, the ticker sent, a target alert's target (signal-text.ts). */
const ROW_PAYLOAD_KEYS = ["test", "symbol", "market_position", "market_position_size"] as const;

export const signalRow = (s: SignalRow): SignalRow => ({
  id: s.id,
  action: s.action,
  symbol: s.symbol,
  orderType: s.orderType,
  price: s.price,
  quantity: s.quantity,
  payload: Object.fromEntries(
    ROW_PAYLOAD_KEYS.filter((key) => s.payload?.[key] !== undefined).map((key) => [key, s.payload[key]]),
  ),
  processed: s.processed,
  status: s.status,
  statusReason: s.statusReason,
  createdAt: s.createdAt,
});

/**
 * An Activity Log line as the panel first shows it: its data cut to the preview (the first
 * `max` entries, each value as the preview's text) and `dataMore`, how many entries were left
 * out. A line with `dataMore` set is not the whole line: the CSV export fetches GET /api/logs.
 */
export type LogLine = ActivityLog & { dataMore?: number };

/** How many of a line's data entries the Activity Log previews, and each value's longest text. */
export const DATA_PREVIEW_MAX = 3;
const PREVIEW_VALUE_MAX = 60;

/** One value of the data preview as short text. */
export function previewValue(value: unknown, max = PREVIEW_VALUE_MAX): string {
  let text: string;
  if (value === null) text = "null";
  else if (value === undefined) text = "";
  else if (typeof value === "object") text = JSON.stringify(value);
  else text = String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function logPreviewLine(log: ActivityLog, max = DATA_PREVIEW_MAX): LogLine {
  const entries =
    log.data && typeof log.data === "object" && !Array.isArray(log.data)
      ? Object.entries(log.data).filter(([, v]) => v !== undefined)
      : [];
  return {
    ...log,
    data: Object.fromEntries(entries.slice(0, max).map(([key, value]) => [key, previewValue(value)])),
    dataMore: Math.max(0, entries.length - max),
  };
}
