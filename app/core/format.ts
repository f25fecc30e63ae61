// Display formats of docs/spec/screens.md#states and figures.md#defaults-and-limits, in one place for every screen. Values arrive as
// decimal strings and are formatted without passing through floats where it matters.
import { D, toFixed } from "#app/core/decimal.ts";

const safe = (value: string | number | null | undefined) =>
  value !== null && value !== undefined && value !== "" && !Number.isNaN(Number(value));

/** Prices on the dashboard and positions: 4 decimals. */
export const formatPrice = (v: string | number | null | undefined) => (safe(v) ? toFixed(String(v), 4) : "—");
/** Balances: 8 decimals. */
export const formatBalance = (v: string | number | null | undefined) => (safe(v) ? toFixed(String(v), 8) : "—");
/** P&L: 2 decimals, with a sign for gains. */
export const formatPnl = (v: string | number | null | undefined) => {
  if (!safe(v)) return "—";
  const fixed = toFixed(String(v), 2);
  return D(String(v)).gt(0) ? `+${fixed}` : fixed;
};
/** Quantities: 4 decimals. */
export const formatQuantity = (v: string | number | null | undefined) => (safe(v) ? toFixed(String(v), 4) : "—");
/** A fraction (0.005) as a percent with 1 decimal ("0.5%"): stop-loss offsets. */
export const formatFractionPercent = (v: string | number | null | undefined, decimals = 1) =>
  safe(v) ? `${toFixed(D(String(v)).times(100), decimals)}%` : "—";
/** A number that already is a percent (12.345 → "12.35%"). */
export const formatPercent = (v: string | number | null | undefined, decimals = 2) =>
  safe(v) ? `${toFixed(String(v), decimals)}%` : "—";
/** Profit factor: 'N/A' when null, else 1 decimal. */
export const formatProfitFactor = (v: string | number | null | undefined) => (safe(v) ? toFixed(String(v), 1) : "N/A");
/** Market prices: two decimals at 1 or above, eight below 1. */
export const formatMarketPrice = (v: string | number | null | undefined) => {
  if (!safe(v)) return "—";
  return D(String(v)).abs().gte(1) ? toFixed(String(v), 2) : toFixed(String(v), 8);
};
/** Volume: K from 1,000, M from 1,000,000. */
export const formatVolume = (v: string | number | null | undefined) => {
  if (!safe(v)) return "—";
  const n = D(String(v));
  if (n.abs().gte(1_000_000)) return `${toFixed(n.div(1_000_000), 2)}M`;
  if (n.abs().gte(1_000)) return `${toFixed(n.div(1_000), 2)}K`;
  return toFixed(n, 2);
};
/** Ids: first 8 characters (trades, signals, positions); order ids: first 12. */
export const shortId = (id: string | null | undefined) => (id ? id.slice(0, 8) : "—");
export const shortOrderId = (id: string | null | undefined) => (id ? id.slice(0, 12) : "—");
/** API keys: 20 characters and an ellipsis. */
export const truncateKey = (key: string) => (key.length > 20 ? `${key.slice(0, 20)}...` : key);

/** Signal age (docs/spec/screens.md#states): Just now, 1 min ago, N min ago, 1 hour ago, N hours ago, then a date. */
export function signalAge(createdAt: string | null | undefined, now = Date.now()): string {
  if (!createdAt) return "Unknown";
  const at = Date.parse(createdAt);
  if (!Number.isFinite(at)) return "Unknown";
  const minutes = Math.floor((now - at) / 60_000);
  if (minutes < 1) return "Just now";
  if (minutes === 1) return "1 min ago";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours === 1) return "1 hour ago";
  if (hours < 24) return `${hours} hours ago`;
  return new Date(at).toLocaleDateString();
}

/** The dashboard's last-signal label (docs/spec/screens.md#states). */
export function lastSignalLabel(createdAt: string | null | undefined, now = Date.now()): string {
  if (!createdAt) return "No signals yet";
  const at = Date.parse(createdAt);
  if (!Number.isFinite(at)) return "No signals yet";
  const minutes = Math.floor((now - at) / 60_000);
  if (minutes < 1) return "Just now";
  if (minutes === 1) return "1 minute ago";
  if (minutes < 60) return `${minutes} minutes ago`;
  return new Date(at).toLocaleTimeString();
}

/** avgTimeInTrade text: '0d. 0h. 0min. 0sec.' (lives in app/core, shared with the statistics). */
export { durationText } from "#app/core/duration.ts";

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? "—" : at.toLocaleString();
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/**
 * A CSV field: quoted when needed, quotes doubled. A text that a spreadsheet would run as a
 * formula (starting with = + - @, tab or CR: an alert's strategy name, a log message) gets a
 * leading apostrophe (OWASP "CSV injection"); numbers, signed ones included, stay numbers.
 */
export function csvField(value: unknown): string {
  let text =
    value === null || value === undefined ? "" : typeof value === "object" ? JSON.stringify(value) : String(value);
  if (typeof value !== "number" && /^[=+\-@\t\r]/.test(text) && !NUMBER.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const toCsv = (header: string[], rows: unknown[][]) =>
  `${[header, ...rows].map((r) => r.map(csvField).join(",")).join("\r\n")}\r\n`;

/** Offers a blob as a file download in the browser; its object URL is released after `keepMs`. */
export function downloadBlob(filename: string, blob: Blob, keepMs = 1000) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), keepMs);
}

/** Offers a text as a file download in the browser. */
export function downloadText(filename: string, text: string, type = "text/csv;charset=utf-8") {
  downloadBlob(filename, new Blob([text], { type }));
}
