// Performance Statistics (all time, month, week) from GET /api/performance-stats, every 120 s.
import CircularProgress from "@mui/material/CircularProgress";
import Table from "@mui/material/Table";
import Typography from "@mui/material/Typography";
import { D } from "#app/core/decimal.ts";
import { formatPercent, formatPnl, formatProfitFactor, formatVolume } from "#app/core/format.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { ColumnHeads } from "../ui/column-heads.tsx";
import { PanelCard } from "../ui/panel-card.tsx";
import { S } from "./performance-stats.css.ts";

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
      <span className={D(s.percentProfitable ?? 0).gte(50) ? "pd-c-success" : undefined}>
        {formatPercent(s.percentProfitable, 1)}
      </span>
    ),
  },
  { label: "Profit factor", render: (s) => formatProfitFactor(s.profitFactor) },
  { label: "Average time in trade", render: (s) => s.avgTimeInTrade },
  { label: "Volume", render: (s) => formatVolume(s.totalVolume) },
  {
    label: "Trade volume (min / avg / max)",
    render: (s) =>
      `${formatVolume(s.minTradeVolume)} / ${formatVolume(s.avgTradeVolume)} / ${formatVolume(s.maxTradeVolume)}`,
  },
  { label: "Profit volume %", render: (s) => formatPercent(s.profitVolumePercent) },
];

const PERIODS = ["All time", "Month", "Week"];

export function PerformanceStatsTable({ initial }: { initial: PerformanceStats | null }) {
  const { data, error, isLoading } = useApiQuery<PerformanceStats>("/api/performance-stats", {
    initialData: initial ?? undefined,
    refetchIntervalMs: PERFORMANCE_POLL_MS,
  });
  return (
    <PanelCard data-testid="performance-stats" title="Performance Statistics" flush contentClassName={S.scroll}>
      {data ? (
        <Table size="small">
          <ColumnHeads corner columns={PERIODS} right={PERIODS} />
          <tbody>
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
          </tbody>
        </Table>
      ) : error || !isLoading ? (
        <div className={S.message} data-testid="performance-error">
          <Typography>Unable to load performance metrics</Typography>
          <Typography variant="body2" color="text.secondary">
            Please try again later
          </Typography>
        </div>
      ) : (
        <div className={S.message}>
          <CircularProgress size={24} />
        </div>
      )}
    </PanelCard>
  );
}
