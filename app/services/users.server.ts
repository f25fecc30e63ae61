// Accounts as the admin manages them (issue 10): invitations, role changes, disabling,
// deleting, and the security settings (open registration, 2FA required for all). Called by
// the Users screen's actions and the /api/invites, /api/users, /api/security-settings routes.
import type { Kysely } from "kysely";
import { closeSocketsOfSession, trackedSessions } from "#app/services/session-sockets.server.ts";
import { can } from "#app/core/auth/permissions.ts";
import type { SecuritySettings } from "#app/core/schemas/users.ts";
import { recordActivity } from "#db/queries/activity-logs.ts";
import { type Invite, createInvite, listOpenInvites, revokeInvite, revokeInvitesBy } from "#db/queries/invites.ts";
import { deleteUserSessions, sessionIsLive } from "#db/queries/sessions.ts";
import { getSetting, setSetting } from "#db/queries/settings.ts";
import { type Role, type User, userRowToUser } from "#db/queries/users.ts";
import { isMysql, transactionWithLockRetry } from "#db/queries/util.ts";
import type { DB } from "#db/schema.ts";
import { REGISTRATION_OPEN_SETTING } from "./auth.server.ts";
import { REQUIRE_TWO_FACTOR_SETTING, clearTwoFactor } from "./two-factor.server.ts";
import { recordAudit } from "#db/queries/audit.ts";

export { REQUIRE_TWO_FACTOR_SETTING };
export const LAST_ADMIN = "The last active admin cannot be demoted, disabled or deleted";
export const OWN_TWO_FACTOR =
  "Your own two-factor authentication is turned off on the Account screen, with a current code: an admin reset is for other accounts";

type Outcome<T> = { ok: true; value: T } | { ok: false; status: number; error: string };

export interface InviteView extends Invite {
  url: string;
}

const inviteUrl = (origin: string, code: string) => `${origin}/register?invite=${encodeURIComponent(code)}`;
const shortCode = (code: string) => `${code.slice(0, 6)}…`;

export async function createInviteBy(db: Kysely<DB>, by: User, role: Role, origin: string): Promise<InviteView> {
  return db.transaction().execute(async (trx) => {
    const invite = await createInvite(trx, { role, createdBy: by.id });
    await recordAudit(trx, {
      actor: by.username,
      action: "invite.create",
      target: shortCode(invite.code),
      after: { role, expiresAt: invite.expiresAt },
    });
    await recordActivity(trx, {
      type: "auth",
      level: "info",
      message: `${by.username} created an invitation (${role}) ${shortCode(invite.code)}`,
      data: { by: by.username, role, invite: shortCode(invite.code), expiresAt: invite.expiresAt },
    });
    return { ...invite, url: inviteUrl(origin, invite.code) };
  });
}

export async function listInvites(db: Kysely<DB>, origin: string): Promise<InviteView[]> {
  return (await listOpenInvites(db)).map((invite) => ({ ...invite, url: inviteUrl(origin, invite.code) }));
}

export async function revokeInviteBy(db: Kysely<DB>, by: User, code: string): Promise<Outcome<null>> {
  return db.transaction().execute(async (trx) => {
    if (!(await revokeInvite(trx, code))) return { ok: false, status: 404, error: "Invitation not found" } as const;
    await recordAudit(trx, {
      actor: by.username,
      action: "invite.revoke",
      target: shortCode(code),
      before: { revoked: false },
      after: { revoked: true },
    });
    await recordActivity(trx, {
      type: "auth",
      level: "info",
      message: `${by.username} revoked the invitation ${shortCode(code)}`,
      data: { by: by.username, invite: shortCode(code) },
    });
    return { ok: true, value: null } as const;
  });
}

export async function listUsers(db: Kysely<DB>): Promise<User[]> {
  const rows = await db.selectFrom("users").selectAll().orderBy("created_at", "asc").execute();
  return rows.map(userRowToUser);
}

/** Active admins other than `exceptId`, counted under the write (FOR UPDATE on MySQL) so two admins demoting each other cannot leave none. */
async function otherActiveAdmins(trx: Kysely<DB>, exceptId: string): Promise<number> {
  let query = trx
    .selectFrom("users")
    .select("id")
    .where("role", "=", "admin")
    .where("disabled", "=", 0)
    .where("id", "!=", exceptId);
  if (isMysql(trx)) query = query.forUpdate();
  return (await query.execute()).length;
}

/** Closes, in this process, the live sockets of sessions that no longer exist (other web processes: their sweep, within 5 s). */
export async function closeEndedSockets(db: Kysely<DB>): Promise<void> {
  for (const token of trackedSessions()) {
    if (!(await sessionIsLive(db, token).catch(() => true))) closeSocketsOfSession(token);
  }
}

/**
 * Changes an account's role and/or disables it. A role change or a disable ends the
 * account's sessions at once (they sign in again with the new role; a disabled account
 * cannot), and closes their live sockets. The last active admin stays an active admin.
 */
export async function updateUserBy(
  db: Kysely<DB>,
  by: User,
  id: string,
  change: { role?: Role; disabled?: boolean; twoFactor?: boolean },
): Promise<Outcome<User>> {
  // Turning off one's own 2FA needs a current code (the Account screen); a reset here would
  // let a stolen admin session remove the second factor without one (issue 23).
  if (change.twoFactor === false && id === by.id) return { ok: false, status: 403, error: OWN_TWO_FACTOR };
  // Two admins demoting each other at once: MySQL may pick one as a deadlock victim; it is
  // rolled back and run again, and then sees that it would leave no admin.
  const outcome = await transactionWithLockRetry(db, async (trx): Promise<Outcome<User>> => {
    const row = await trx.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
    if (!row) return { ok: false, status: 404, error: "User not found" };
    const before = userRowToUser(row);
    const role = change.role ?? before.role;
    const disabled = change.disabled ?? before.disabled;
    if (
      before.role === "admin" &&
      !before.disabled &&
      (role !== "admin" || disabled) &&
      (await otherActiveAdmins(trx, id)) === 0
    ) {
      return { ok: false, status: 409, error: LAST_ADMIN };
    }
    const resetTwoFactor = change.twoFactor === false && before.twoFactorEnabled;
    if (resetTwoFactor) await clearTwoFactor(trx, id);
    await recordAudit(trx, {
      actor: by.username,
      action: "user.update",
      target: before.username,
      before: { role: before.role, disabled: before.disabled, twoFactorEnabled: before.twoFactorEnabled },
      after: { role, disabled, twoFactorEnabled: before.twoFactorEnabled && !resetTwoFactor },
    });
    if (role === before.role && disabled === before.disabled) {
      if (resetTwoFactor) {
        await recordActivity(trx, {
          type: "auth",
          level: "warning",
          message: `${by.username} reset two-factor authentication of ${before.username}`,
          data: { by: by.username, username: before.username },
        });
      }
      return { ok: true, value: { ...before, twoFactorEnabled: before.twoFactorEnabled && !resetTwoFactor } };
    }
    await trx
      .updateTable("users")
      .set({ role, disabled: disabled ? 1 : 0, updated_at: Date.now() })
      .where("id", "=", id)
      .execute();
    const ended = await deleteUserSessions(trx, id);
    // An invitation lives only while its creator may still mint it (issue 23): disabled or
    // no longer allowed to manage users, its open invitations go in this transaction.
    const invitesRevoked = disabled || !can(role, "users.manage") ? await revokeInvitesBy(trx, id) : 0;
    const what = [
      resetTwoFactor ? "two-factor authentication reset" : null,
      role !== before.role ? `role ${before.role} → ${role}` : null,
      disabled !== before.disabled ? (disabled ? "disabled" : "enabled") : null,
      invitesRevoked > 0 ? `${invitesRevoked} open invitation${invitesRevoked === 1 ? "" : "s"} revoked` : null,
    ].filter(Boolean);
    await recordActivity(trx, {
      type: "auth",
      level: disabled && !before.disabled ? "warning" : "info",
      message: `${by.username} changed ${before.username}: ${what.join(", ")}`,
      data: { by: by.username, username: before.username, role, disabled, sessionsEnded: ended, invitesRevoked },
    });
    return {
      ok: true,
      value: { ...before, role, disabled, twoFactorEnabled: before.twoFactorEnabled && !resetTwoFactor },
    };
  });
  if (outcome.ok) await closeEndedSockets(db);
  return outcome;
}

export async function deleteUserBy(db: Kysely<DB>, by: User, id: string): Promise<Outcome<null>> {
  const outcome = await transactionWithLockRetry(db, async (trx): Promise<Outcome<null>> => {
    const row = await trx.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
    if (!row) return { ok: false, status: 404, error: "User not found" };
    const user = userRowToUser(row);
    if (user.role === "admin" && !user.disabled && (await otherActiveAdmins(trx, id)) === 0) {
      return { ok: false, status: 409, error: LAST_ADMIN };
    }
    await deleteUserSessions(trx, id);
    await trx.deleteFrom("recovery_codes").where("user_id", "=", id).execute();
    const invitesRevoked = await revokeInvitesBy(trx, id);
    await trx.deleteFrom("users").where("id", "=", id).execute();
    await recordAudit(trx, {
      actor: by.username,
      action: "user.delete",
      target: user.username,
      before: { role: user.role, disabled: user.disabled },
    });
    await recordActivity(trx, {
      type: "auth",
      level: "warning",
      message: `${by.username} deleted the account ${user.username}${invitesRevoked > 0 ? ` (${invitesRevoked} open invitation${invitesRevoked === 1 ? "" : "s"} revoked)` : ""}`,
      data: { by: by.username, username: user.username, role: user.role, invitesRevoked },
    });
    return { ok: true, value: null };
  });
  if (outcome.ok) await closeEndedSockets(db);
  return outcome;
}

export async function getSecuritySettings(db: Kysely<DB>): Promise<SecuritySettings> {
  return {
    registrationOpen: (await getSetting<boolean>(db, REGISTRATION_OPEN_SETTING)) === true,
    requireTwoFactor: (await getSetting<boolean>(db, REQUIRE_TWO_FACTOR_SETTING)) === true,
  };
}

export async function updateSecuritySettings(
  db: Kysely<DB>,
  by: User,
  change: Partial<SecuritySettings>,
): Promise<SecuritySettings> {
  return db.transaction().execute(async (trx) => {
    const before = await getSecuritySettings(trx);
    const after = {
      ...before,
      ...Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)),
    } as SecuritySettings;
    if (after.registrationOpen !== before.registrationOpen)
      await setSetting(trx, REGISTRATION_OPEN_SETTING, after.registrationOpen);
    if (after.requireTwoFactor !== before.requireTwoFactor)
      await setSetting(trx, REQUIRE_TWO_FACTOR_SETTING, after.requireTwoFactor);
    const changed = (Object.keys(after) as (keyof SecuritySettings)[]).filter((k) => after[k] !== before[k]);
    if (changed.length > 0)
      await recordAudit(trx, {
        actor: by.username,
        action: "security_settings.update",
        target: "security_settings",
        before: { ...before },
        after: { ...after },
      });
    if (changed.length > 0) {
      await recordActivity(trx, {
        type: "system",
        level: "warning",
        message: `${by.username} changed security settings: ${changed.map((k) => `${k} ${after[k] ? "on" : "off"}`).join(", ")}`,
        data: { by: by.username, ...after },
      });
    }
    return after;
  });
}
