// The Activity Log panel (docs/spec/screens.md Dashboard and Logs, api.md#errors, figures.md#defaults-and-limits): newest entries first with
// a level chip, type, message, time and a data preview of at most 3 entries; a Filter dialog
// (type, level, Clear All, Apply) that queries GET /api/logs; a Clear filters link; Export to
// CSV of what is shown. Server-rendered entries seed the query, so it renders without
// JavaScript; live `activity_log` messages refresh it through the query registry.
import Download from "@mui/icons-material/Download";
import FilterList from "@mui/icons-material/FilterList";
import Alert from "@mui/material/Alert";
import Badge from "@mui/material/Badge";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import CircularProgress from "@mui/material/CircularProgress";
import Link from "@mui/material/Link";
import Paper from "@mui/material/Paper";
import Typography from "@mui/material/Typography";
import { useCallback, useEffect, useState } from "react";
import { errorText, getJson } from "#app/utils/api-client.ts";
import { downloadText, formatDateTime } from "#app/core/format.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { useToast } from "../toaster.tsx";
import { S } from "./activity-log-panel.css.ts";
import {
  type ActivityLog,
  DATA_PREVIEW_MAX,
  type LogFilters,
  type LogLine,
  NO_FILTERS,
  activityLogCsv,
  activityLogFileName,
  dataPreview,
  hasFilters,
  levelColor,
  logsUrl,
  newestFirst,
  utcTimeText,
} from "./activity-log-utils.ts";
import { LogFilterDialog } from "./log-filter-dialog.tsx";
import { NO_LOG_QUERY, logQueryString } from "./log-query.ts";
import { StatusLabel } from "../trade-status-chip.tsx";

export const DASHBOARD_LOG_LIMIT = 20;
export const DASHBOARD_LOG_POLL_MS = 90_000;
export const LOGS_SCREEN_LIMIT = 100;
export const LOGS_SCREEN_POLL_MS = 30_000;

const PANEL = { p: 2 } as const;

// The panel and its widgets are MUI's (Paper, Buttons, the filters' Chips, the Filter dialog);
// an entry's level and text are plain elements with static classes (./activity-log-panel.css.ts, app/styles/rows.css.ts)
// instead of a Typography and Box each: a styled component per element is what server
// rendering the Logs screen's 100 entries costs (decision 043).

export interface ActivityLogPanelProps {
  /** Server-rendered entries for the unfiltered query (GET /api/logs?limit={limit}); the dashboard's carry only their data preview (LogLine). */
  initialLogs?: LogLine[];
  /** How many entries to ask for: 20 on the dashboard, 100 on the Logs screen. */
  limit?: number;
  /** Polling cadence: 90 s on the dashboard, 30 s on the Logs screen. */
  refetchIntervalMs?: number;
  title?: string;
  /** Only the lines of this strategy (decision 027): an id or "default". */
  strategy?: string;
}

export function ActivityLogPanel({
  initialLogs,
  limit = DASHBOARD_LOG_LIMIT,
  refetchIntervalMs = DASHBOARD_LOG_POLL_MS,
  title = "Activity Log",
  strategy,
}: ActivityLogPanelProps) {
  const [filters, setFilters] = useState<LogFilters>(NO_FILTERS);
  // The server's entries only seed the first, unfiltered view; later views fetch fresh.
  const [seeded, setSeeded] = useState(initialLogs !== undefined);
  const url = strategy
    ? `${logsUrl(limit, filters)}&strategy=${encodeURIComponent(strategy)}`
    : logsUrl(limit, filters);
  const applyFilters = useCallback((next: LogFilters) => {
    setSeeded(false);
    setFilters(next);
  }, []);
  return (
    <PanelBody
      // A new query (new filters) starts from a clean state: loading, then its own answer.
      key={url}
      url={url}
      title={title}
      filters={filters}
      onFiltersChange={applyFilters}
      initialLogs={seeded && !hasFilters(filters) ? initialLogs : undefined}
      refetchIntervalMs={refetchIntervalMs}
      strategy={strategy}
    />
  );
}

function PanelBody({
  url,
  title,
  filters,
  onFiltersChange,
  initialLogs,
  refetchIntervalMs,
  strategy,
}: {
  url: string;
  title: string;
  filters: LogFilters;
  onFiltersChange: (filters: LogFilters) => void;
  initialLogs: LogLine[] | undefined;
  refetchIntervalMs: number;
  strategy?: string;
}) {
  const toast = useToast();
  const { data, error, isLoading, refetch } = useApiQuery<LogLine[]>(url, {
    initialData: initialLogs,
    refetchIntervalMs,
  });
  const [dialogOpen, setDialogOpen] = useState(false);
  const [retrying, setRetrying] = useState(false);
  // Times render in UTC on the server and before hydration, then in the browser's locale.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);

  const logs = data ? newestFirst(data) : [];
  const filtered = hasFilters(filters);
  const activeCount = (filters.type ? 1 : 0) + (filters.level ? 1 : 0);
  const errorMessage = error
    ? `Failed to load activity logs: ${errorText(error, "Unknown error") || "Unknown error"}`
    : null;

  const retry = async () => {
    setRetrying(true);
    try {
      await refetch();
    } finally {
      setRetrying(false);
    }
  };

  const exportCsv = async () => {
    // The first paint's lines carry only their data preview (LogLine): the export reads the
    // whole lines of the same query first.
    let lines: ActivityLog[] = logs;
    if (logs.some((log) => log.dataMore !== undefined)) {
      try {
        lines = newestFirst(await getJson<ActivityLog[]>(url));
      } catch (error) {
        toast({
          title: "Export failed",
          description: errorText(error, "Could not load the logs"),
          variant: "destructive",
        });
        return;
      }
    }
    if (lines.length === 0) {
      toast({
        title: "No logs to export",
        description: "Apply different filters or wait for logs to be generated",
      });
      return;
    }
    downloadText(activityLogFileName(), activityLogCsv(lines));
    toast({
      title: "Export successful",
      description: `Exported ${lines.length} logs as CSV file`,
    });
  };

  // Without JavaScript (and until hydration) Filter leads to the Activity Logs screen, whose
  // filters are a plain form, and Export to CSV is a link to GET /api/logs?format=csv (every
  // matching entry); with JavaScript, the Filter dialog and the lines shown, as before.
  const plain = { ...NO_LOG_QUERY, strategy: strategy ?? "" };
  const filterButton = (
    <Button
      size="small"
      variant="outlined"
      startIcon={<FilterList />}
      href={hydrated ? undefined : `/logs${strategy ? `?${logQueryString(plain)}` : ""}`}
      onClick={() => setDialogOpen(true)}
      data-testid="activity-log-filter-button"
    >
      Filter
    </Button>
  );

  return (
    <Paper variant="outlined" sx={PANEL} data-testid="activity-log-panel" data-filtered={filtered ? "true" : "false"}>
      <div className={S.bar}>
        <Typography variant="h3" component="h2">
          {title}
        </Typography>
        {data ? (
          <Typography variant="caption" color="text.secondary" data-testid="activity-log-count">
            {`${logs.length} ${logs.length === 1 ? "entry" : "entries"}, newest first`}
          </Typography>
        ) : null}
        <div className={S.grow} />
        {activeCount > 0 ? (
          <Badge color="primary" badgeContent={activeCount}>
            {filterButton}
          </Badge>
        ) : (
          <span className={S.badge}>{filterButton}</span>
        )}
        <Button
          size="small"
          variant="outlined"
          startIcon={<Download />}
          href={`/api/logs?${logQueryString({ ...plain, type: filters.type, level: filters.level }, { format: "csv" })}`}
          download
          onClick={(event: React.MouseEvent) => {
            if (!hydrated) return;
            event.preventDefault();
            void exportCsv();
          }}
          data-testid="activity-log-export"
        >
          Export to CSV
        </Button>
      </div>

      {filtered ? (
        <div className={S.bar} data-testid="activity-log-active-filters">
          {filters.type ? <Chip size="small" variant="outlined" label={`Type: ${filters.type}`} /> : null}
          {filters.level ? <Chip size="small" variant="outlined" label={`Level: ${filters.level}`} /> : null}
          <Link
            component="button"
            type="button"
            variant="body2"
            onClick={() => onFiltersChange(NO_FILTERS)}
            data-testid="activity-log-clear-filters"
          >
            Clear filters
          </Link>
        </div>
      ) : null}

      {errorMessage ? (
        <Alert
          severity="error"
          data-testid="activity-log-error"
          sx={{ mb: data ? 1.5 : 0 }}
          action={
            <Button color="inherit" size="small" onClick={retry} disabled={retrying} data-testid="activity-log-retry">
              {retrying ? "Retrying..." : "Retry"}
            </Button>
          }
        >
          {errorMessage}
        </Alert>
      ) : null}

      {!data && isLoading ? (
        <div className={S.loading} data-testid="activity-log-loading">
          <CircularProgress size={20} />
          <Typography color="text.secondary">Loading activity logs...</Typography>
        </div>
      ) : null}

      {data && logs.length === 0 ? (
        <div className={S.empty} data-testid="activity-log-empty">
          <Typography>{filtered ? "No logs match these filters" : "No activity yet"}</Typography>
          <Typography variant="body2" color="text.secondary">
            {filtered
              ? "Apply different filters or clear them."
              : "Signals, orders, logins and system events appear here."}
          </Typography>
        </div>
      ) : null}

      {logs.length > 0 ? (
        <ul className={S.list} data-testid="activity-log-list">
          {logs.map((log) => (
            <LogEntry key={log.id} log={log} hydrated={hydrated} />
          ))}
        </ul>
      ) : null}

      <LogFilterDialog
        open={dialogOpen}
        filters={filters}
        onClose={() => setDialogOpen(false)}
        onApply={(next) => {
          setDialogOpen(false);
          onFiltersChange(next);
        }}
      />
    </Paper>
  );
}

export function LogEntry({ log, hydrated }: { log: LogLine; hydrated: boolean }) {
  const preview = dataPreview(log.data, DATA_PREVIEW_MAX, log.dataMore);
  return (
    <li className={S.entry} data-testid="activity-log-entry" data-level={log.level} data-type={log.type}>
      <div className={S.head}>
        <StatusLabel label={log.level.toUpperCase()} color={levelColor(log.level)} testId="activity-log-level" />
        <span className={`pd-caption pd-muted ${S.type}`} data-testid="activity-log-type">
          {log.type}
        </span>
        <div className={S.grow} />
        <time
          className="pd-caption pd-muted"
          dateTime={log.createdAt}
          title={log.createdAt}
          data-testid="activity-log-time"
        >
          {hydrated ? formatDateTime(log.createdAt) : utcTimeText(log.createdAt)}
        </time>
      </div>
      <p className={`pd-body2 ${S.message}`} data-testid="activity-log-message">
        {log.message}
      </p>
      {preview.entries.length > 0 ? (
        <div className={S.data} data-testid="activity-log-data">
          {preview.entries.map((entry) => (
            <span key={entry.key} className={S.dataEntry} data-testid="activity-log-data-entry">
              <span>{entry.key}</span>
              {`: ${entry.value}`}
            </span>
          ))}
          {preview.more > 0 ? (
            <span className="pd-caption pd-muted" data-testid="activity-log-data-more">
              {`+${preview.more} more`}
            </span>
          ) : null}
        </div>
      ) : null}
    </li>
  );
}
