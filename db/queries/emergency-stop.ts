// The emergency stop's activation (issue 11, decision 019), one transaction: the switch, its
// audit entry, the cancelled manual-order jobs, the log line and the live
// status. Here, below the services, because the header button (app/services/trading.server.ts)
// and the owner's Telegram /stop in the worker (decision 030) must run the very same code.
import type { Kysely } from "kysely";
import { recordActivity } from "./activity-logs.ts";
import { recordAudit } from "./audit.ts";
import { appendEvent } from "./events.ts";
import { clearSettingsCache } from "./settings.ts";
import { getEmergencyStop, setEmergencyStop } from "./trading-state.ts";
import type { DB } from "../schema.ts";

export const EMERGENCY_STOP_MESSAGE =
  "Emergency stop activated: no new positions are opened until it is reset; stop-loss, take-profit and Close keep working";
/**
 * Job tasks the emergency stop cancels: queued manual orders. Queued signals are not: the worker
 * decides each under the stop, so an exit alert queued a moment before it still goes out,
 * reduce-only, and an entry is skipped with the reason (issue 22, docs/decisions/019).
 */
const ENTRY_TASKS = ["place-order"];

/**
 * Stops new entries from every source (signals, manual orders) until reset. Protection and
 * closes keep running: reduce-only close jobs are not cancelled (issue 11).
 */
export async function activateEmergencyStop(db: Kysely<DB>, by: string) {
  await db.transaction().execute(async (trx) => {
    const { active } = await getEmergencyStop(trx);
    await setEmergencyStop(trx, true, by);
    // Stopping what is already stopped changes nothing: no audit row (issue 23).
    await recordAudit(trx, {
      actor: by,
      action: "emergency_stop.activate",
      target: "emergency_stop",
      before: { active },
      after: { active: true },
    });
    // Queued manual orders end here, with the reason on each job (they were written as plain orders).
    const pending = await trx
      .selectFrom("jobs")
      .select("id")
      .where("status", "in", ["created", "retry"])
      .where("task", "in", ENTRY_TASKS)
      .execute();
    if (pending.length) {
      await trx
        .updateTable("jobs")
        .set({ status: "cancelled", last_error: "Emergency stop", finished_at: Date.now(), updated_at: Date.now() })
        .where(
          "id",
          "in",
          pending.map((p) => p.id),
        )
        .execute();
    }
    // A warning, not an error: it is a deliberate act (an error would also raise the live "System Alert").
    await recordActivity(trx, {
      type: "system",
      level: "warning",
      message: `Emergency stop activated by ${by}`,
      data: { cancelledJobs: pending.length },
    });
    await appendEvent(trx, "system_status", {
      component: "system",
      status: "warning",
      message: EMERGENCY_STOP_MESSAGE,
    });
  });
  clearSettingsCache();
  return { success: true, message: EMERGENCY_STOP_MESSAGE };
}
