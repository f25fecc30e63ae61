// Trading configuration and the emergency stop, for page actions and API routes alike.
import type { Kysely } from "kysely";
import { type TradingConfig, parseTradingConfigBody } from "#app/core/schemas/trading-config.ts";
import { recordActivity } from "#db/queries/activity-logs.ts";
import { appendEvent } from "#db/queries/events.ts";
import { activateEmergencyStop } from "#db/queries/emergency-stop.ts";
import { clearSettingsCache } from "#db/queries/settings.ts";
import { getEmergencyStop, getTradingConfig, saveTradingConfig, setEmergencyStop } from "#db/queries/trading-state.ts";
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
    await recordAudit(trx, {
      actor: by,
      action: "trading_config.update",
      target: "trading_config",
      before: { ...current },
      after: { ...parsed.config },
    });
    await recordActivity(trx, {
      type: "system",
      level: "info",
      message: `Trading rules saved by ${by}`,
      data: {
        autoTradingEnabled: parsed.config.autoTradingEnabled,
        orderSizeMultiplier: parsed.config.orderSizeMultiplier,
      },
    });
    await appendEvent(trx, "dashboard_update", { reason: "trading_config" });
  });
  clearSettingsCache();
  return { ok: true, config: parsed.config };
}

export const EMERGENCY_RESET_MESSAGE = "Emergency stop reset: trading resumed";

/**
 * The emergency stop's switch for the header button, the dashboard's forms and the API
 * (decision 019). On: the one activation transaction the worker's Telegram /stop runs too
 * (db/queries/emergency-stop.ts). Off: the switch, its audit entry, the log line and the live
 * status in one transaction. Either way this process's settings cache is cleared at once.
 */
export async function switchEmergencyStop(
  db: Kysely<DB>,
  on: boolean,
  by: string,
): Promise<{ success: boolean; message: string }> {
  if (on) return activateEmergencyStop(db, by);
  await db.transaction().execute(async (trx) => {
    const { active } = await getEmergencyStop(trx);
    await setEmergencyStop(trx, false, by);
    // Resetting a stop that is not active changes nothing: no audit row (issue 23).
    await recordAudit(trx, {
      actor: by,
      action: "emergency_stop.reset",
      target: "emergency_stop",
      before: { active },
      after: { active: false },
    });
    await recordActivity(trx, { type: "system", level: "success", message: `Emergency stop reset by ${by}` });
    await appendEvent(trx, "system_status", {
      component: "system",
      status: "online",
      message: EMERGENCY_RESET_MESSAGE,
    });
  });
  clearSettingsCache();
  return { success: true, message: EMERGENCY_RESET_MESSAGE };
}
