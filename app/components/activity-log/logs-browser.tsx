// The Activity Logs screen's body (issue 13): a GET form of filters (date range, type, level,
// strategy, text), every matching entry page by page (cursor `before=<id>`, newest first),
// an "Older" link that works without JavaScript and loads in place with it, an Export to CSV
// link for the whole filtered range (GET /api/logs?format=csv), and a list that fills the
// viewport below the header and scrolls inside. With JavaScript the newest page also polls
// (30 s) and follows live activity_log messages, as the panel does.
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import Paper from "@mui/material/Paper";
import Typography from "@mui/material/Typography";
import { LogEntry } from "./activity-log-panel.tsx";
import { type ActivityLog, LOG_LEVELS, LOG_TYPES } from "./activity-log-utils.ts";
import { type LogQueryFilters, hasLogQuery, logQueryString } from "./log-query.ts";
import { StrategyOptions } from "#app/components/strategies/strategy-filter.tsx";

const useIsoLayoutEffect = typeof window === "undefined" ? useEffect : useLayoutEffect;

const field: React.CSSProperties = {
  padding: "6px 8px",
  font: "inherit",
  borderRadius: 6,
  background: "transparent",
  color: "inherit",
  border: "1px solid rgba(127,127,127,.5)",
  maxWidth: "100%",
};
const label: React.CSSProperties = { display: "flex", flexDirection: "column", gap: 4, fontSize: 13 };

export function LogsBrowser({
  logs,
  nextCursor,
  before,
  filters,
  strategies,
  limit,
  refetchIntervalMs,
}: {
  logs: ActivityLog[];
  nextCursor: number | null;
  before: number | null;
  filters: LogQueryFilters;
  strategies: { id: string; name: string }[] | null | undefined;
  limit: number;
  refetchIntervalMs: number;
}) {
  const hydrated = useHydrated();
  const [older, setOlder] = useState<ActivityLog[]>([]);
  const [cursor, setCursor] = useState<number | null>(nextCursor);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [olderError, setOlderError] = useState<string | null>(null);
  // The newest page follows new entries; a page further back (before=) stays as it is.
  const head = useApiQuery<ActivityLog[]>(`/api/logs?${logQueryString(filters, { limit })}`, {
    initialData: before ? undefined : logs,
    refetchIntervalMs,
    enabled: !before,
  });
  const byId = new Map<number, ActivityLog>();
  for (const log of [...(before ? [] : (head.data ?? [])), ...logs, ...older])
    if (!byId.has(log.id)) byId.set(log.id, log);
  const shown = [...byId.values()].sort((a, b) => b.id - a.id);

  const listRef = useRef<HTMLUListElement>(null);
  // The list takes the rest of the viewport (CSS gives an estimate without JavaScript).
  useIsoLayoutEffect(() => {
    const fit = () => {
      const list = listRef.current;
      if (!list) return;
      const top = list.getBoundingClientRect().top + window.scrollY;
      list.style.height = `${Math.max(240, window.innerHeight - top - 24)}px`;
    };
    fit();
    window.addEventListener("resize", fit);
    return () => window.removeEventListener("resize", fit);
  }, []);

  const olderHref = (id: number) => `/logs?${logQueryString(filters, { before: id })}`;
  const loadOlder = async (event: React.MouseEvent) => {
    if (cursor === null || !hydrated) return;
    event.preventDefault();
    setLoadingOlder(true);
    setOlderError(null);
    try {
      const response = await fetch(`/api/logs?${logQueryString(filters, { limit, before: cursor })}`, {
        headers: { Accept: "application/json" },
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const page = (await response.json()) as ActivityLog[];
      setOlder((prev) => [...prev, ...page]);
      const next = response.headers.get("X-Next-Cursor");
      setCursor(next ? Number(next) : null);
    } catch (error) {
      setOlderError(`Failed to load activity logs: ${error instanceof Error ? error.message : "Unknown error"}`);
    } finally {
      setLoadingOlder(false);
    }
  };

  const csvHref = `/api/logs?${logQueryString(filters, { format: "csv" })}`;
  return (
    <Paper
      variant="outlined"
      sx={PANEL}
      data-testid="activity-log-panel"
      data-filtered={hasLogQuery(filters) ? "true" : "false"}
    >
      <form
        method="get"
        action="/logs"
        data-testid="logs-filters"
        style={{ display: "flex", gap: 12, alignItems: "flex-end", flexWrap: "wrap", marginBottom: 12 }}
      >
        <label style={label}>
          From
          <input type="date" name="from" defaultValue={filters.from} style={field} data-testid="logs-filter-from" />
        </label>
        <label style={label}>
          To
          <input type="date" name="to" defaultValue={filters.to} style={field} data-testid="logs-filter-to" />
        </label>
        <FilterSelect label="Type" name="type" value={filters.type} all="All types" options={LOG_TYPES} />
        <FilterSelect label="Level" name="level" value={filters.level} all="All levels" options={LOG_LEVELS} />
        {strategies && strategies.length > 0 ? (
          <label style={label} data-testid="logs-strategy-filter">
            Strategy
            <select name="strategy" defaultValue={filters.strategy} style={field}>
              <StrategyOptions strategies={strategies} />
            </select>
          </label>
        ) : null}
        <label style={{ ...label, flex: "1 1 160px" }}>
          Search
          <input
            type="search"
            name="q"
            defaultValue={filters.q}
            placeholder="Text in the message"
            style={field}
            data-testid="logs-filter-q"
          />
        </label>
        <button type="submit" style={{ ...field, cursor: "pointer" }} data-testid="activity-log-filter-button">
          Filter
        </button>
        {hasLogQuery(filters) ? (
          <a href="/logs" data-testid="activity-log-clear-filters" style={{ alignSelf: "center" }}>
            Clear filters
          </a>
        ) : null}
        <a href={csvHref} download style={{ alignSelf: "center" }} data-testid="activity-log-export">
          Export to CSV
        </a>
      </form>
      <Typography variant="caption" color="text.secondary" component="p" data-testid="activity-log-count" sx={COUNT}>
        {`${shown.length} ${shown.length === 1 ? "entry" : "entries"} shown, newest first${before ? ` (older than #${before}; ` : ""}`}
        {before ? <a href={`/logs?${logQueryString(filters)}`}>back to newest</a> : null}
        {before ? ")" : ""}
      </Typography>
      <ul
        ref={listRef}
        data-testid="activity-log-list"
        style={{
          listStyle: "none",
          margin: 0,
          padding: 0,
          height: "calc(100dvh - 340px)",
          minHeight: 240,
          overflowY: "auto",
          borderTop: "1px solid rgba(127,127,127,.3)",
        }}
      >
        {shown.length === 0 ? (
          <li data-testid="activity-log-empty" style={{ padding: "32px 0", textAlign: "center" }}>
            <Typography>{hasLogQuery(filters) ? "No logs match these filters" : "No activity yet"}</Typography>
          </li>
        ) : (
          shown.map((log) => <LogEntry key={log.id} log={log} hydrated={hydrated} />)
        )}
        {cursor !== null ? (
          <li style={{ padding: "12px 0", textAlign: "center" }}>
            <a href={olderHref(cursor)} onClick={loadOlder} data-testid="logs-older" data-cursor={cursor} rel="next">
              {loadingOlder ? "Loading..." : "Older"}
            </a>
          </li>
        ) : null}
        {olderError ? (
          <li role="alert" data-testid="activity-log-error" style={{ padding: 8 }}>
            {olderError}
          </li>
        ) : null}
      </ul>
    </Paper>
  );
}

const PANEL = { p: 2 } as const;
const COUNT = { mb: 1 } as const;

/** A labelled native select of one filter: "all" first (the empty value), then each option. */
function FilterSelect({
  label: text,
  name,
  value,
  all,
  options,
}: {
  label: string;
  name: string;
  value: string;
  all: string;
  options: readonly string[];
}) {
  return (
    <label style={label}>
      {text}
      <select name={name} defaultValue={value} style={field} data-testid={`logs-filter-${name}`}>
        <option value="">{all}</option>
        {options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    </label>
  );
}
