// The latency timeline of an alert (issue 12): the pure part. A signal's path has seven
// moments (hops); each step is the time from one hop to the next. Shown on the signal's
// details (dashboard, Trade History) and summarised as p50 / p99 per step on Webhook Config.
// No database, no React: shared by the web, the worker, the tests and the bench.

export const HOPS = ["fired", "received", "committed", "claimed", "sent", "acked", "filled"] as const;
export type Hop = (typeof HOPS)[number];

/** What each hop means, as the screens say it. */
export const HOP_LABELS: Record<Hop, string> = {
  fired: "Fired by TradingView",
  received: "Received",
  committed: "Stored (committed)",
  claimed: "Picked up by a worker",
  sent: "Sent to the exchange",
  acked: "Accepted by the exchange",
  filled: "Fill booked",
};

/** Short names for the summary's steps ("Received → stored"). */
export const HOP_SHORT: Record<Hop, string> = {
  fired: "TradingView fired",
  received: "received",
  committed: "stored",
  claimed: "worker picked up",
  sent: "sent",
  acked: "accepted",
  filled: "fill booked",
};

/** Epoch ms per hop; null when the hop has not happened (or the alert carried no fire time). */
export type TimelineStamps = Record<Hop, number | null>;

export const EMPTY_STAMPS: TimelineStamps = {
  fired: null,
  received: null,
  committed: null,
  claimed: null,
  sent: null,
  acked: null,
  filled: null,
};

export interface TimelineStep {
  hop: Hop;
  label: string;
  /** ISO time of the hop, null while it has not happened. */
  at: string | null;
  /** Milliseconds since the previous hop that happened; null for the first or a missing hop. */
  deltaMs: number | null;
  /** Milliseconds since the first hop that happened (fired, else received). */
  sinceStartMs: number | null;
}

export interface SignalTimeline {
  signalId: string;
  steps: TimelineStep[];
  /** Received → the last hop that happened, ms. */
  totalMs: number | null;
  /** Every present hop is at or after the one before it. */
  monotonic: boolean;
  /** The last hop that happened. */
  lastHop: Hop | null;
}

/** One step of the summary: from one hop to the next. */
export const STEPS = HOPS.slice(1).map((to, i) => ({ from: HOPS[i]!, to })) as { from: Hop; to: Hop }[];

export function toTimeline(signalId: string, stamps: TimelineStamps): SignalTimeline {
  let previous: number | null = null;
  let start: number | null = null;
  let monotonic = true;
  let lastHop: Hop | null = null;
  const steps = HOPS.map((hop): TimelineStep => {
    const at = stamps[hop];
    if (at == null) return { hop, label: HOP_LABELS[hop], at: null, deltaMs: null, sinceStartMs: null };
    // TradingView's clock is not ours: a fire time ahead of receipt is clock skew, not order.
    if (previous !== null && at < previous && hop !== "received") monotonic = false;
    const step: TimelineStep = {
      hop,
      label: HOP_LABELS[hop],
      at: new Date(at).toISOString(),
      deltaMs: previous === null ? null : at - previous,
      sinceStartMs: start === null ? 0 : at - start,
    };
    if (start === null) start = at;
    previous = at;
    lastHop = hop;
    return step;
  });
  const received = stamps.received;
  const last = lastHop ? stamps[lastHop as Hop] : null;
  return {
    signalId,
    steps,
    totalMs: received != null && last != null && lastHop !== "fired" ? last - received : null,
    monotonic,
    lastHop,
  };
}

/**
 * The p-th percentile (0-100) by the nearest-rank method: the smallest value with at least
 * p % of the values at or below it. Null for no values.
 */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

export interface StepSummary {
  from: Hop;
  to: Hop;
  label: string;
  /** How many signals had both hops. */
  count: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

export interface LatencySummary {
  /** The window: signals received at or after this time. */
  since: string;
  /** Signals in the window that were looked at (the newest, up to the limit). */
  signals: number;
  steps: StepSummary[];
  /** Received → fill booked, market orders only. */
  total: Omit<StepSummary, "from" | "to"> & { from: "received"; to: "filled" };
}

const stepLabel = (from: Hop, to: Hop) =>
  `${HOP_SHORT[from][0]!.toUpperCase()}${HOP_SHORT[from].slice(1)} → ${HOP_SHORT[to]}`;

function summarise(from: Hop, to: Hop, values: number[]): StepSummary {
  return {
    from,
    to,
    label: stepLabel(from, to),
    count: values.length,
    p50Ms: percentile(values, 50),
    p99Ms: percentile(values, 99),
    maxMs: values.length ? Math.max(...values) : null,
  };
}

/**
 * p50 / p99 of each step over many signals. A step counts for a signal when both of its hops
 * happened. `restingFill` tells which signals were limit orders: their "accepted → fill"
 * step waits for the market, not for the app, so it and the total leave them out.
 */
export function summariseTimelines(
  rows: readonly { stamps: TimelineStamps; limit?: boolean }[],
  since: number,
): LatencySummary {
  const perStep = STEPS.map(() => [] as number[]);
  const totals: number[] = [];
  for (const row of rows) {
    STEPS.forEach((step, i) => {
      if (row.limit && step.to === "filled") return;
      const a = row.stamps[step.from];
      const b = row.stamps[step.to];
      if (a != null && b != null) perStep[i]!.push(b - a);
    });
    if (!row.limit && row.stamps.received != null && row.stamps.filled != null)
      totals.push(row.stamps.filled - row.stamps.received);
  }
  const total = summarise("received", "filled", totals) as LatencySummary["total"];
  return {
    since: new Date(since).toISOString(),
    signals: rows.length,
    steps: STEPS.map((step, i) => summarise(step.from, step.to, perStep[i]!)),
    total,
  };
}

/** A duration for the screens: "0.8 ms", "12 ms", "1.24 s", "3 min 5 s". */
export function formatMs(ms: number | null): string {
  if (ms === null) return "—";
  const sign = ms < 0 ? "-" : "";
  const a = Math.abs(ms);
  if (a < 10) return `${sign}${Number.isInteger(a) ? a : a.toFixed(1)} ms`;
  if (a < 1000) return `${sign}${Math.round(a)} ms`;
  if (a < 60_000) return `${sign}${(a / 1000).toFixed(a < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(a / 60_000);
  if (minutes < 60) return `${sign}${minutes} min ${Math.round((a % 60_000) / 1000)} s`;
  return `${sign}${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** Parses TradingView's {{timenow}} (ISO, e.g. 2026-11-25T18:30:05Z) or an epoch (s or ms); null otherwise. */
/**
 * A fire time worth storing: a whole epoch ms within a week before and a day after `now`.
 * Anything else (1e308, year 1970 or 3000) is not TradingView's clock: no "fired" hop.
 */
export function plausibleFireTime(ms: number | null | undefined, now: number): number | null {
  if (ms == null || !Number.isSafeInteger(ms)) return null;
  return ms >= now - 7 * 86_400_000 && ms <= now + 86_400_000 ? ms : null;
}

export function parseFireTime(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value) && value > 0)
    return value < 1e12 ? Math.round(value * 1000) : Math.round(value);
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  if (!trimmed) return null;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return parseFireTime(Number(trimmed));
  const ms = Date.parse(trimmed);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * The one line a collapsed timeline shows ("Latency: 12 ms to fill booked"): the dashboard sends
 * this instead of every signal's hops, which load when a row's timeline is opened (decision 043).
 */
export function latencyLine(timeline: Pick<SignalTimeline, "totalMs" | "lastHop" | "steps">): string {
  if (timeline.totalMs === null) return "Latency";
  return `Latency: ${formatMs(timeline.totalMs)} to ${timeline.steps.find((s) => s.hop === timeline.lastHop)?.label.toLowerCase()}`;
}
