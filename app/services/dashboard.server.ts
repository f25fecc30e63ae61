// GET /api/dashboard/stats: the four status cards' numbers and the system status list.
import type { AppLoadContext } from "@remix-run/node";
import { countSignals } from "#db/queries/signals.ts";
import { realizedPnlSince } from "#db/queries/trades.ts";
import { getSystemStatus } from "./health.server.ts";

export async function getDashboardStats(context: AppLoadContext) {
  const [health, activeTrades, todayPnL, totalSignals] = await Promise.all([
    getSystemStatus(context),
    context.db
      .selectFrom("positions")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("status", "=", "open")
      .executeTakeFirst()
      .then((r) => Number(r?.n ?? 0)),
    realizedPnlSince(context.db, Date.now() - 24 * 60 * 60 * 1000),
    countSignals(context.db),
  ]);
  return {
    stats: { activeTrades, todayPnL, totalSignals, systemHealth: health.status },
    systemStatus: health.systemStatus,
  };
}
