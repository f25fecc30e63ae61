// The Dashboard (docs/spec/screens.md): header, four status cards, performance statistics, signals,
// recent orders and positions, the webhook URL (admins), manual trading, activity log.
// Each part starts from the server's data and then polls its API at the cadence of docs/spec/figures.md#defaults-and-limits;
// live messages refresh them sooner.
import Box from "@mui/material/Box";
import { useRouteLoaderData } from "@remix-run/react";
import CircularProgress from "@mui/material/CircularProgress";
import Typography from "@mui/material/Typography";
import { D } from "#app/core/decimal.ts";
import { type SystemStatusEntry, webhookCard } from "#app/core/system-status.ts";
import type { LogLine, RecentOrder } from "#app/core/dashboard-view.ts";
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
import { S } from "./dashboard-screen.css.ts";
import { StatCard } from "../ui/stat-card.tsx";
import { SpriteIcon } from "../ui/plain-icon.tsx";

export interface DashboardStats {
  stats: { activeTrades: number; todayPnL: string; totalSignals: number; systemHealth: string };
  systemStatus: SystemStatusEntry[];
}

export interface DashboardData {
  isAdmin: boolean;
  /** The cards' numbers; the status list comes from the layout's loader (the same read). */
  stats: DashboardStats["stats"];
  signals: PanelSignal[];
  trades: RecentOrder[];
  logs: LogLine[];
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
  const layout = useRouteLoaderData<{ systemStatus: SystemStatusEntry[] }>("routes/_app+/_layout");
  const stats = useApiQuery<DashboardStats>("/api/dashboard/stats", {
    initialData: { stats: data.stats, systemStatus: layout?.systemStatus ?? [] },
    refetchIntervalMs: 45_000,
  });
  const signals = useApiQuery<PanelSignal[]>("/api/signals?limit=10", {
    initialData: data.signals,
    refetchIntervalMs: SIGNALS_POLL_MS,
  });
  const trades = useApiQuery<RecentOrder[]>("/api/trades?limit=10", {
    initialData: data.trades,
    refetchIntervalMs: 60_000,
  });
  const positions = useApiQuery<PositionSummary[]>("/api/positions", {
    initialData: data.positions,
    refetchIntervalMs: 5_000,
  });
  const balance = useApiQuery<BalanceInfo>("/api/balance", {
    initialData: data.balance ?? undefined,
    refetchIntervalMs: 120_000,
  });

  const loading =
    (!stats.data && stats.isLoading) || (!signals.data && signals.isLoading) || (!trades.data && trades.isLoading);
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
      <DashboardHeader
        emergencyActive={component("system")?.status === "warning"}
        lastSignalAt={signals.data?.[0]?.createdAt ?? null}
      />
      <DriftAlarms initial={data.drifts ?? null} />
      {/* The cards' icons: symbols of the cached sprite (app/components/ui/icons.svg; decision 043). */}
      <div className={S.cards}>
        <StatCard
          testId="card-webhook"
          title="Webhook Status"
          value={webhook.value}
          icon={<SpriteIcon id="webhook" />}
          status={webhook.status}
          description={component("webhook")?.message}
        />
        <StatCard
          testId="card-exchange"
          title="Exchange API"
          value={exchangeConnected ? "connected" : "disconnected"}
          icon={<SpriteIcon id="hub" />}
          status={exchangeConnected ? "success" : exchange?.status === "warning" ? "warning" : "error"}
          description={exchange?.message}
        />
        <StatCard
          testId="card-active-trades"
          title="Active Trades"
          value={String(stats.data?.stats.activeTrades ?? 0)}
          icon={<SpriteIcon id="positions" />}
          description="Open positions"
        />
        <StatCard
          testId="card-pnl"
          title="24h P&L"
          value={formatPnl(todayPnL)}
          icon={<SpriteIcon id="wallet" />}
          status={pnlStatus}
          description="Realised, after fees"
        />
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
