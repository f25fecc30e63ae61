// Pure helpers of the activity log panel (docs/spec/screens.md Dashboard/Logs, api.md#shapes, figures.md#defaults-and-limits): the query
// URL, the data preview (at most 3 entries), the CSV export and its file name.
import type { ActivityLog, LogLevel } from "#app/core/types/activity-logs.ts";
import { toCsv } from "#app/core/format.ts";
import { DATA_PREVIEW_MAX, type LogLine, previewValue } from "#app/core/dashboard-view.ts";

export type { ActivityLog, LogLevel, LogLine };
export { DATA_PREVIEW_MAX, previewValue };

/** The log types the server writes (db/queries/activity-logs.ts callers). */
export const LOG_TYPES = ["trade", "signal", "system", "auth", "webhook"] as const;
export const LOG_LEVELS = ["error", "warning", "success", "info"] as const satisfies readonly LogLevel[];

export interface LogFilters {
  /** "" = any type */
  type: string;
  /** "" = any level */
  level: string;
}

export const NO_FILTERS: LogFilters = { type: "", level: "" };

export const hasFilters = (filters: LogFilters) => Boolean(filters.type || filters.level);

/** GET /api/logs?limit=..&type=..&level=.. (empty filters are left out). */
export function logsUrl(limit: number, filters: LogFilters = NO_FILTERS): string {
  const params = new URLSearchParams({ limit: String(limit) });
  if (filters.type) params.set("type", filters.type);
  if (filters.level) params.set("level", filters.level);
  return `/api/logs?${params}`;
}

/** Chip colour per level: error, warning and success have theirs; info is neutral. */
export function levelColor(level: string): "error" | "warning" | "success" | "default" {
  return level === "error" || level === "warning" || level === "success" ? level : "default";
}

/**
 * At most `max` key/value entries of a log's data, and how many more there are (`dropped`: the
 * entries a first paint's LogLine left out, app/core/dashboard-view.ts).
 */
export function dataPreview(data: Record<string, unknown> | null | undefined, max = DATA_PREVIEW_MAX, dropped = 0) {
  const all =
    data && typeof data === "object" && !Array.isArray(data)
      ? Object.entries(data).filter(([, v]) => v !== undefined)
      : [];
  return {
    entries: all.slice(0, max).map(([key, value]) => ({ key, value: previewValue(value) })),
    more: Math.max(0, all.length - max) + dropped,
  };
}

/** Newest first: by creation time, then by id (the API already answers in this order). */
export function newestFirst<T extends ActivityLog>(logs: T[]): T[] {
  return [...logs].sort((a, b) => {
    const byTime = Date.parse(b.createdAt) - Date.parse(a.createdAt);
    return Number.isFinite(byTime) && byTime !== 0 ? byTime : b.id - a.id;
  });
}

export const CSV_HEADER = ["Timestamp", "Type", "Level", "Message", "Data"];

/** Rows of the export: ISO timestamp, type, level, message, and the data object as JSON. */
export function activityLogCsvRows(logs: ActivityLog[]): string[][] {
  return logs.map((log) => [log.createdAt, log.type, log.level, log.message, JSON.stringify(log.data ?? {})]);
}

export const activityLogCsv = (logs: ActivityLog[]) => toCsv(CSV_HEADER, activityLogCsvRows(logs));

/** activity-logs-YYYY-MM-DD.csv, with the local date of the export. */
export function activityLogFileName(now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `activity-logs-${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}.csv`;
}

/**
 * A time that reads the same on the server and in the browser before hydration
 * ("2025-01-31 14:05:09 UTC"); after hydration the panel shows the browser's locale.
 */
export function utcTimeText(iso: string | null | undefined): string {
  if (!iso) return "—";
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return "—";
  return `${at.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}
