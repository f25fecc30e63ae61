// Passwords after registration (issue 23, decision 041): a user changes their own (the current
// password required, throttled like the login, every OTHER session ended), and an admin makes a
// one-time reset link for another account (only its SHA-256 stored, 1 h, used once; redeeming
// it sets the new password and ends every session of the account). No plaintext password is
// ever generated or shown. Each change is one transaction with its audit entry and log line.
import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import { recordActivity } from "#db/queries/activity-logs.ts";
import { recordAudit } from "#db/queries/audit.ts";
import { clearThrottle, reserveLoginAttempt } from "#db/queries/login-throttles.ts";
import { type User, userRowToUser } from "#db/queries/users.ts";
import { nowMs, sha256Hex } from "#db/queries/util.ts";
import type { DB } from "#db/schema.ts";
import { RESET_LINK_INVALID } from "#app/core/schemas/auth.ts";
import { hashPassword, verifyPassword } from "./auth.server.ts";
import { closeEndedSockets } from "./users.server.ts";

type Outcome<T> = { ok: true; value: T } | { ok: false; status: number; error: string; field?: string };

/** A reset link works this long after the admin made it. */
export const RESET_LINK_TTL_MS = 60 * 60 * 1000;
export const RESET_PATH = "/reset-password";
export { RESET_LINK_INVALID };
export const OWN_RESET_REFUSED = "Change your own password on the Account screen (it asks for your current password)";
export const WRONG_CURRENT_PASSWORD = "The current password is wrong";

/**
 * Guessing the current password from a stolen session is throttled like the login
 * (app/services/auth.server.ts, decision 016): per account, 5 wrong tries free, then 30 s
 * doubling, at most 15 minutes; reserved before the hash is checked, so parallel tries get no
 * more checks and a refusal costs no argon2 hash. A right password clears it.
 */
export const PASSWORD_CHANGE_THROTTLE = { free: 5, baseMs: 30_000, maxLockMs: 15 * 60_000, resetAfterMs: 60 * 60_000 };
const changeLock = (failures: number) =>
  failures < PASSWORD_CHANGE_THROTTLE.free
    ? 0
    : Math.min(
        PASSWORD_CHANGE_THROTTLE.baseMs * 2 ** (failures - PASSWORD_CHANGE_THROTTLE.free),
        PASSWORD_CHANGE_THROTTLE.maxLockMs,
      );
export const passwordChangeKey = (userId: string) => `password-change:${userId}`;

/**
 * Changes the signed-in user's password. `keepSessionToken` is the session making the change:
 * it stays; every other session of the account ends (and its live sockets close).
 */
export async function changeOwnPassword(
  db: Kysely<DB>,
  input: {
    user: User;
    currentPassword: string;
    newPassword: string;
    keepSessionToken: string | null;
    ip: string | null;
  },
): Promise<Outcome<{ sessionsEnded: number }>> {
  const key = passwordChangeKey(input.user.id);
  const reservation = await reserveLoginAttempt(
    db,
    [{ key, lockFor: changeLock }],
    PASSWORD_CHANGE_THROTTLE.resetAfterMs,
  );
  if (!reservation.ok) {
    const seconds = Math.ceil(reservation.retryAfterMs / 1000);
    return {
      ok: false,
      status: 429,
      error: `Too many wrong passwords. Try again in ${seconds} seconds.`,
      field: "currentPassword",
    };
  }
  const row = await db.selectFrom("users").select("password_hash").where("id", "=", input.user.id).executeTakeFirst();
  if (!row || !(await verifyPassword(input.currentPassword, row.password_hash))) {
    await recordActivity(db, {
      type: "auth",
      level: "warning",
      message: `Password change for ${input.user.username} refused: wrong current password`,
      data: { username: input.user.username, ip: input.ip },
    });
    return { ok: false, status: 401, error: WRONG_CURRENT_PASSWORD, field: "currentPassword" };
  }
  const passwordHash = await hashPassword(input.newPassword);
  const keep = input.keepSessionToken ? sha256Hex(input.keepSessionToken) : "";
  const sessionsEnded = await db.transaction().execute(async (trx) => {
    await trx
      .updateTable("users")
      .set({ password_hash: passwordHash, updated_at: nowMs() })
      .where("id", "=", input.user.id)
      .execute();
    const ended = await trx
      .deleteFrom("sessions")
      .where("user_id", "=", input.user.id)
      .where("id", "!=", keep)
      .executeTakeFirst();
    // A reset link an admin made earlier would undo this change: it goes too.
    await trx.deleteFrom("password_resets").where("user_id", "=", input.user.id).execute();
    await clearThrottle(trx, key);
    const count = Number(ended.numDeletedRows ?? 0);
    // The field is named "password": the trail stores "(changed)", never a value (db/queries/audit.ts).
    await recordAudit(trx, {
      actor: input.user.username,
      action: "user.password_change",
      target: input.user.username,
      before: { password: "previous" },
      after: { password: "new" },
    });
    await recordActivity(trx, {
      type: "auth",
      level: "info",
      message: `${input.user.username} changed their password (${count} other session${count === 1 ? "" : "s"} signed out)`,
      data: { username: input.user.username, ip: input.ip, sessionsEnded: count },
    });
    return count;
  });
  await closeEndedSockets(db);
  return { ok: true, value: { sessionsEnded } };
}

export interface ResetLink {
  username: string;
  url: string;
  expiresAt: string;
}

/**
 * An admin's one-time reset link for another account. Any older unused link of that account
 * stops working (one open link per account). The token is returned once, in the link; the
 * table keeps its SHA-256.
 */
export async function createPasswordResetLink(
  db: Kysely<DB>,
  by: User,
  userId: string,
  origin: string,
): Promise<Outcome<ResetLink>> {
  if (userId === by.id) return { ok: false, status: 403, error: OWN_RESET_REFUSED };
  const token = randomBytes(32).toString("base64url");
  const now = nowMs();
  const expiresAt = now + RESET_LINK_TTL_MS;
  return db.transaction().execute(async (trx): Promise<Outcome<ResetLink>> => {
    const row = await trx.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirst();
    if (!row) return { ok: false, status: 404, error: "User not found" };
    const user = userRowToUser(row);
    const replaced = await trx
      .deleteFrom("password_resets")
      .where("user_id", "=", userId)
      .where("used_at", "is", null)
      .executeTakeFirst();
    await trx
      .insertInto("password_resets")
      .values({
        token_hash: sha256Hex(token),
        user_id: userId,
        created_by: by.id,
        created_at: now,
        expires_at: expiresAt,
        used_at: null,
      })
      .execute();
    await recordAudit(trx, {
      actor: by.username,
      action: "user.password_reset_link",
      target: user.username,
      after: { resetLink: "created", expiresAt: new Date(expiresAt).toISOString() },
    });
    const older = Number(replaced.numDeletedRows ?? 0);
    await recordActivity(trx, {
      type: "auth",
      level: "warning",
      message: `${by.username} made a one-time password reset link for ${user.username} (valid 1 hour${older ? "; the older link no longer works" : ""})`,
      data: { by: by.username, username: user.username },
    });
    return {
      ok: true,
      value: {
        username: user.username,
        url: `${origin}${RESET_PATH}?${new URLSearchParams({ token })}`,
        expiresAt: new Date(expiresAt).toISOString(),
      },
    };
  });
}

/** The account a reset link is for while it is valid (unused, unexpired, account still there), else null. */
export async function findPasswordReset(
  db: Kysely<DB>,
  token: string,
): Promise<{ userId: string; username: string; expiresAt: number } | null> {
  if (!token || token.length > 128) return null;
  const row = await db
    .selectFrom("password_resets")
    .innerJoin("users", "users.id", "password_resets.user_id")
    .select(["password_resets.user_id", "password_resets.expires_at", "users.username"])
    .where("password_resets.token_hash", "=", sha256Hex(token))
    .where("password_resets.used_at", "is", null)
    .where("password_resets.expires_at", ">", nowMs())
    .executeTakeFirst();
  return row ? { userId: row.user_id, username: row.username, expiresAt: Number(row.expires_at) } : null;
}

/**
 * Sets the new password through a reset link: the link is used up in the same transaction
 * (only one of two parallel posts wins), and every session of the account ends.
 */
export async function redeemPasswordReset(
  db: Kysely<DB>,
  input: { token: string; newPassword: string; ip: string | null },
): Promise<Outcome<{ username: string }>> {
  // The hash costs argon2: only for a link that is valid now (a stranger's guess costs a lookup).
  const reset = await findPasswordReset(db, input.token);
  if (!reset) return { ok: false, status: 410, error: RESET_LINK_INVALID };
  const passwordHash = await hashPassword(input.newPassword);
  const outcome = await db.transaction().execute(async (trx): Promise<Outcome<{ username: string }>> => {
    const now = nowMs();
    const used = await trx
      .updateTable("password_resets")
      .set({ used_at: now })
      .where("token_hash", "=", sha256Hex(input.token))
      .where("used_at", "is", null)
      .where("expires_at", ">", now)
      .executeTakeFirst();
    if (Number(used.numUpdatedRows ?? 0) !== 1) return { ok: false, status: 410, error: RESET_LINK_INVALID };
    await trx
      .updateTable("users")
      .set({ password_hash: passwordHash, updated_at: now })
      .where("id", "=", reset.userId)
      .execute();
    const ended = Number(
      (await trx.deleteFrom("sessions").where("user_id", "=", reset.userId).executeTakeFirst()).numDeletedRows ?? 0,
    );
    await recordAudit(trx, {
      actor: reset.username,
      action: "user.password_reset",
      target: reset.username,
      before: { password: "previous" },
      after: { password: "new" },
    });
    await recordActivity(trx, {
      type: "auth",
      level: "warning",
      message: `${reset.username} set a new password through a one-time reset link (${ended} session${ended === 1 ? "" : "s"} signed out)`,
      data: { username: reset.username, ip: input.ip, sessionsEnded: ended },
    });
    return { ok: true, value: { username: reset.username } };
  });
  if (outcome.ok) await closeEndedSockets(db);
  return outcome;
}
