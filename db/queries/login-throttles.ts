// Failed-login counters, per account name and per client address, kept in the database so
// that every web process sees the same counts.
import { sql } from "kysely";
import { type Db, isMysql, nowMs, transactionWithLockRetry } from "./util.ts";

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
  const row = await db
    .selectFrom("login_throttles")
    .select("failures")
    .where("key", "=", key)
    .executeTakeFirstOrThrow();
  const failures = Number(row.failures);
  const lockMs = lockFor(failures);
  const lockedUntil = lockMs > 0 ? now + lockMs : null;
  await db.updateTable("login_throttles").set({ locked_until: lockedUntil }).where("key", "=", key).execute();
  return { key, failures, lockedUntil, updatedAt: now };
}

export async function clearThrottle(db: Db, key: string): Promise<void> {
  await db.deleteFrom("login_throttles").where("key", "=", key).execute();
}

export type Reservation = { ok: true; locked: Throttle[] } | { ok: false; retryAfterMs: number };

/**
 * Reserves one login attempt against every key BEFORE the password is checked: in one
 * transaction (rows locked FOR UPDATE on MySQL; SQLite's writer transaction is exclusive) a
 * key under a lock refuses the attempt, otherwise the attempt is counted as a failure up
 * front and the policy's lock set. So N parallel wrong passwords verify at most the free
 * allowance, however they interleave. A successful login then clears or refunds (see
 * clearThrottle / refundAttempt). `locked` lists the keys this attempt locked.
 */
export async function reserveLoginAttempt(
  db: Db,
  keys: { key: string; lockFor: (failures: number) => number }[],
  resetAfterMs: number,
): Promise<Reservation> {
  // Every row exists before the transaction, so FOR UPDATE always has a row to lock (two
  // transactions that both found no row would otherwise both pass).
  // On InnoDB the multi-row INSERT IGNORE can deadlock with the FOR UPDATE of a parallel
  // attempt (insert-intention vs record locks): it is retried like the transaction below.
  const now = nowMs();
  await transactionWithLockRetry(db, async (trx) => {
    const seed = trx
      .insertInto("login_throttles")
      .values(keys.map(({ key }) => ({ key, failures: 0, locked_until: null, updated_at: now })));
    if (isMysql(trx)) await seed.ignore().execute();
    else await seed.onConflict((oc) => oc.column("key").doNothing()).execute();
  });
  return transactionWithLockRetry(db, async (trx) => {
    const at = nowMs();
    let query = trx
      .selectFrom("login_throttles")
      .selectAll()
      .where(
        "key",
        "in",
        keys.map((k) => k.key),
      );
    if (isMysql(trx)) query = query.forUpdate();
    const rows = await query.execute();
    const lockedUntil = Math.max(0, ...rows.map((r) => (r.locked_until == null ? 0 : Number(r.locked_until))));
    if (lockedUntil > at) return { ok: false, retryAfterMs: lockedUntil - at };
    const locked: Throttle[] = [];
    for (const { key, lockFor } of keys) {
      const throttle = await recordLoginFailure(trx, key, lockFor, resetAfterMs);
      if (throttle.lockedUntil) locked.push(throttle);
    }
    return { ok: true, locked };
  });
}

/** Gives back one reserved attempt (a login that succeeded): one failure less, and no lock if under the allowance. */
export async function refundAttempt(db: Db, key: string, lockFor: (failures: number) => number): Promise<void> {
  const row = await getThrottle(db, key);
  if (!row) return;
  const failures = Math.max(0, row.failures - 1);
  const lockMs = lockFor(failures);
  await db
    .updateTable("login_throttles")
    .set({ failures, locked_until: lockMs > 0 ? row.updatedAt + lockMs : null })
    .where("key", "=", key)
    .execute();
}

/**
 * Records that the account's right password came from this source now (a `known:` row:
 * never counted, never locked; its updated_at says when). The login throttle's per-account
 * ceiling does not hold known sources (app/services/auth.server.ts THROTTLE).
 */
export async function markKnownSource(db: Db, key: string): Promise<void> {
  const now = nowMs();
  const insert = db.insertInto("login_throttles").values({ key, failures: 0, locked_until: null, updated_at: now });
  if (isMysql(db)) await insert.onDuplicateKeyUpdate({ updated_at: now }).execute();
  else await insert.onConflict((oc) => oc.column("key").doUpdateSet({ updated_at: now })).execute();
}
