// Missed-alert detection (issue 12; migration 2026_11_25_0800): per strategy ("default" = the
// global webhook secret), the heartbeat alert it is expected to send, and its state.
// - recordStrategyHeartbeat: the webhook got one (action "heartbeat"): last_at, and a missed one is back;
// - checkStrategyHeartbeats (worker/monitor/heartbeats.ts): none within interval + grace -> missed.
import type { Selectable } from "kysely";
import type { StrategyHeartbeatsTable } from "../schema.ts";
import { recordActivity } from "./activity-logs.ts";
import { appendEvents } from "./events.ts";
import { type Db, nowMs } from "./util.ts";

export type HeartbeatRow = Selectable<StrategyHeartbeatsTable>;
import { DEFAULT_STRATEGY_KEY } from "#app/core/types/heartbeats.ts";

/** The domain types live in app/core (decision 042); callers may keep importing them from here. */
export { DEFAULT_STRATEGY_KEY, type HeartbeatState, type StrategyHeartbeat } from "#app/core/types/heartbeats.ts";

/** The grace when none is given: a fifth of the interval, at least 30 s. */
export const defaultGrace = (intervalSeconds: number) => Math.max(30, Math.round(intervalSeconds / 5));

export function dueAt(
  row: Pick<HeartbeatRow, "last_at" | "created_at" | "interval_seconds" | "grace_seconds">,
): number {
  return Number(row.last_at ?? row.created_at) + (Number(row.interval_seconds) + Number(row.grace_seconds)) * 1000;
}

/** Strategy key -> name ("default" for the global secret), for log lines and the screens. */
export async function heartbeatNames(db: Db): Promise<Map<string, string>> {
  const rows = await db.selectFrom("strategies").select(["id", "name"]).execute();
  return new Map([[DEFAULT_STRATEGY_KEY, "default"], ...rows.map((r) => [r.id, r.name] as [string, string])]);
}

/** The webhook got a heartbeat alert for this strategy. Returns whether one is expected. */
export async function recordStrategyHeartbeat(db: Db, strategyKey: string, now = nowMs()): Promise<boolean> {
  const row = await db
    .selectFrom("strategy_heartbeats")
    .selectAll()
    .where("strategy_key", "=", strategyKey)
    .executeTakeFirst();
  if (!row) return false;
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable("strategy_heartbeats")
      .set({ last_at: now, state: "ok", missed_since: null, updated_at: now })
      .where("strategy_key", "=", strategyKey)
      .execute();
    if (row.state === "missed") {
      const name = (await heartbeatNames(trx)).get(strategyKey) ?? strategyKey;
      const message = `Heartbeat from strategy ${name} is back after ${Math.max(0, Math.round((now - Number(row.missed_since ?? now)) / 1000))} s missed`;
      await recordActivity(trx, { type: "webhook", level: "success", message, data: { strategyKey } });
      await appendEvents(trx, [
        {
          type: "system_status",
          data: { component: "webhook", reason: "heartbeat", strategyKey, status: "online", message },
        },
        { type: "dashboard_update", data: { reason: "heartbeat", strategyKey } },
      ]);
    }
  });
  return true;
}

/** Heartbeats overdue now become missed (logged as an error and pushed live, once). Returns the newly missed. */
export async function checkStrategyHeartbeats(db: Db, now = nowMs()): Promise<string[]> {
  const rows = await db.selectFrom("strategy_heartbeats").selectAll().where("state", "!=", "missed").execute();
  const late = rows.filter((row) => now > dueAt(row));
  if (late.length === 0) return [];
  const named = await heartbeatNames(db);
  const missed: string[] = [];
  for (const row of late) {
    await db.transaction().execute(async (trx) => {
      // Only one worker marks it (the state is re-checked by the UPDATE itself).
      const changed = await trx
        .updateTable("strategy_heartbeats")
        .set({ state: "missed", missed_since: now, updated_at: now })
        .where("strategy_key", "=", row.strategy_key)
        .where("state", "!=", "missed")
        .executeTakeFirst();
      if (Number(changed.numUpdatedRows ?? 0) === 0) return;
      const name = named.get(row.strategy_key) ?? row.strategy_key;
      const since =
        row.last_at === null
          ? "none received since it was set up"
          : `the last came ${Math.round((now - Number(row.last_at)) / 1000)} s ago`;
      const message = `Missed heartbeat: strategy ${name} should send one every ${row.interval_seconds} s (grace ${row.grace_seconds} s); ${since}. Its alerts may not be reaching the app`;
      await recordActivity(trx, { type: "webhook", level: "error", message, data: { strategyKey: row.strategy_key } });
      await appendEvents(trx, [
        {
          type: "system_status",
          data: {
            component: "webhook",
            reason: "heartbeat",
            strategyKey: row.strategy_key,
            status: "warning",
            message,
          },
        },
        { type: "dashboard_update", data: { reason: "heartbeat", strategyKey: row.strategy_key } },
      ]);
      missed.push(row.strategy_key);
    });
  }
  return missed;
}
