// Everything the dashboard shows on first paint (then each part polls its API).
import { listOpenOrders } from "./orders.server.ts";
import { listDrifts } from "./drifts.server.ts";
import type { AppLoadContext } from "@remix-run/node";
import { publicOrigin } from "#app/utils/api.server.ts";
import type { User } from "#db/queries/users.ts";
import { listActivityLogs } from "#db/queries/activity-logs.ts";
import { listSignals } from "#db/queries/signals.ts";
import { withTimelines } from "#db/queries/signal-timeline.ts";
import { latencyLine } from "#app/core/timeline.ts";
import { listTrades } from "#db/queries/trades.ts";
import { getDashboardStats } from "./dashboard.server.ts";
import { getExchange } from "#exchange/factory.ts";
import { listPositionViews } from "./positions.server.ts";
import { getDashboardChartsTable } from "./performance-charts.server.ts";
import { getPerformanceStats, getStatsLedger } from "./statistics.server.ts";
import { WEBHOOK_PATH } from "./webhook.server.ts";
import { sharedRead } from "./shared-read.server.ts";
import { logPreviewLine, positionSummary, recentOrder, signalRow } from "#app/core/dashboard-view.ts";

/**
 * The dashboard's first paint for this user. Pages that ask at about the same time share one
 * read (decision 037): admins all see the same data; anyone else sees their own sign-in
 * entries in the Activity Log, so their reads are their own.
 */
export function loadDashboard(request: Request, context: AppLoadContext, user: User) {
  const webhookUrl = user.role === "admin" ? `${publicOrigin(request, context)}${WEBHOOK_PATH}` : null;
  const viewer = user.role === "admin" ? "admin" : `user:${user.id}:${user.role}:${user.username}`;
  return sharedRead(context.db, `dashboard|${viewer}|${webhookUrl}`, () => readDashboard(context, user, webhookUrl));
}

async function readDashboard(context: AppLoadContext, user: User, webhookUrl: string | null) {
  const exchange = getExchange(context.db);
  // One statistics refresh for the 24 h P&L card and the Performance Statistics table: two
  // separate calls would each read the fills' fingerprint (a scan of the executed trades).
  const ledger = getStatsLedger(context.db);
  const [stats, signals, trades, logs, balance, positions, performance, drifts, orders, charts] = await Promise.all([
    getDashboardStats(context, ledger),
    // Each signal's latency as one line; its hops load when the row's timeline is opened (decision 043).
    listSignals(context.db, { limit: 10 })
      .then((signals) => withTimelines(context.db, signals))
      .then((signals) =>
        signals.map(({ timeline, ...signal }) => ({
          ...signalRow(signal),
          latency: timeline ? latencyLine(timeline) : null,
        })),
      ),
    // Each panel's rows carry only what the panel renders (app/core/dashboard-view.ts, decision 043).
    listTrades(context.db, { limit: 10 }).then((trades) => trades.map(recentOrder)),
    listActivityLogs(context.db, { limit: 20, viewer: user }).then((logs) => logs.map((log) => logPreviewLine(log))),
    exchange
      .getBalances()
      .then((balances) => ({ exchange: exchange.name, label: exchange.label, balances }))
      .catch(() => null),
    // The same views as GET /api/positions, so first paint and polling agree.
    listPositionViews(context.db, { maxAgeMs: context.config.PRICE_MAX_AGE_SECONDS * 1000 }).then((positions) =>
      positions.map(positionSummary),
    ),
    // GET /api/performance-stats's figures (funding included), so first paint and polling agree.
    getPerformanceStats(context.db, Date.now(), ledger),
    listDrifts(context.db),
    listOpenOrders(context.db),
    // The Performance card's last 30 days (decision 031): tables here, charts after hydration.
    getDashboardChartsTable(context.db, ledger),
  ]);
  return {
    drifts,
    orders,
    positions,
    performance,
    charts,
    isAdmin: user.role === "admin",
    // The cards' numbers; the system status list is the layout's (the same read, decision 014).
    stats: stats.stats,
    signals,
    trades,
    logs,
    balance,
    webhook: webhookUrl ? { url: webhookUrl, port: context.config.PORT } : null,
  };
}
