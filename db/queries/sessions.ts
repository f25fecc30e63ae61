// Server-side sessions: the cookie carries a random token, the table keeps its SHA-256.
import { randomBytes } from "node:crypto";
import { type User, userRowToUser } from "./users.ts";
import { type Db, nowMs, sha256Hex } from "./util.ts";

import type { SessionInfo, SessionPolicy } from "#app/core/types/sessions.ts";

/** The domain types live in app/core (decision 042); callers may keep importing them from here. */
export type { SessionInfo, SessionPolicy } from "#app/core/types/sessions.ts";

export async function createSession(
  db: Db,
  input: { userId: string; ip?: string | null; userAgent?: string | null; policy: SessionPolicy },
): Promise<{ token: string; session: SessionInfo }> {
  const token = randomBytes(32).toString("base64url");
  const now = nowMs();
  const session: SessionInfo = {
    id: sha256Hex(token),
    userId: input.userId,
    createdAt: now,
    expiresAt: now + Math.min(input.policy.idleMs, input.policy.absoluteMs),
    lastSeenAt: now,
  };
  await db
    .insertInto("sessions")
    .values({
      id: session.id,
      user_id: session.userId,
      created_at: now,
      expires_at: session.expiresAt,
      last_seen_at: now,
      ip: input.ip?.slice(0, 64) ?? null,
      user_agent: input.userAgent?.slice(0, 255) ?? null,
    })
    .execute();
  return { token, session };
}

/**
 * The user behind a cookie token, or null when the session is unknown or expired.
 * Slides the idle expiry (at most once a minute, to keep reads cheap), never past the
 * absolute limit.
 */
/** Whether the session exists and has not expired (a read only: it does not extend it). */
export async function sessionIsLive(db: Db, token: string): Promise<boolean> {
  if (!token) return false;
  const row = await db
    .selectFrom("sessions")
    .select("expires_at")
    .where("id", "=", sha256Hex(token))
    .executeTakeFirst();
  return Boolean(row && Number(row.expires_at) > nowMs());
}

export async function getSessionUser(
  db: Db,
  token: string,
  policy: SessionPolicy,
): Promise<{ user: User; session: SessionInfo } | null> {
  if (!token) return null;
  const id = sha256Hex(token);
  const row = await db
    .selectFrom("sessions")
    .innerJoin("users", "users.id", "sessions.user_id")
    .selectAll("users")
    .select([
      "sessions.id as session_id",
      "sessions.created_at as session_created_at",
      "sessions.expires_at as session_expires_at",
      "sessions.last_seen_at as session_last_seen_at",
    ])
    .where("sessions.id", "=", id)
    .executeTakeFirst();
  if (!row) return null;
  // A disabled account keeps no session: refused here at once, whatever the cookie.
  if (Number(row.disabled ?? 0) === 1) return null;
  const now = nowMs();
  if (Number(row.session_expires_at) <= now) {
    await db.deleteFrom("sessions").where("id", "=", id).execute();
    return null;
  }
  const session: SessionInfo = {
    id,
    userId: row.id,
    createdAt: Number(row.session_created_at),
    expiresAt: Number(row.session_expires_at),
    lastSeenAt: Number(row.session_last_seen_at),
  };
  if (now - session.lastSeenAt > 60_000) {
    session.expiresAt = Math.min(now + policy.idleMs, session.createdAt + policy.absoluteMs);
    session.lastSeenAt = now;
    await db
      .updateTable("sessions")
      .set({ last_seen_at: now, expires_at: session.expiresAt })
      .where("id", "=", id)
      .execute();
  }
  return { user: userRowToUser(row), session };
}

export async function deleteSessionByToken(db: Db, token: string): Promise<void> {
  if (!token) return;
  await db.deleteFrom("sessions").where("id", "=", sha256Hex(token)).execute();
}

export async function deleteUserSessions(db: Db, userId: string): Promise<number> {
  const result = await db.deleteFrom("sessions").where("user_id", "=", userId).executeTakeFirst();
  return Number(result.numDeletedRows ?? 0);
}

export async function deleteExpiredSessions(db: Db, now = nowMs()): Promise<number> {
  const result = await db.deleteFrom("sessions").where("expires_at", "<=", now).executeTakeFirst();
  return Number(result.numDeletedRows ?? 0);
}
