// The Activity Log panel (SPEC.md §2 Dashboard and Logs, §8, §9): newest entries first with
// a level chip, type, message, time and a data preview of at most 3 entries; a Filter dialog
// (type, level, Clear All, Apply) that queries GET /api/logs; a Clear filters link; Export to
// CSV of what is shown. Server-rendered entries seed the query, so it renders without
// JavaScript; live `activity_log` messages refresh it through the query registry.
import DownloadIcon from "@mui/icons-material/Download";
import FilterListIcon from "@mui/icons-material/FilterList";
import Alert from "@mui/material/Alert";
import Badge from "@mui/material/Badge";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import CircularProgress from "@mui/material/CircularProgress";
import Link from "@mui/material/Link";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import { useCallback, useEffect, useState } from "react";
import { errorText } from "#app/utils/api-client.ts";
import { downloadText, formatDateTime } from "#app/utils/format.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { useToast } from "../toaster.tsx";
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

export interface ActivityLogPanelProps {
  /** Server-rendered entries for the unfiltered query (GET /api/logs?limit={limit}). */
  initialLogs?: ActivityLog[];
  /** How many entries to ask for: 20 on the dashboard, 100 on the Logs screen. */
  limit?: number;
  /** Polling cadence: 90 s on the dashboard, 30 s on the Logs screen. */
  refetchIntervalMs?: number;
  title?: string;
}

export function ActivityLogPanel({
  initialLogs,
  limit = DASHBOARD_LOG_LIMIT,
  refetchIntervalMs = DASHBOARD_LOG_POLL_MS,
  title = "Activity Log",
}: ActivityLogPanelProps) {
  const [filters, setFilters] = useState<LogFilters>(NO_FILTERS);
  // The server's entries only seed the first, unfiltered view; later views fetch fresh.
  const [seeded, setSeeded] = useState(initialLogs !== undefined);
  const url = logsUrl(limit, filters);
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
  const { data, error, isLoading, refetch } = useApiQuery<ActivityLog[]>(url, { initialData: initialLogs, refetchIntervalMs });
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
      toast({ title: "No logs to export", description: "Apply different filters or wait for logs to be generated" });
      return;
    }
    downloadText(activityLogFileName(), activityLogCsv(logs));
    toast({ title: "Export successful", description: `Exported ${logs.length} logs as CSV file` });
  };

  return (
    <Paper variant="outlined" sx={{ p: 2 }} data-testid="activity-log-panel" data-filtered={filtered ? "true" : "false"}>
      <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: "center", flexWrap: "wrap", mb: 1.5 }}>
        <Typography variant="h3" component="h2">
          {title}
        </Typography>
        {data ? (
          <Typography variant="caption" color="text.secondary" data-testid="activity-log-count">
            {`${logs.length} ${logs.length === 1 ? "entry" : "entries"}, newest first`}
          </Typography>
        ) : null}
        <Box sx={{ flex: 1 }} />
        <Badge color="primary" badgeContent={activeCount} invisible={activeCount === 0}>
          <Button
            size="small"
            variant="outlined"
            startIcon={<FilterListIcon />}
            onClick={() => setDialogOpen(true)}
            data-testid="activity-log-filter-button"
          >
            Filter
          </Button>
        </Badge>
        <Button size="small" variant="outlined" startIcon={<DownloadIcon />} onClick={exportCsv} data-testid="activity-log-export">
          Export to CSV
        </Button>
      </Stack>

      {filtered ? (
        <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: "center", flexWrap: "wrap", mb: 1.5 }} data-testid="activity-log-active-filters">
          {filters.type ? <Chip size="small" variant="outlined" label={`Type: ${filters.type}`} /> : null}
          {filters.level ? <Chip size="small" variant="outlined" label={`Level: ${filters.level}`} /> : null}
          <Link component="button" type="button" variant="body2" onClick={() => onFiltersChange(NO_FILTERS)} data-testid="activity-log-clear-filters">
            Clear filters
          </Link>
        </Stack>
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
        <Stack direction="row" spacing={1.5} sx={{ alignItems: "center", justifyContent: "center", py: 4 }} data-testid="activity-log-loading">
          <CircularProgress size={20} />
          <Typography color="text.secondary">Loading activity logs...</Typography>
        </Stack>
      ) : null}

      {data && logs.length === 0 ? (
        <Box sx={{ py: 4, textAlign: "center" }} data-testid="activity-log-empty">
          <Typography>{filtered ? "No logs match these filters" : "No activity yet"}</Typography>
          <Typography variant="body2" color="text.secondary">
            {filtered ? "Apply different filters or clear them." : "Signals, orders, logins and system events appear here."}
          </Typography>
        </Box>
      ) : null}

      {logs.length > 0 ? (
        <Box
          component="ul"
          data-testid="activity-log-list"
          sx={{ listStyle: "none", m: 0, p: 0, maxHeight: "24rem", overflowY: "auto", borderTop: 1, borderColor: "divider" }}
        >
          {logs.map((log) => (
            <LogEntry key={log.id} log={log} hydrated={hydrated} />
          ))}
        </Box>
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

function LogEntry({ log, hydrated }: { log: ActivityLog; hydrated: boolean }) {
  const preview = dataPreview(log.data);
  return (
    <Box
      component="li"
      data-testid="activity-log-entry"
      data-level={log.level}
      data-type={log.type}
      sx={{ py: 1.25, px: 0.5, borderBottom: 1, borderColor: "divider" }}
    >
      <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: "center", flexWrap: "wrap" }}>
        <Chip size="small" label={log.level} color={levelColor(log.level)} data-testid="activity-log-level" sx={{ textTransform: "uppercase", fontWeight: 600, fontSize: 11 }} />
        <Typography variant="caption" color="text.secondary" data-testid="activity-log-type" sx={{ fontWeight: 600, textTransform: "uppercase", letterSpacing: 0.5 }}>
          {log.type}
        </Typography>
        <Box sx={{ flex: 1 }} />
        <Typography variant="caption" color="text.secondary" component="time" dateTime={log.createdAt} title={log.createdAt} data-testid="activity-log-time">
          {hydrated ? formatDateTime(log.createdAt) : utcTimeText(log.createdAt)}
        </Typography>
      </Stack>
      <Typography variant="body2" data-testid="activity-log-message" sx={{ mt: 0.5, overflowWrap: "anywhere" }}>
        {log.message}
      </Typography>
      {preview.entries.length > 0 ? (
        <Stack direction="row" spacing={0.75} useFlexGap sx={{ mt: 0.75, flexWrap: "wrap", alignItems: "center" }} data-testid="activity-log-data">
          {preview.entries.map((entry) => (
            <Box
              key={entry.key}
              component="span"
              data-testid="activity-log-data-entry"
              sx={{ fontFamily: "monospace", fontSize: 12, px: 0.75, py: 0.25, borderRadius: 0.5, bgcolor: "action.hover", color: "text.secondary", overflowWrap: "anywhere" }}
            >
              <Box component="span" sx={{ color: "text.primary" }}>
                {entry.key}
              </Box>
              : {entry.value}
            </Box>
          ))}
          {preview.more > 0 ? (
            <Typography variant="caption" color="text.secondary" data-testid="activity-log-data-more">
              {`+${preview.more} more`}
            </Typography>
          ) : null}
        </Stack>
      ) : null}
    </Box>
  );
}
