// Trading configuration and the emergency stop, for page actions and API routes alike.
import type { Kysely } from "kysely";
import { type TradingConfig, parseTradingConfigBody } from "#app/core/schemas/trading-config.ts";
import { recordActivity } from "#db/queries/activity-logs.ts";
import { appendEvent } from "#db/queries/events.ts";
import { clearSettingsCache } from "#db/queries/settings.ts";
import { getTradingConfig, saveTradingConfig, setEmergencyStop } from "#db/queries/trading-state.ts";
import type { DB } from "#db/schema.ts";
import { recordAudit } from "#db/queries/audit.ts";

export { getTradingConfig };

export async function updateTradingConfig(
  db: Kysely<DB>,
  body: unknown,
  by: string,
): Promise<{ ok: true; config: TradingConfig } | { ok: false; error: string; field?: string }> {
  const current = await getTradingConfig(db);
  const parsed = parseTradingConfigBody(body, current);
  if (!parsed.success) return { ok: false, error: parsed.error, field: parsed.field };
  await db.transaction().execute(async (trx) => {
    await saveTradingConfig(trx, parsed.config);
    await recordAudit(trx, { actor: by, action: "trading_config.update", target: "trading_config", before: { ...current }, after: { ...parsed.config } });
    await recordActivity(trx, {
      type: "system",
      level: "info",
      message: `Trading rules saved by ${by}`,
      data: { autoTradingEnabled: parsed.config.autoTradingEnabled, orderSizeMultiplier: parsed.config.orderSizeMultiplier },
    });
    await appendEvent(trx, "dashboard_update", { reason: "trading_config" });
  });
  clearSettingsCache();
  return { ok: true, config: parsed.config };
}

export const EMERGENCY_STOP_MESSAGE =
  "Emergency stop activated: no new positions are opened until it is reset; stop-loss, take-profit and Close keep working";
/** Job tasks that open or add to positions: what the emergency stop cancels. */
const ENTRY_TASKS = ["execute-signal", "place-order"];

export const EMERGENCY_RESET_MESSAGE = "Emergency stop reset: trading resumed";

/**
 * Stops new entries from every source (signals, manual orders) until reset. Protection and
 * closes keep running: reduce-only close jobs are not cancelled (issue 11).
 */
export async function activateEmergencyStop(db: Kysely<DB>, by: string) {
  await db.transaction().execute(async (trx) => {
    await setEmergencyStop(trx, true, by);
    await recordAudit(trx, { actor: by, action: "emergency_stop.activate", target: "emergency_stop", before: { active: false }, after: { active: true } });
    // Queued work that would open or add to a position ends here, with the reason on each job.
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
        .where("id", "in", pending.map((p) => p.id))
        .execute();
      await trx
        .updateTable("signals")
        .set({ status: "skipped", status_reason: "Emergency stop is active: no order sent", processed_at: Date.now() })
        .where("status", "=", "queued")
        .execute();
    }
    // A warning, not an error: it is a deliberate act (an error would also raise the live "System Alert").
    await recordActivity(trx, { type: "system", level: "warning", message: `Emergency stop activated by ${by}`, data: { cancelledJobs: pending.length } });
    await appendEvent(trx, "system_status", { component: "system", status: "warning", message: EMERGENCY_STOP_MESSAGE });
  });
  clearSettingsCache();
  return { success: true, message: EMERGENCY_STOP_MESSAGE };
}

export async function resetEmergencyStop(db: Kysely<DB>, by: string) {
  await db.transaction().execute(async (trx) => {
    await setEmergencyStop(trx, false, by);
    await recordAudit(trx, { actor: by, action: "emergency_stop.reset", target: "emergency_stop", before: { active: true }, after: { active: false } });
    await recordActivity(trx, { type: "system", level: "success", message: `Emergency stop reset by ${by}` });
    await appendEvent(trx, "system_status", { component: "system", status: "online", message: EMERGENCY_RESET_MESSAGE });
  });
  clearSettingsCache();
  return { success: true, message: EMERGENCY_RESET_MESSAGE };
}
