// The Dashboard (SPEC.md §2): header, four status cards, performance statistics, signals,
// recent orders and positions, the webhook URL (admins), manual trading, activity log.
// Each part starts from the server's data and then polls its API at SPEC.md §7's cadence;
// live messages refresh them sooner.
import AccountBalanceWalletIcon from "@mui/icons-material/AccountBalanceWallet";
import HubIcon from "@mui/icons-material/Hub";
import ShowChartIcon from "@mui/icons-material/ShowChart";
import WebhookIcon from "@mui/icons-material/Webhook";
import Box from "@mui/material/Box";
import CircularProgress from "@mui/material/CircularProgress";
import Typography from "@mui/material/Typography";
import { D } from "#app/core/decimal.ts";
import type { SystemStatusEntry } from "#app/core/system-status.ts";
import type { ActivityLog } from "#db/queries/activity-logs.ts";
import type { Signal } from "#db/queries/signals.ts";
import type { Trade } from "#db/queries/trades.ts";
import { formatPnl } from "#app/utils/format.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { ActivityLogPanel } from "../activity-log/activity-log-panel.tsx";
import { DashboardHeader } from "../dashboard/dashboard-header.tsx";
import { type BalanceInfo, ManualTradeForm } from "../dashboard/manual-trade-form.tsx";
import { OpenPositions, type PositionSummary, RecentOrders } from "../dashboard/orders-panel.tsx";
import { type PerformanceStats, PerformanceStatsTable } from "../dashboard/performance-stats.tsx";
import { SIGNALS_POLL_MS, SignalsPanel } from "../dashboard/signals-panel.tsx";
import { WebhookUrlBox } from "../dashboard/webhook-url-box.tsx";
import { StatCard } from "../ui/stat-card.tsx";

export interface DashboardStats {
  stats: { activeTrades: number; todayPnL: string; totalSignals: number; systemHealth: string };
  systemStatus: SystemStatusEntry[];
}

export interface DashboardData {
  isAdmin: boolean;
  stats: DashboardStats;
  signals: Signal[];
  trades: Trade[];
  logs: ActivityLog[];
  balance: BalanceInfo | null;
  positions: PositionSummary[];
  performance: PerformanceStats | null;
  webhook: { url: string; port: number } | null;
}

export function DashboardScreen({ data }: { data: DashboardData }) {
  const stats = useApiQuery<DashboardStats>("/api/dashboard/stats", { initialData: data.stats, refetchIntervalMs: 45_000 });
  const signals = useApiQuery<Signal[]>("/api/signals?limit=10", { initialData: data.signals, refetchIntervalMs: SIGNALS_POLL_MS });
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
  const webhookOnline = component("webhook")?.status === "online";
  const exchange = component("coinbase_api");
  const exchangeConnected = exchange?.status === "online";
  const todayPnL = stats.data?.stats.todayPnL ?? "0";
  const pnlStatus = D(todayPnL).gt(0) ? "success" : D(todayPnL).lt(0) ? "error" : "neutral";

  return (
    <Box>
      <DashboardHeader emergencyActive={component("system")?.status === "warning"} lastSignalAt={signals.data?.[0]?.createdAt ?? null} />
      <Box sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", sm: "1fr 1fr", lg: "repeat(4, 1fr)" }, mb: 2 }}>
        <StatCard testId="card-webhook" title="Webhook Status" value={webhookOnline ? "online" : "offline"} icon={<WebhookIcon />} status={webhookOnline ? "success" : "error"} description={component("webhook")?.message} />
        <StatCard testId="card-exchange" title="Exchange API" value={exchangeConnected ? "connected" : "disconnected"} icon={<HubIcon />} status={exchangeConnected ? "success" : exchange?.status === "warning" ? "warning" : "error"} description={exchange?.message} />
        <StatCard testId="card-active-trades" title="Active Trades" value={String(stats.data?.stats.activeTrades ?? 0)} icon={<ShowChartIcon />} description="Open positions" />
        <StatCard testId="card-pnl" title="24h P&L" value={formatPnl(todayPnL)} icon={<AccountBalanceWalletIcon />} status={pnlStatus} description="Realised, after fees" />
      </Box>
      <Box sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", lg: "3fr 2fr" }, alignItems: "start" }}>
        <Box sx={{ display: "grid", gap: 2, minWidth: 0 }}>
          <SignalsPanel signals={signals.data ?? []} />
          <OpenPositions positions={positions.data ?? []} />
          <RecentOrders trades={trades.data ?? []} />
        </Box>
        <Box sx={{ display: "grid", gap: 2, minWidth: 0 }}>
          <ManualTradeForm balance={balance.data ?? null} />
          {data.isAdmin && data.webhook ? <WebhookUrlBox url={data.webhook.url} port={data.webhook.port} /> : null}
        </Box>
      </Box>
      <Box sx={{ display: "grid", gap: 2, mt: 2 }}>
        <PerformanceStatsTable initial={data.performance} />
        <ActivityLogPanel initialLogs={data.logs} limit={20} refetchIntervalMs={90_000} />
      </Box>
    </Box>
  );
}
