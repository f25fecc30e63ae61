// The Activity Log panel (docs/spec/screens.md Dashboard and Logs, api.md#errors, figures.md#defaults-and-limits): newest entries first with
// a level chip, type, message, time and a data preview of at most 3 entries; a Filter dialog
// (type, level, Clear All, Apply) that queries GET /api/logs; a Clear filters link; Export to
// CSV of what is shown. Server-rendered entries seed the query, so it renders without
// JavaScript; live `activity_log` messages refresh it through the query registry.
import Alert from "@mui/material/Alert";
import Badge from "@mui/material/Badge";
import Button from "@mui/material/Button";
import CircularProgress from "@mui/material/CircularProgress";
import Link from "@mui/material/Link";
import { useCallback, useEffect, useState } from "react";
import { errorText } from "#app/utils/api-client.ts";
import { downloadText, formatDateTime } from "#app/core/format.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { useToast } from "../toaster.tsx";
import { LeanChip, LeanIcon, PAPER, T, cls } from "../ui/lean.tsx";
import { LeanButton } from "../ui/lean-button.tsx";
import { S } from "./activity-log-panel.css.ts";
import {
  type ActivityLog,
  type LogFilters,
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

export const DASHBOARD_LOG_LIMIT = 20;
export const DASHBOARD_LOG_POLL_MS = 90_000;
export const LOGS_SCREEN_LIMIT = 100;
export const LOGS_SCREEN_POLL_MS = 30_000;

// The panel and its entries are plain elements with the lean classes (components/ui/lean.tsx)
// instead of an MUI Paper, Stack, Typography, Box and Chip each: a styled component per
// element is what server rendering the Logs screen's 100 entries cost (docs/benchmarks.md,
// "Pages (T5)"). The rules copy what MUI renders for them, so the panel looks the same. The
// Buttons, the Filter dialog and what only shows after hydration (the filters' Badge and Clear
// link, the error Alert, the spinner) stay MUI.
const FILTER_ICON = "M10 18h4v-2h-4zM3 6v2h18V6zm3 7h12v-2H6z";
const DOWNLOAD_ICON = "M5 20h14v-2H5zM19 9h-4V3H9v6H5l7 7z";

/** levelColor's chip colour for LeanChip ("default" is LeanChip's no colour). */
const chipColor = (level: string) => {
  const color = levelColor(level);
  return color === "default" ? undefined : color;
};

export interface ActivityLogPanelProps {
  /** Server-rendered entries for the unfiltered query (GET /api/logs?limit={limit}). */
  initialLogs?: ActivityLog[];
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
  const url = strategy ? `${logsUrl(limit, filters)}&strategy=${encodeURIComponent(strategy)}` : logsUrl(limit, filters);
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
}: {
  url: string;
  title: string;
  filters: LogFilters;
  onFiltersChange: (filters: LogFilters) => void;
  initialLogs: ActivityLog[] | undefined;
  refetchIntervalMs: number;
}) {
  const toast = useToast();
  const { data, error, isLoading, refetch } = useApiQuery<ActivityLog[]>(url, {
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
  const errorMessage = error ? `Failed to load activity logs: ${errorText(error, "Unknown error") || "Unknown error"}` : null;

  const retry = async () => {
    setRetrying(true);
    try {
      await refetch();
    } finally {
      setRetrying(false);
    }
  };

  const exportCsv = () => {
    if (logs.length === 0) {
      toast({
        title: "No logs to export",
        description: "Apply different filters or wait for logs to be generated",
      });
      return;
    }
    downloadText(activityLogFileName(), activityLogCsv(logs));
    toast({
      title: "Export successful",
      description: `Exported ${logs.length} logs as CSV file`,
    });
  };

  const filterButton = (
    <LeanButton size="small" variant="outlined" startIcon={<LeanIcon d={FILTER_ICON} />} onClick={() => setDialogOpen(true)} data-testid="activity-log-filter-button">
      Filter
    </LeanButton>
  );

  return (
    <div className={cls(PAPER.outlined, S.panel)} data-testid="activity-log-panel" data-filtered={filtered ? "true" : "false"}>
      <div className={S.bar}>
        <h2 className={T.h3}>{title}</h2>
        {data ? (
          <span className={cls(T.caption, T.muted)} data-testid="activity-log-count">
            {`${logs.length} ${logs.length === 1 ? "entry" : "entries"}, newest first`}
          </span>
        ) : null}
        <div className={S.grow} />
        {activeCount > 0 ? (
          <Badge color="primary" badgeContent={activeCount}>
            {filterButton}
          </Badge>
        ) : (
          <span className={S.badge}>{filterButton}</span>
        )}
        <LeanButton size="small" variant="outlined" startIcon={<LeanIcon d={DOWNLOAD_ICON} />} onClick={exportCsv} data-testid="activity-log-export">
          Export to CSV
        </LeanButton>
      </div>

      {filtered ? (
        <div className={S.bar} data-testid="activity-log-active-filters">
          {filters.type ? <LeanChip variant="outlined" label={`Type: ${filters.type}`} /> : null}
          {filters.level ? <LeanChip variant="outlined" label={`Level: ${filters.level}`} /> : null}
          <Link component="button" type="button" variant="body2" onClick={() => onFiltersChange(NO_FILTERS)} data-testid="activity-log-clear-filters">
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
          <p className={cls(T.body1, T.muted)}>Loading activity logs...</p>
        </div>
      ) : null}

      {data && logs.length === 0 ? (
        <div className={S.empty} data-testid="activity-log-empty">
          <p className={T.body1}>{filtered ? "No logs match these filters" : "No activity yet"}</p>
          <p className={cls(T.body2, T.muted)}>
            {filtered ? "Apply different filters or clear them." : "Signals, orders, logins and system events appear here."}
          </p>
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
    </div>
  );
}

export function LogEntry({ log, hydrated }: { log: ActivityLog; hydrated: boolean }) {
  const preview = dataPreview(log.data);
  return (
    <li className={S.entry} data-testid="activity-log-entry" data-level={log.level} data-type={log.type}>
      <div className={S.head}>
        <LeanChip label={log.level} color={chipColor(log.level)} data-testid="activity-log-level" className={S.level} />
        <span className={cls(T.caption, T.muted, S.type)} data-testid="activity-log-type">
          {log.type}
        </span>
        <div className={S.grow} />
        <time className={cls(T.caption, T.muted)} dateTime={log.createdAt} title={log.createdAt} data-testid="activity-log-time">
          {hydrated ? formatDateTime(log.createdAt) : utcTimeText(log.createdAt)}
        </time>
      </div>
      <p className={cls(T.body2, S.message)} data-testid="activity-log-message">
        {log.message}
      </p>
      {preview.entries.length > 0 ? (
        <div className={S.data} data-testid="activity-log-data">
          {preview.entries.map((entry) => (
            <span key={entry.key} className={S.dataEntry} data-testid="activity-log-data-entry">
              <span className={S.dataKey}>{entry.key}</span>: {entry.value}
            </span>
          ))}
          {preview.more > 0 ? (
            <span className={cls(T.caption, T.muted)} data-testid="activity-log-data-more">
              {`+${preview.more} more`}
            </span>
          ) : null}
        </div>
      ) : null}
    </li>
  );
}
