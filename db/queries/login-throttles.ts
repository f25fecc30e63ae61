// Failed-login counters, per account name and per client address, kept in the database so
// that every web process sees the same counts.
import { type Db, nowMs } from "./util.ts";

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
 * Failures older than `resetAfterMs` are forgotten first. Call inside a transaction.
 */
export async function recordLoginFailure(
  db: Db,
  key: string,
  lockFor: (failures: number) => number,
  resetAfterMs: number,
): Promise<Throttle> {
  const now = nowMs();
  const current = await getThrottle(db, key);
  const fresh = current && now - current.updatedAt < resetAfterMs;
  const failures = (fresh ? current.failures : 0) + 1;
  const lockMs = lockFor(failures);
  const lockedUntil = lockMs > 0 ? now + lockMs : null;
  if (current) {
    await db
      .updateTable("login_throttles")
      .set({ failures, locked_until: lockedUntil, updated_at: now })
      .where("key", "=", key)
      .execute();
  } else {
    await db.insertInto("login_throttles").ignore().values({ key, failures, locked_until: lockedUntil, updated_at: now }).execute();
  }
  return { key, failures, lockedUntil, updatedAt: now };
}

export async function clearThrottle(db: Db, key: string): Promise<void> {
  await db.deleteFrom("login_throttles").where("key", "=", key).execute();
}
