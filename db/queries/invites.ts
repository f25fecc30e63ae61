// Registration invitations (issue 10): one-use codes an admin hands out, each granting a role,
// valid for 7 days. The code is a bearer secret of 128 random bits shown only to admins.
import { randomBytes } from "node:crypto";
import type { ExpressionBuilder } from "kysely";
import { PERMISSIONS } from "#app/core/auth/permissions.ts";
import type { DB } from "#db/schema.ts";
import type { Db } from "./util.ts";
import { nowMs, toIso } from "./util.ts";
import type { Role } from "./users.ts";

export const INVITE_TTL_MS = 7 * 24 * 60 * 60_000;

export interface Invite {
  code: string;
  role: Role;
  createdBy: string | null;
  createdAt: string;
  expiresAt: string;
}

const toInvite = (row: {
  code: string;
  role: string;
  created_by: string | null;
  created_at: number;
  expires_at: number;
}): Invite => ({
  code: row.code,
  role: row.role as Role,
  createdBy: row.created_by,
  createdAt: toIso(row.created_at)!,
  expiresAt: toIso(row.expires_at)!,
});

/**
 * An invitation is valid only while its creator may still mint it (issue 23): the account
 * that made it exists, is not disabled and still has a role that manages users
 * (app/core/auth/permissions.ts "users.manage"). Deleting, disabling or demoting the creator
 * also deletes its open invitations (app/services/users.server.ts); this check covers any
 * other way the creator stops qualifying. An invitation with no creator was made by the
 * operator straight in the database and stays valid.
 */
const creatorMayMint = (eb: ExpressionBuilder<DB, "invites">) =>
  eb.or([
    eb("invites.created_by", "is", null),
    eb.exists(
      eb
        .selectFrom("users")
        .select("users.id")
        .whereRef("users.id", "=", "invites.created_by")
        .where("users.role", "in", [...PERMISSIONS["users.manage"]])
        .where("users.disabled", "=", 0),
    ),
  ]);

export const newInviteCode = (): string => randomBytes(16).toString("base64url");

export async function createInvite(
  db: Db,
  input: { role: Role; createdBy: string | null; now?: number },
): Promise<Invite> {
  const now = input.now ?? nowMs();
  const row = {
    code: newInviteCode(),
    role: input.role,
    created_by: input.createdBy,
    created_at: now,
    expires_at: now + INVITE_TTL_MS,
  };
  await db
    .insertInto("invites")
    .values({ ...row, used_at: null, used_by: null })
    .execute();
  return toInvite(row);
}

/** Invitations not used, not expired, whose creator may still mint them, newest first. */
export async function listOpenInvites(db: Db, now = nowMs()): Promise<Invite[]> {
  const rows = await db
    .selectFrom("invites")
    .selectAll()
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .where(creatorMayMint)
    .orderBy("created_at", "desc")
    .execute();
  return rows.map(toInvite);
}

/** The open invitation with this code, or null (unknown, used, expired, or its creator may no longer mint it). */
export async function findOpenInvite(db: Db, code: string, now = nowMs()): Promise<Invite | null> {
  if (!code || code.length > 64) return null;
  const row = await db
    .selectFrom("invites")
    .selectAll()
    .where("code", "=", code)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .where(creatorMayMint)
    .executeTakeFirst();
  return row ? toInvite(row) : null;
}

/**
 * Marks the invitation used by `userId`; false when another registration took it first (or it
 * expired, or its creator stopped qualifying, meanwhile). Call in the registration's transaction, so a refused claim rolls back the
 * account too.
 */
export async function consumeInvite(db: Db, code: string, userId: string, now = nowMs()): Promise<boolean> {
  const result = await db
    .updateTable("invites")
    .set({ used_at: now, used_by: userId })
    .where("code", "=", code)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .where(creatorMayMint)
    .executeTakeFirst();
  return Number(result.numUpdatedRows ?? 0) === 1;
}

/** Deletes an open invitation; false when there was none with this code. */
export async function revokeInvite(db: Db, code: string): Promise<boolean> {
  const result = await db
    .deleteFrom("invites")
    .where("code", "=", code)
    .where("used_at", "is", null)
    .executeTakeFirst();
  return Number(result.numDeletedRows ?? 0) === 1;
}

/** Deletes the open invitations `userId` made (it was deleted, disabled or demoted); how many. */
export async function revokeInvitesBy(db: Db, userId: string): Promise<number> {
  const result = await db
    .deleteFrom("invites")
    .where("created_by", "=", userId)
    .where("used_at", "is", null)
    .executeTakeFirst();
  return Number(result.numDeletedRows ?? 0);
}
