// Webhook Config's latency summary (issue 12): p50 / p99 of each step of the alerts' path over
// the last 24 h (GET /api/signals/latency), server-rendered with the page and refreshed every
// minute once hydrated.
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import Typography from "@mui/material/Typography";
import { type LatencySummary, type StepSummary, formatMs } from "#app/core/timeline.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";

export const LATENCY_URL = "/api/signals/latency";
const POLL_MS = 60_000;

function Row({
  step,
  total,
}: {
  step: Pick<StepSummary, "label" | "count" | "p50Ms" | "p99Ms" | "maxMs" | "from">;
  total?: boolean;
}) {
  const strong = total ? { fontWeight: 600 } : undefined;
  return (
    <TableRow data-testid={total ? "latency-total" : "latency-step"} data-from={total ? "total" : step.from}>
      <TableCell sx={{ ...strong, overflowWrap: "anywhere", pl: 0 }}>{step.label}</TableCell>
      <TableCell align="right" sx={{ ...strong, fontVariantNumeric: "tabular-nums", whiteSpace: "nowrap" }}>
        {step.count}
      </TableCell>
      <TableCell
        align="right"
        sx={{ ...strong, fontVariantNumeric: "tabular-nums", whiteSpace: "nowrap" }}
        data-testid="latency-p50"
      >
        {formatMs(step.p50Ms)}
      </TableCell>
      <TableCell
        align="right"
        sx={{ ...strong, fontVariantNumeric: "tabular-nums", whiteSpace: "nowrap", pr: 0 }}
        data-testid="latency-p99"
      >
        {formatMs(step.p99Ms)}
      </TableCell>
    </TableRow>
  );
}

export function LatencySummaryTable({ initial }: { initial: LatencySummary }) {
  const { data } = useApiQuery<LatencySummary>(LATENCY_URL, { initialData: initial, refetchIntervalMs: POLL_MS });
  const summary = data ?? initial;
  if (summary.signals === 0) {
    return (
      <Typography variant="body2" color="text.secondary" data-testid="latency-empty">
        No alerts in the last 24 hours. Each alert's timeline shows on the dashboard's signals and in Trade History's
        details.
      </Typography>
    );
  }
  return (
    <>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        {`${summary.signals} alert${summary.signals === 1 ? "" : "s"} since ${summary.since.slice(11, 16)} UTC yesterday. p50: half of them took at most this long; p99: all but 1 in 100.`}
      </Typography>
      <Table size="small" aria-label="Alert latency per step" sx={{ tableLayout: "fixed", width: "100%" }}>
        <TableHead>
          <TableRow>
            <TableCell sx={{ pl: 0 }}>Step</TableCell>
            <TableCell align="right" sx={{ width: { xs: "3.6em", sm: "4.5em" } }}>
              Alerts
            </TableCell>
            <TableCell align="right" sx={{ width: { xs: "4.6em", sm: "5.5em" } }}>
              p50
            </TableCell>
            <TableCell align="right" sx={{ width: { xs: "4.6em", sm: "5.5em" }, pr: 0 }}>
              p99
            </TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {summary.steps.map((step) => (
            <Row key={step.from} step={step} />
          ))}
          <Row step={{ ...summary.total, label: "Received → fill booked (market orders)" }} total />
        </TableBody>
      </Table>
      <Typography variant="caption" color="text.secondary" component="p" sx={{ mt: 1 }}>
        The first step needs "timenow": "{"{{timenow}}"}" (or the timestamp) in the alert, and TradingView's clock has
        whole seconds. Limit orders are left out of the fill step: they wait for their price. Also as JSON:{" "}
        {LATENCY_URL}
      </Typography>
    </>
  );
}
