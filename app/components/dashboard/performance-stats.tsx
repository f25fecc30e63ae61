// Performance Statistics (all time, month, week) from GET /api/performance-stats, every 120 s.
import Box from "@mui/material/Box";
import Card from "@mui/material/Card";
import CardContent from "@mui/material/CardContent";
import CardHeader from "@mui/material/CardHeader";
import CircularProgress from "@mui/material/CircularProgress";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import Typography from "@mui/material/Typography";
import { formatPercent, formatPnl, formatProfitFactor, formatVolume } from "#app/utils/format.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";

export const PERFORMANCE_POLL_MS = 120_000;

type Value = string | number | null;
export interface PeriodStats {
  avgPnlPercent: Value;
  totalPnl: Value;
  pnlPercent: Value;
  roi: Value;
  maxLossPercent: Value;
  maxGainPercent: Value;
  totalVolume: Value;
  minTradeVolume: Value;
  avgTradeVolume: Value;
  maxTradeVolume: Value;
  totalTrades: Value;
  avgTimeInTrade: string;
  profitFactor: Value;
  profitVolumePercent: Value;
  percentProfitable: Value;
}
export interface PerformanceStats {
  allTime: PeriodStats;
  month: PeriodStats;
  week: PeriodStats;
}

const ROWS: { label: string; render: (s: PeriodStats) => React.ReactNode }[] = [
  { label: "Total P&L", render: (s) => formatPnl(s.totalPnl) },
  { label: "P&L %", render: (s) => formatPercent(s.pnlPercent) },
  { label: "ROI", render: (s) => formatPercent(s.roi) },
  { label: "Average P&L %", render: (s) => formatPercent(s.avgPnlPercent) },
  { label: "Max gain", render: (s) => formatPercent(s.maxGainPercent) },
  { label: "Max loss", render: (s) => formatPercent(s.maxLossPercent) },
  { label: "Trades", render: (s) => String(s.totalTrades ?? 0) },
  {
    label: "Profitable",
    render: (s) => (
      <span className={Number(s.percentProfitable ?? 0) >= 50 ? "pd-c-success" : undefined}>{formatPercent(s.percentProfitable, 1)}</span>
    ),
  },
  { label: "Profit factor", render: (s) => formatProfitFactor(s.profitFactor) },
  { label: "Average time in trade", render: (s) => s.avgTimeInTrade },
  { label: "Volume", render: (s) => formatVolume(s.totalVolume) },
  { label: "Trade volume (min / avg / max)", render: (s) => `${formatVolume(s.minTradeVolume)} / ${formatVolume(s.avgTradeVolume)} / ${formatVolume(s.maxTradeVolume)}` },
  { label: "Profit volume %", render: (s) => formatPercent(s.profitVolumePercent) },
];

export function PerformanceStatsTable({ initial }: { initial: PerformanceStats | null }) {
  const { data, error, isLoading } = useApiQuery<PerformanceStats>("/api/performance-stats", {
    initialData: initial ?? undefined,
    refetchIntervalMs: PERFORMANCE_POLL_MS,
  });
  return (
    <Card variant="outlined" data-testid="performance-stats">
      <CardHeader title="Performance Statistics" slotProps={{ title: { variant: "h3", component: "h2" } }} />
      <CardContent sx={{ pt: 0, overflowX: "auto" }}>
        {data ? (
          <Table size="small">
            <TableHead>
              <TableRow>
                <TableCell />
                <TableCell align="right">All time</TableCell>
                <TableCell align="right">Month</TableCell>
                <TableCell align="right">Week</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {/* Lean body rows (components/ui/lean.tsx, stylesheet: ./dashboard-styles.tsx). */}
              {ROWS.map((row) => (
                <tr key={row.label} className="pd-tr">
                  <th className="pd-td" scope="row">
                    {row.label}
                  </th>
                  <td className="pd-td pd-right">{row.render(data.allTime)}</td>
                  <td className="pd-td pd-right">{row.render(data.month)}</td>
                  <td className="pd-td pd-right">{row.render(data.week)}</td>
                </tr>
              ))}
            </TableBody>
          </Table>
        ) : error || !isLoading ? (
          <Box sx={{ py: 3, textAlign: "center" }} data-testid="performance-error">
            <Typography>Unable to load performance metrics</Typography>
            <Typography variant="body2" color="text.secondary">
              Please try again later
            </Typography>
          </Box>
        ) : (
          <Box sx={{ py: 3, textAlign: "center" }}>
            <CircularProgress size={24} />
          </Box>
        )}
      </CardContent>
    </Card>
  );
}
