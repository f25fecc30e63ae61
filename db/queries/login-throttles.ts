// Failed-login counters, per account name and per client address, kept in the database so
// that every web process sees the same counts.
import { sql } from "kysely";
import { type Db, isMysql, nowMs } from "./util.ts";

export interface Throttle {
  key: string;
  failures: number;
  lockedUntil: number | null;
  updatedAt: number;
}

export async function getThrottle(db: Db, key: string): Promise<Throttle | null> {
  const row = await db.selectFrom("login_throttles").selectAll().where("key", "=", key).executeTakeFirst();
  if (!row) return null;
  return {
    key: row.key,
    failures: Number(row.failures),
    lockedUntil: row.locked_until == null ? null : Number(row.locked_until),
    updatedAt: Number(row.updated_at),
  };
}

/**
 * Counts one more failure and sets the lock the policy gives for the new count.
 * Failures older than `resetAfterMs` are forgotten first. The count is one atomic
 * upsert (parallel failures are all counted, and no read-then-write lock can deadlock);
 * call inside a transaction so the lock that follows is based on this count.
 */
export async function recordLoginFailure(
  db: Db,
  key: string,
  lockFor: (failures: number) => number,
  resetAfterMs: number,
): Promise<Throttle> {
  const now = nowMs();
  const cutoff = now - resetAfterMs;
  // MySQL evaluates the assignments left to right: failures must read the old updated_at.
  const counted = sql<number>`case when updated_at < ${cutoff} then 1 else failures + 1 end`;
  const insert = db.insertInto("login_throttles").values({ key, failures: 1, locked_until: null, updated_at: now });
  if (isMysql(db)) await insert.onDuplicateKeyUpdate({ failures: counted, updated_at: now }).execute();
  else await insert.onConflict((oc) => oc.column("key").doUpdateSet({ failures: counted, updated_at: now })).execute();
  const row = await db.selectFrom("login_throttles").select("failures").where("key", "=", key).executeTakeFirstOrThrow();
  const failures = Number(row.failures);
  const lockMs = lockFor(failures);
  const lockedUntil = lockMs > 0 ? now + lockMs : null;
  await db.updateTable("login_throttles").set({ locked_until: lockedUntil }).where("key", "=", key).execute();
  return { key, failures, lockedUntil, updatedAt: now };
}

export async function clearThrottle(db: Db, key: string): Promise<void> {
  await db.deleteFrom("login_throttles").where("key", "=", key).execute();
}
