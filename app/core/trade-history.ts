// Pure helpers of the Trade History screen (docs/spec/screens.md Trade History, screens.md#states, figures.md#defaults-and-limits): the filters
// (symbol text, status), the summary counts, the P/L and entry cells, and the
// trade-history.csv export (SPEC's Date, Symbol, Side, Type, Quantity, Price, Status,
// Source, then Fee, Realized P&L net of fees, Trade ID, Order ID).
import { D } from "#app/core/decimal.ts";
import type { Trade } from "#app/core/types/trades.ts";
import { toCsv } from "#app/core/format.ts";
import type { SignalTimeline } from "#app/core/timeline.ts";

export type { Trade };

/** GET /api/trades/{id}/details (docs/spec/api.md#shapes "Trade details response"). */
export interface TradeDetails {
  trade: Trade;
  relatedSignal: { id: string; action: "buy" | "sell"; createdAt: string } | null;
  relatedTrades: Trade[];
  metrics: { totalValue: string; estimatedFees: string; executedQuantity: string };
  /** The related signal's latency timeline (issue 12), null without one. */
  timeline?: SignalTimeline | null;
}

export const TRADE_HISTORY_LIMIT = 50;
export const TRADES_POLL_MS = 30_000;
export const SIGNALS_POLL_MS = 60_000;
export const PNL_POLL_MS = 30_000;
export const DETAILS_POLL_MS = 10_000;
export const signalsUrl = `/api/signals?limit=${TRADE_HISTORY_LIMIT}`;
export const detailsUrl = (id: string) => `/api/trades/${encodeURIComponent(id)}/details`;

export const STATUS_FILTERS = [
  { value: "all", label: "All" },
  { value: "executed", label: "Executed" },
  { value: "pending", label: "Pending" },
  { value: "failed", label: "Failed" },
] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number]["value"];

export interface TradeFilters {
  symbol: string;
  status: StatusFilter;
}
export const NO_FILTERS: TradeFilters = { symbol: "", status: "all" };
export const hasFilters = (f: TradeFilters) => f.symbol.trim() !== "" || f.status !== "all";

/** The filters of a URL (?symbol=&status=): how the screen filters without JavaScript. */
export function filtersFromParams(params: URLSearchParams): TradeFilters {
  const status = params.get("status") ?? "all";
  return {
    symbol: (params.get("symbol") ?? "").slice(0, 40),
    status: STATUS_FILTERS.some((s) => s.value === status) ? (status as StatusFilter) : "all",
  };
}

/**
 * The filters as the database query takes them (db/queries/trades.ts TradeFilterQuery): the
 * symbol text is a substring (`search`), "all" is no status. The rows, their pages and the
 * header's totals all read this one filter (issue 22).
 */
export function tradeDbFilter(
  filters: TradeFilters,
  strategy = "",
): { search?: string; status?: string; strategy?: string } {
  return {
    search: filters.symbol.trim() || undefined,
    status: filters.status === "all" ? undefined : filters.status,
    strategy: strategy || undefined,
  };
}

/** The API's query string (GET /api/trades, /api/trades/summary, /api/closed-trades-pnl) of the screen's filters, without "?". */
export function tradeApiQuery(
  filters: TradeFilters,
  strategy = "",
  extra: Record<string, string | number> = {},
): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(extra)) params.set(key, String(value));
  const f = tradeDbFilter(filters, strategy);
  if (f.search) params.set("search", f.search);
  if (f.status) params.set("status", f.status);
  if (f.strategy) params.set("strategy", f.strategy);
  return params.toString();
}

/** The screen's own URL query (?symbol=&status=&strategy=&before=), without "?": the no-JavaScript form's and the Older link's. */
export function tradeScreenQuery(filters: TradeFilters, strategy = "", extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  if (filters.symbol.trim()) params.set("symbol", filters.symbol.trim());
  if (filters.status !== "all") params.set("status", filters.status);
  if (strategy) params.set("strategy", strategy);
  for (const [key, value] of Object.entries(extra)) params.set(key, value);
  return params.toString();
}

/** The header's counts for the filter: every matching order, not one page. */
export interface TradeCounts {
  total: number;
  completed: number;
  failed: number;
}

/** Filled orders: executed and completed both count (both are green, docs/spec/screens.md#states). */
export const isFilled = (t: Pick<Trade, "status">) => t.status === "executed" || t.status === "completed";

/** Symbol: case-insensitive substring; status: Executed (executed or completed), Pending, Failed. */
export function filterTrades(trades: Trade[], filters: TradeFilters): Trade[] {
  const symbol = filters.symbol.trim().toUpperCase();
  return trades.filter((t) => {
    if (symbol && !t.symbol.toUpperCase().includes(symbol)) return false;
    if (filters.status === "executed") return isFilled(t);
    if (filters.status !== "all") return t.status === filters.status;
    return true;
  });
}

/** The Total Trades, Completed and Failed cards (over the loaded trades). */
export function tradeSummary(trades: Trade[]) {
  return {
    total: trades.length,
    completed: trades.filter(isFilled).length,
    failed: trades.filter((t) => t.status === "failed").length,
  };
}

/**
 * A row's P/L: what the trade realised by closing FIFO lots, net of the fee shares (the
 * lots' entry fees and this fill's), as the worker booked it from the one P&L ledger
 * (docs/pnl.md); null for a trade that closed nothing.
 */
export function tradePnl(trade: Pick<Trade, "realizedPnl">): string | null {
  return trade.realizedPnl === null ? null : D(trade.realizedPnl).toString();
}

/** The price a trade filled at, else its limit price; null for a market order still waiting. */
export const tradePrice = (t: Pick<Trade, "executedPrice" | "price">) => t.executedPrice ?? t.price ?? null;
/** What was filled, else what was ordered. */
export const tradeQuantity = (t: Pick<Trade, "executedQuantity" | "quantity">) =>
  t.executedQuantity && D(t.executedQuantity).gt(0) ? t.executedQuantity : t.quantity;

const EXCHANGE_LABELS: Record<string, string> = { simulator: "Simulator (paper trading)", coinbase: "COINBASE" };
export const exchangeLabel = (name: string | null | undefined) =>
  name ? (EXCHANGE_LABELS[name] ?? name.toUpperCase()) : "—";

export const TRADE_HISTORY_FILE = "trade-history.csv";
/**
 * The columns of docs/spec/screens.md first, then (issue 11) what a trader reconciles with: the fee the fill
 * paid, the P&L it realised net of fees (the row's P/L on screen; empty when it closed
 * nothing), and the app's and the exchange's ids.
 */
export const TRADE_CSV_HEADER = [
  "Date",
  "Symbol",
  "Side",
  "Type",
  "Quantity",
  "Price",
  "Status",
  "Source",
  "Fee",
  "Realized P&L (net of fees)",
  "Trade ID",
  "Order ID",
];

/** One CSV row per trade, in TRADE_CSV_HEADER's order. */
export function tradeCsvRows(trades: Trade[]): string[][] {
  return trades.map((t) => [
    t.createdAt,
    t.symbol,
    t.side,
    t.orderType,
    tradeQuantity(t),
    tradePrice(t) ?? "",
    t.status,
    t.source,
    t.fee && !D(t.fee).eq(0) ? D(t.fee).toString() : isFilled(t) ? "0" : "",
    tradePnl(t) ?? "",
    t.id,
    t.orderId ?? "",
  ]);
}

export const tradeHistoryCsv = (trades: Trade[]) => toCsv(TRADE_CSV_HEADER, tradeCsvRows(trades));

/** "2025-01-31 14:05:09 UTC": the same text on the server and before hydration. */
export function utcText(iso: string | null | undefined): string {
  if (!iso) return "—";
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? "—" : `${at.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** The trade status colours of docs/spec/screens.md#states: completed and executed green, pending secondary, failed destructive, others outlined (undefined). */
export function tradeStatusColor(status: string): "success" | "secondary" | "error" | undefined {
  return status === "executed" || status === "completed"
    ? "success"
    : status === "pending"
      ? "secondary"
      : status === "failed"
        ? "error"
        : undefined;
}
