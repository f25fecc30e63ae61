// The filters of the Activity Logs screen and of GET /api/logs as URL query parameters
// (issue 13): from/to (a day YYYY-MM-DD or an ISO time), type, level, strategy and q (text).
// Shared by the screen's GET form, its Older link, the CSV export link and the API.

export interface LogQueryFilters {
  from: string;
  to: string;
  type: string;
  level: string;
  strategy: string;
  q: string;
}

export const LOG_QUERY_KEYS = ["from", "to", "type", "level", "strategy", "q"] as const;

/** No filter: every entry. */
export const NO_LOG_QUERY: LogQueryFilters = { from: "", to: "", type: "", level: "", strategy: "", q: "" };

export function parseLogQuery(params: URLSearchParams): LogQueryFilters {
  const get = (name: string, max: number) => (params.get(name) ?? "").trim().slice(0, max);
  return {
    from: get("from", 40),
    to: get("to", 40),
    type: get("type", 40),
    level: get("level", 20),
    strategy: get("strategy", 40),
    q: get("q", 200),
  };
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A bound as epoch ms: a day is its UTC midnight, and a day as `to` includes that whole day
 * (the bound is the next midnight, exclusive). Anything unreadable is no bound.
 */
export function boundMs(value: string, end: boolean): number | undefined {
  if (!value) return undefined;
  const ms = Date.parse(DAY.test(value) ? `${value}T00:00:00Z` : value);
  if (!Number.isFinite(ms)) return undefined;
  return end && DAY.test(value) ? ms + 86_400_000 : ms;
}

/** The database query's filter part (db/queries/activity-logs.ts ActivityLogQuery). */
export function logDbFilters(filters: LogQueryFilters) {
  return {
    type: filters.type || undefined,
    level: filters.level || undefined,
    strategy: filters.strategy || undefined,
    q: filters.q || undefined,
    fromMs: boundMs(filters.from, false),
    toMs: boundMs(filters.to, true),
  };
}

/** The non-empty filters (and any extra parameters) as a query string, without "?". */
export function logQueryString(filters: LogQueryFilters, extra: Record<string, string | number> = {}): string {
  const params = new URLSearchParams();
  for (const key of LOG_QUERY_KEYS) if (filters[key]) params.set(key, filters[key]);
  for (const [key, value] of Object.entries(extra)) params.set(key, String(value));
  return params.toString();
}

export const hasLogQuery = (filters: LogQueryFilters) => LOG_QUERY_KEYS.some((key) => filters[key] !== "");
