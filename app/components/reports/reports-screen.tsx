// Reports (docs/spec/screens.md Reports, screens.md#states, api.md#validation, api.md#errors): the Generate Report dialog, filters by type and
// status, and a card per report that follows its status (polled every 30 s and refreshed by
// the worker's live activity events): 'Processing...' while pending or creating, the error or
// 'Generation failed' when failed, Download when ready. The dialog posts to the page's action
// (JSON with JavaScript, a redirect with a flash toast without); filters are a GET form.
import { useCan } from "#app/components/layout/permissions.tsx";
import type { SubmissionResult } from "@conform-to/react";
import DescriptionIcon from "@mui/icons-material/Description";
import DownloadIcon from "@mui/icons-material/Download";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Card from "@mui/material/Card";
import CardActions from "@mui/material/CardActions";
import CardContent from "@mui/material/CardContent";
import Chip from "@mui/material/Chip";
import CircularProgress from "@mui/material/CircularProgress";
import Paper from "@mui/material/Paper";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useActionData, useFetcher, useNavigate } from "@remix-run/react";
import { type ReactNode, useEffect, useState } from "react";
import { listSymbols } from "#app/core/products.ts";
import { REPORT_STATUSES, REPORT_TYPES, REPORT_TYPE_LABELS, ReportFormSchema } from "#app/core/schemas/reports.ts";
import type { Toast } from "#app/core/schemas/toast.ts";
import { useLive } from "#app/live/use-live-updates.tsx";
import type { ReportView } from "#app/services/reports.server.ts";
import { ApiError, errorText } from "#app/utils/api-client.ts";
import { downloadBlob, formatDateTime } from "#app/core/format.ts";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { FormDialog } from "../form-dialog.tsx";
import { NativeSelect, useZodForm } from "../forms.tsx";
import { JsMarker } from "../dashboard/dashboard-header.tsx";
import { Screen } from "../screen.tsx";
import { useToast } from "../toaster.tsx";

export const REPORTS_POLL_MS = 30_000;

export interface ReportFilters {
  type: string;
  status: string;
}

export interface ReportAnswer {
  result?: SubmissionResult<string[]>;
  toast?: Toast | null;
  done?: boolean;
}

const STATUS_COLORS = { pending: "default", creating: "info", ready: "success", failed: "error" } as const;
const typeLabel = (type: string) => REPORT_TYPE_LABELS[type as keyof typeof REPORT_TYPE_LABELS] ?? type;

export function reportsUrl(filters: ReportFilters) {
  const params = new URLSearchParams();
  if (filters.type !== "all") params.set("type", filters.type);
  if (filters.status !== "all") params.set("status", filters.status);
  const qs = params.toString();
  return `/api/reports${qs ? `?${qs}` : ""}`;
}

async function downloadFile(url: string, fallbackName: string) {
  const response = await fetch(url, { credentials: "include" });
  if (!response.ok) {
    const text = await response.text();
    throw new ApiError(`${response.status}: ${text || response.statusText}`, response.status, text);
  }
  const disposition = response.headers.get("content-disposition") ?? "";
  const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? fallbackName;
  downloadBlob(name, await response.blob(), 10_000);
}

function ReportCard({ report }: { report: ReportView }) {
  const hydrated = useHydrated();
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const expired = report.expiresAt ? Date.parse(report.expiresAt) < Date.now() : false;
  const period =
    report.type === "balance"
      ? report.endDate
        ? `as of ${report.endDate}`
        : "as of generation"
      : `${report.startDate ?? "beginning"} to ${report.endDate ?? "now"}`;

  const onDownload = async (event: React.MouseEvent) => {
    if (!hydrated || !report.fileUrl) return;
    event.preventDefault();
    setBusy(true);
    try {
      await downloadFile(report.fileUrl, report.fileName ?? `report.${report.format}`);
    } catch (error) {
      toast({
        title: "Failed to download report",
        description: errorText(error, "Failed to download report"),
        variant: "destructive",
      });
    } finally {
      setBusy(false);
    }
  };

  let footer: ReactNode;
  if (report.status === "pending" || report.status === "creating") {
    footer = (
      <Box sx={{ display: "flex", alignItems: "center", gap: 1 }} data-testid="report-processing">
        <CircularProgress size={16} />
        <Typography color="text.secondary">Processing...</Typography>
      </Box>
    );
  } else if (report.status === "failed") {
    footer = (
      <Typography color="error" data-testid="report-error">
        {report.errorMessage || "Generation failed"}
      </Typography>
    );
  } else if (report.fileUrl && !expired) {
    footer = (
      <Button
        size="small"
        variant="contained"
        startIcon={<DownloadIcon />}
        href={report.fileUrl}
        onClick={onDownload}
        disabled={busy}
        data-testid="report-download"
      >
        {busy ? "Downloading..." : "Download"}
      </Button>
    );
  } else {
    footer = <Typography color="text.secondary">Expired: generate it again</Typography>;
  }

  return (
    <Card
      variant="outlined"
      data-testid="report-card"
      data-report-id={report.id}
      data-status={report.status}
      data-type={report.type}
      data-format={report.format}
    >
      <CardContent>
        <Box sx={{ display: "flex", alignItems: "center", gap: 1, mb: 1 }}>
          <DescriptionIcon color="primary" fontSize="small" />
          <Typography variant="h3" component="h2" sx={{ flex: 1 }}>
            {typeLabel(report.type)} report
          </Typography>
          <Chip size="small" variant="outlined" label={report.format.toUpperCase()} />
          <Chip
            size="small"
            color={STATUS_COLORS[report.status] ?? "default"}
            label={report.status}
            data-testid="report-status"
          />
        </Box>
        <Typography variant="body2" color="text.secondary">
          Requested {formatDateTime(report.requestedAt)}
        </Typography>
        <Typography variant="body2" color="text.secondary">
          Period: {period}
        </Typography>
        {report.productId ? (
          <Typography variant="body2" color="text.secondary">
            Product: {report.productId}
          </Typography>
        ) : null}
        {report.profileId ? (
          <Typography variant="body2" color="text.secondary">
            Profile: {report.profileId.slice(0, 8)}
          </Typography>
        ) : null}
        {report.status === "ready" && report.fileName ? (
          <Typography variant="body2" color="text.secondary">
            {report.fileName}
            {report.fileSize != null ? ` · ${report.fileSize.toLocaleString()} bytes` : ""}
          </Typography>
        ) : null}
      </CardContent>
      <CardActions sx={{ px: 2, pb: 2 }}>{footer}</CardActions>
    </Card>
  );
}

function GenerateReportDialog({
  open,
  onClose,
  profiles,
  lastResult,
  fetcher,
}: {
  open: boolean;
  onClose: () => void;
  profiles: { id: string; name: string }[];
  lastResult: SubmissionResult<string[]> | undefined;
  fetcher: ReturnType<typeof useFetcher>;
}) {
  const hydrated = useHydrated();
  const [type, setType] = useState("fills");
  const [form, fields] = useZodForm({
    id: "generate-report",
    schema: ReportFormSchema,
    lastResult,
  });
  const err = (name: keyof typeof fields) => fields[name].errors?.[0];
  return (
    <FormDialog
      form={form}
      title="Generate Report"
      open={open}
      onClose={onClose}
      action="/reports"
      fetcher={fetcher}
      maxWidth="sm"
      submitLabel="Generate"
      busyLabel="Generating..."
    >
      <JsMarker />
      <Box sx={{ display: "grid", gridTemplateColumns: { xs: "1fr", sm: "1fr 1fr" }, columnGap: 2 }}>
        <NativeSelect
          size="small"
          margin="dense"
          name="type"
          label="Report type"
          value={type}
          onChange={hydrated ? setType : undefined}
          error={err("type")}
          testId="report-type"
        >
          {REPORT_TYPES.map((t) => (
            <option key={t} value={t}>
              {REPORT_TYPE_LABELS[t]}
            </option>
          ))}
        </NativeSelect>
        <NativeSelect
          size="small"
          margin="dense"
          name="format"
          label="Format"
          value="csv"
          error={err("format")}
          testId="report-format"
        >
          <option value="csv">CSV</option>
          <option value="pdf">PDF</option>
        </NativeSelect>
        {type !== "balance" || !hydrated ? (
          <TextField
            name="startDate"
            type="date"
            label="Start date"
            size="small"
            margin="dense"
            fullWidth
            error={!!err("startDate")}
            helperText={err("startDate")}
            slotProps={{ inputLabel: { shrink: true } }}
          />
        ) : null}
        <TextField
          name="endDate"
          type="date"
          label={type === "balance" && hydrated ? "As of date" : "End date"}
          size="small"
          margin="dense"
          fullWidth
          error={!!err("endDate")}
          helperText={err("endDate")}
          slotProps={{ inputLabel: { shrink: true } }}
        />
        <NativeSelect
          size="small"
          margin="dense"
          name="profileId"
          label="Profile"
          value=""
          error={err("profileId")}
          testId="report-profile"
        >
          <option value="">{type === "balance" ? "All profiles" : "Default profile"}</option>
          {profiles.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </NativeSelect>
        {type === "fills" || type === "otc_fills" || !hydrated ? (
          <NativeSelect
            size="small"
            margin="dense"
            name="productId"
            label="Product"
            value=""
            error={err("productId")}
            testId="report-product"
          >
            <option value="">All products</option>
            {listSymbols().map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </NativeSelect>
        ) : null}
        <TextField
          name="year"
          label="Year (optional)"
          size="small"
          margin="dense"
          fullWidth
          error={!!err("year")}
          helperText={err("year")}
          slotProps={{ inputLabel: { shrink: true }, htmlInput: { inputMode: "numeric" } }}
        />
      </Box>
    </FormDialog>
  );
}

export function ReportsScreen({
  initial,
  filters: initialFilters,
  profiles,
  initialDialog,
}: {
  initial: ReportView[];
  filters: ReportFilters;
  profiles: { id: string; name: string }[];
  initialDialog: boolean;
}) {
  const hydrated = useHydrated();
  const toast = useToast();
  const navigate = useNavigate();
  const { lastMessage } = useLive();
  const canGenerate = useCan("reports.generate");
  const [filters, setFilters] = useState(initialFilters);
  const url = reportsUrl(filters);
  const query = useApiQuery<ReportView[]>(url, {
    initialData: url === reportsUrl(initialFilters) ? initial : undefined,
    refetchIntervalMs: REPORTS_POLL_MS,
  });
  const actionData = useActionData<ReportAnswer>();
  const fetcher = useFetcher<ReportAnswer>({ key: "generate-report" });
  const answer = fetcher.data ?? actionData;
  const [open, setOpen] = useState(initialDialog || (actionData !== undefined && !actionData.done));
  const [generation, setGeneration] = useState(0);
  const { refetch } = query;

  useEffect(() => {
    if (fetcher.state !== "idle" || !fetcher.data) return;
    if (fetcher.data.toast) toast(fetcher.data.toast);
    if (fetcher.data.done) {
      setOpen(false);
      void refetch();
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [fetcher.state, fetcher.data]);

  // The worker logs each report's progress: its live event refreshes the cards at once.
  useEffect(() => {
    const data = lastMessage?.data as { data?: { reportId?: unknown } } | undefined;
    if (lastMessage?.type === "activity_log" && data?.data?.reportId) void refetch();
  }, [lastMessage, refetch]);

  const changeFilter = (key: keyof ReportFilters, value: string) => {
    const next = { ...filters, [key]: value };
    setFilters(next);
    const params = new URLSearchParams();
    if (next.type !== "all") params.set("type", next.type);
    if (next.status !== "all") params.set("status", next.status);
    window.history.replaceState(null, "", `/reports${params.size ? `?${params}` : ""}`);
  };
  /** A filter of the list: "all", then each value (a plain GET without JavaScript, the URL kept in step with it). */
  const filterSelect = (key: keyof ReportFilters, label: string, all: string, options: [string, string][]) => (
    <Box sx={{ width: 180 }}>
      <NativeSelect
        size="small"
        margin="dense"
        name={key}
        label={label}
        value={filters[key]}
        onChange={hydrated ? (v) => changeFilter(key, v) : undefined}
        testId={`filter-${key}`}
      >
        <option value="all">{all}</option>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </NativeSelect>
    </Box>
  );

  const openDialog = (event: React.MouseEvent) => {
    if (!hydrated) return;
    event.preventDefault();
    setGeneration((g) => g + 1);
    setOpen(true);
  };
  const close = () => {
    setOpen(false);
    if (initialDialog) navigate("/reports", { replace: true, preventScrollReset: true });
  };

  const reports = query.data ?? [];
  let body: ReactNode;
  if (query.data === undefined && query.error) {
    body = <Alert severity="error">{errorText(query.error, "Unable to load reports")}</Alert>;
  } else if (query.data === undefined) {
    body = <Typography color="text.secondary">Loading reports...</Typography>;
  } else if (reports.length === 0) {
    body = (
      <Paper variant="outlined" sx={{ p: 4, textAlign: "center" }} data-testid="reports-empty">
        <Typography variant="h3" component="p" gutterBottom>
          No reports yet
        </Typography>
        <Typography color="text.secondary">
          Generate a fills, account, balance or OTC fills report as CSV or PDF.
        </Typography>
      </Paper>
    );
  } else {
    body = (
      <Box
        sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", md: "1fr 1fr" } }}
        data-testid="reports-grid"
      >
        {reports.map((r) => (
          <ReportCard key={r.id} report={r} />
        ))}
      </Box>
    );
  }

  return (
    <Screen
      title="Reports"
      actions={
        canGenerate ? (
          <Button variant="contained" href="/reports?dialog=generate" onClick={openDialog}>
            Generate Report
          </Button>
        ) : null
      }
    >
      <Box
        component="form"
        method="get"
        action="/reports"
        sx={{ display: "flex", gap: 2, mb: 2, flexWrap: "wrap", alignItems: "center" }}
        data-testid="report-filters"
      >
        {filterSelect(
          "type",
          "Type",
          "All types",
          REPORT_TYPES.map((t) => [t, REPORT_TYPE_LABELS[t]]),
        )}
        {filterSelect(
          "status",
          "Status",
          "All statuses",
          REPORT_STATUSES.map((s) => [s, s.charAt(0).toUpperCase() + s.slice(1)]),
        )}
        {hydrated ? null : (
          <Button type="submit" variant="outlined">
            Apply
          </Button>
        )}
      </Box>
      {body}
      <GenerateReportDialog
        key={generation}
        open={open && canGenerate}
        onClose={close}
        profiles={profiles}
        lastResult={answer && !answer.done ? answer.result : undefined}
        fetcher={fetcher}
      />
    </Screen>
  );
}
