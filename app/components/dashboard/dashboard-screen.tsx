// The Dashboard (docs/spec/screens.md): header, four status cards, performance statistics, signals,
// recent orders and positions, the webhook URL (admins), manual trading, activity log.
// Each part starts from the server's data and then polls its API at the cadence of docs/spec/figures.md#defaults-and-limits;
// live messages refresh them sooner.
import Box from "@mui/material/Box";
import CircularProgress from "@mui/material/CircularProgress";
import Typography from "@mui/material/Typography";
import { D } from "#app/core/decimal.ts";
import { type SystemStatusEntry, webhookCard } from "#app/core/system-status.ts";
import type { ActivityLog } from "#app/core/types/activity-logs.ts";
import type { Trade } from "#app/core/types/trades.ts";
import { formatPnl } from "#app/core/format.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { ActivityLogPanel } from "../activity-log/activity-log-panel.tsx";
import { DashboardHeader } from "./dashboard-header.tsx";
import { type DriftItem, DriftAlarms } from "../positions/drift-alarms.tsx";
import { type OpenOrder, OpenOrders } from "../positions/open-orders.tsx";
import { type BalanceInfo, ManualTradeForm } from "./manual-trade-form.tsx";
import { OpenPositions, type PositionSummary, RecentOrders } from "./orders-panel.tsx";
import { type PerformanceStats, PerformanceStatsTable } from "./performance-stats.tsx";
import { DashboardPerformanceCard } from "../performance/performance-screen.tsx";
import type { DailyTable } from "#app/core/performance/charts.ts";
import { type PanelSignal, SIGNALS_POLL_MS, SignalsPanel } from "./signals-panel.tsx";
import { WebhookUrlBox } from "./webhook-url-box.tsx";
import { LeanIcon } from "../ui/lean.tsx";
import { S } from "./dashboard-screen.css.ts";
import { StatCard } from "../ui/stat-card.tsx";

// The page is server-rendered on every visit: its layout is plain elements with lean classes
// (./dashboard-screen.css.ts, built at build time), and the cards' icons are the Material icons' paths.
const ICON = {
  webhook:
    "M10 15h5.88c.27-.31.67-.5 1.12-.5.83 0 1.5.67 1.5 1.5s-.67 1.5-1.5 1.5c-.44 0-.84-.19-1.12-.5H11.9c-.46 2.28-2.48 4-4.9 4-2.76 0-5-2.24-5-5 0-2.42 1.72-4.44 4-4.9v2.07c-1.16.41-2 1.53-2 2.83 0 1.65 1.35 3 3 3s3-1.35 3-3zm2.5-11c1.65 0 3 1.35 3 3h2c0-2.76-2.24-5-5-5s-5 2.24-5 5c0 1.43.6 2.71 1.55 3.62l-2.35 3.9c-.68.14-1.2.75-1.2 1.48 0 .83.67 1.5 1.5 1.5s1.5-.67 1.5-1.5c0-.16-.02-.31-.07-.45l3.38-5.63C10.49 9.61 9.5 8.42 9.5 7c0-1.65 1.35-3 3-3m4.5 9c-.64 0-1.23.2-1.72.54l-3.05-5.07C11.53 8.35 11 7.74 11 7c0-.83.67-1.5 1.5-1.5S14 6.17 14 7c0 .15-.02.29-.06.43l2.19 3.65c.28-.05.57-.08.87-.08 2.76 0 5 2.24 5 5s-2.24 5-5 5c-1.85 0-3.47-1.01-4.33-2.5h2.67c.48.32 1.05.5 1.66.5 1.65 0 3-1.35 3-3s-1.35-3-3-3",
  hub: "M8.4 18.2c.38.5.6 1.12.6 1.8 0 1.66-1.34 3-3 3s-3-1.34-3-3 1.34-3 3-3c.44 0 .85.09 1.23.26l1.41-1.77c-.92-1.03-1.29-2.39-1.09-3.69l-2.03-.68c-.54.83-1.46 1.38-2.52 1.38-1.66 0-3-1.34-3-3s1.34-3 3-3 3 1.34 3 3c0 .07 0 .14-.01.21l2.03.68c.64-1.21 1.82-2.09 3.22-2.32V5.91C9.96 5.57 9 4.4 9 3c0-1.66 1.34-3 3-3s3 1.34 3 3c0 1.4-.96 2.57-2.25 2.91v2.16c1.4.23 2.58 1.11 3.22 2.32L18 9.71V9.5c0-1.66 1.34-3 3-3s3 1.34 3 3-1.34 3-3 3c-1.06 0-1.98-.55-2.52-1.37l-2.03.68c.2 1.29-.16 2.65-1.09 3.69l1.41 1.77Q17.34 17 18 17c1.66 0 3 1.34 3 3s-1.34 3-3 3-3-1.34-3-3c0-.68.22-1.3.6-1.8l-1.41-1.77c-1.35.75-3.01.76-4.37 0z",
  chart: "m3.5 18.49 6-6.01 4 4L22 6.92l-1.41-1.41-7.09 7.97-4-4L2 16.99z",
  wallet:
    "M21 18v1c0 1.1-.9 2-2 2H5c-1.11 0-2-.9-2-2V5c0-1.1.89-2 2-2h14c1.1 0 2 .9 2 2v1h-9c-1.11 0-2 .9-2 2v8c0 1.1.89 2 2 2zm-9-2h10V8H12zm4-2.5c-.83 0-1.5-.67-1.5-1.5s.67-1.5 1.5-1.5 1.5.67 1.5 1.5-.67 1.5-1.5 1.5",
};

export interface DashboardStats {
  stats: { activeTrades: number; todayPnL: string; totalSignals: number; systemHealth: string };
  systemStatus: SystemStatusEntry[];
}

export interface DashboardData {
  isAdmin: boolean;
  stats: DashboardStats;
  signals: PanelSignal[];
  trades: Trade[];
  logs: ActivityLog[];
  balance: BalanceInfo | null;
  positions: PositionSummary[];
  performance: PerformanceStats | null;
  webhook: { url: string; port: number } | null;
  /** Open drift alarms (issue 11); absent in older callers. */
  drifts?: DriftItem[] | null;
  /** Resting orders: the card shows while any rests (issue 11). */
  orders?: OpenOrder[] | null;
  /** The Performance card's 30 days (decision 031); absent in older callers. */
  charts?: DailyTable | null;
}

export function DashboardScreen({ data }: { data: DashboardData }) {
  const stats = useApiQuery<DashboardStats>("/api/dashboard/stats", { initialData: data.stats, refetchIntervalMs: 45_000 });
  const signals = useApiQuery<PanelSignal[]>("/api/signals?limit=10", { initialData: data.signals, refetchIntervalMs: SIGNALS_POLL_MS });
  const trades = useApiQuery<Trade[]>("/api/trades?limit=10", { initialData: data.trades, refetchIntervalMs: 60_000 });
  const positions = useApiQuery<PositionSummary[]>("/api/positions", { initialData: data.positions, refetchIntervalMs: 5_000 });
  const balance = useApiQuery<BalanceInfo>("/api/balance", { initialData: data.balance ?? undefined, refetchIntervalMs: 120_000 });

  const loading = (!stats.data && stats.isLoading) || (!signals.data && signals.isLoading) || (!trades.data && trades.isLoading);
  if (loading) {
    return (
      <Box sx={{ py: 8, display: "flex", flexDirection: "column", alignItems: "center", gap: 2 }}>
        <CircularProgress />
        <Typography color="text.secondary">Loading dashboard</Typography>
      </Box>
    );
  }

  const status = stats.data?.systemStatus ?? [];
  const component = (name: string) => status.find((s) => s.component === name);
  const webhook = webhookCard(component("webhook"));
  const exchange = component("coinbase_api");
  const exchangeConnected = exchange?.status === "online";
  const todayPnL = stats.data?.stats.todayPnL ?? "0";
  const pnlStatus = D(todayPnL).gt(0) ? "success" : D(todayPnL).lt(0) ? "error" : "neutral";

  return (
    <div>
      <DashboardHeader emergencyActive={component("system")?.status === "warning"} lastSignalAt={signals.data?.[0]?.createdAt ?? null} />
      <DriftAlarms initial={data.drifts ?? null} />
      <div className={S.cards}>
        <StatCard testId="card-webhook" title="Webhook Status" value={webhook.value} icon={<LeanIcon d={ICON.webhook} medium />} status={webhook.status} description={component("webhook")?.message} />
        <StatCard testId="card-exchange" title="Exchange API" value={exchangeConnected ? "connected" : "disconnected"} icon={<LeanIcon d={ICON.hub} medium />} status={exchangeConnected ? "success" : exchange?.status === "warning" ? "warning" : "error"} description={exchange?.message} />
        <StatCard testId="card-active-trades" title="Active Trades" value={String(stats.data?.stats.activeTrades ?? 0)} icon={<LeanIcon d={ICON.chart} medium />} description="Open positions" />
        <StatCard testId="card-pnl" title="24h P&L" value={formatPnl(todayPnL)} icon={<LeanIcon d={ICON.wallet} medium />} status={pnlStatus} description="Realised, after fees" />
      </div>
      <div className={S.columns}>
        <div className={S.column}>
          <SignalsPanel signals={signals.data ?? []} />
          <OpenPositions positions={positions.data ?? []} />
          <RecentOrders trades={trades.data ?? []} />
          <OpenOrders initial={data.orders ?? null} back="/dashboard" hideWhenEmpty />
        </div>
        <div className={S.column}>
          <ManualTradeForm balance={balance.data ?? null} />
          {data.isAdmin && data.webhook ? <WebhookUrlBox url={data.webhook.url} port={data.webhook.port} /> : null}
        </div>
      </div>
      <div className={S.bottom}>
        {data.charts ? <DashboardPerformanceCard initial={data.charts} /> : null}
        <PerformanceStatsTable initial={data.performance} />
        <ActivityLogPanel initialLogs={data.logs} limit={20} refetchIntervalMs={90_000} />
      </div>
    </div>
  );
}
