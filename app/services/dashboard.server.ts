// GET /api/dashboard/stats: the four status cards' numbers and the system status list.
import type { AppLoadContext } from "@remix-run/node";
import type { StatsLedger } from "#app/core/pnl/ledger.ts";
import { countSignals } from "#db/queries/signals.ts";
import { getNetPnlSince, getStatsLedger } from "./statistics.server.ts";
import { getSystemStatusForPage } from "./health.server.ts";

/** `ledger`: the statistics ledger when the caller already asked for it (one refresh, one fingerprint read, per request). */
export async function getDashboardStats(
  context: AppLoadContext,
  ledger: Promise<StatsLedger> = getStatsLedger(context.db),
) {
  const [health, activeTrades, todayPnL, totalSignals] = await Promise.all([
    getSystemStatusForPage(context),
    context.db
      .selectFrom("positions")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("status", "=", "open")
      .executeTakeFirst()
      .then((r) => Number(r?.n ?? 0)),
    // Net P&L (FIFO, fees shared pro rata) of the matches closed in the last 24 h plus the
    // funding charged in them: the one ledger every other total reads (docs/pnl.md), so the
    // card, Trade History, the statistics and the APIs agree.
    getNetPnlSince(context.db, Date.now() - 24 * 60 * 60 * 1000, ledger),
    countSignals(context.db),
  ]);
  return {
    stats: { activeTrades, todayPnL, totalSignals, systemHealth: health.status },
    systemStatus: health.systemStatus,
  };
}
