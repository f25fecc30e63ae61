// Strategy heartbeats (decision 028) as the Webhook Config and Strategies screens and
// /api/heartbeats show and change them: the expectations, their state, and setting or clearing
// one (the row, its audit entry and the log line in one transaction). The webhook records
// heartbeats and the worker marks missed ones through db/queries/heartbeats.ts.
import type { Kysely } from "kysely";
import { DEFAULT_STRATEGY_KEY, type HeartbeatState, type StrategyHeartbeat } from "#app/core/types/heartbeats.ts";
import { recordActivity } from "#db/queries/activity-logs.ts";
import { recordAudit } from "#db/queries/audit.ts";
import { defaultGrace, dueAt, heartbeatNames } from "#db/queries/heartbeats.ts";
import { isMysql, nowMs } from "#db/queries/util.ts";
import type { DB } from "#db/schema.ts";

type Db = Kysely<DB>;

/** Whether a heartbeat may be expected under this key: "default" (the global secret) or a strategy's id. */
export async function isHeartbeatKey(db: Db, key: string): Promise<boolean> {
  if (key === DEFAULT_STRATEGY_KEY) return true;
  return Boolean(await db.selectFrom("strategies").select("id").where("id", "=", key).executeTakeFirst());
}

export async function listStrategyHeartbeats(db: Db): Promise<StrategyHeartbeat[]> {
  const [rows, named] = await Promise.all([
    db.selectFrom("strategy_heartbeats").selectAll().orderBy("strategy_key").execute(),
    heartbeatNames(db),
  ]);
  return rows.map((row) => ({
    strategyKey: row.strategy_key,
    name: named.get(row.strategy_key) ?? row.strategy_key,
    intervalSeconds: Number(row.interval_seconds),
    graceSeconds: Number(row.grace_seconds),
    lastAt: row.last_at === null ? null : Number(row.last_at),
    state: row.state as HeartbeatState,
    missedSince: row.missed_since === null ? null : Number(row.missed_since),
    dueAt: dueAt(row),
  }));
}

/** Expects a heartbeat every `intervalSeconds` (+ grace) from the strategy; null stops expecting one. */
export async function setHeartbeatExpectation(
  db: Db,
  strategyKey: string,
  expectation: { intervalSeconds: number; graceSeconds?: number | null } | null,
  by: string,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (!expectation) {
      const deleted = await trx
        .deleteFrom("strategy_heartbeats")
        .where("strategy_key", "=", strategyKey)
        .executeTakeFirst();
      // Nothing was expected: clearing changes nothing, no audit row (issue 23).
      if (Number(deleted.numDeletedRows) === 0) return;
      await recordAudit(trx, {
        actor: by,
        action: "heartbeat.clear",
        target: strategyKey,
        before: { expected: true },
        after: { expected: false },
      });
      await recordActivity(trx, {
        type: "webhook",
        level: "info",
        message: `Heartbeat no longer expected from strategy ${(await heartbeatNames(trx)).get(strategyKey) ?? strategyKey} (by ${by})`,
        data: { strategyKey },
      });
      return;
    }
    const now = nowMs();
    const grace = expectation.graceSeconds ?? defaultGrace(expectation.intervalSeconds);
    const existing = await trx
      .selectFrom("strategy_heartbeats")
      .select(["interval_seconds", "grace_seconds"])
      .where("strategy_key", "=", strategyKey)
      .executeTakeFirst();
    // The same interval and grace again: no audit row (issue 23); the clock still restarts below.
    await recordAudit(trx, {
      actor: by,
      action: "heartbeat.set",
      target: strategyKey,
      before: existing
        ? { intervalSeconds: Number(existing.interval_seconds), graceSeconds: Number(existing.grace_seconds) }
        : null,
      after: { intervalSeconds: expectation.intervalSeconds, graceSeconds: grace },
    });
    const values = {
      interval_seconds: expectation.intervalSeconds,
      grace_seconds: grace,
      state: "waiting",
      missed_since: null,
      updated_at: now,
    };
    // A new expectation starts its clock now (created_at), keeping the last heartbeat seen.
    const insert = trx
      .insertInto("strategy_heartbeats")
      .values({ strategy_key: strategyKey, last_at: null, created_at: now, ...values });
    if (isMysql(trx)) await insert.onDuplicateKeyUpdate({ ...values, created_at: now }).execute();
    else
      await insert.onConflict((oc) => oc.column("strategy_key").doUpdateSet({ ...values, created_at: now })).execute();
    await recordActivity(trx, {
      type: "webhook",
      level: "info",
      message: `Heartbeat expected from strategy ${(await heartbeatNames(trx)).get(strategyKey) ?? strategyKey} every ${expectation.intervalSeconds} s (grace ${grace} s), set by ${by}`,
      // The strategy's own line: its Activity Log filter finds it (issue 25).
      data: { strategyKey },
    });
  });
}
