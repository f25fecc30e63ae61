import type { UserRow } from "../schema.ts";
import { type Db, newId, nowMs, toIso } from "./util.ts";

import { type Role, isRole } from "#app/core/auth/permissions.ts";

export { ROLES, type Role, isRole } from "#app/core/auth/permissions.ts";

import { type User, type UserWithPassword, UsernameTakenError } from "#app/core/types/users.ts";

/** The domain types live in app/core (decision 042); callers may keep importing them from here. */
export { type User, type UserWithPassword, UsernameTakenError } from "#app/core/types/users.ts";

export const usernameKey = (username: string) => username.trim().toLowerCase();

export function userRowToUser(row: UserRow): User {
  return {
    id: row.id,
    username: row.username,
    role: isRole(row.role) ? row.role : "viewer",
    createdAt: toIso(row.created_at)!,
    disabled: Number(row.disabled ?? 0) === 1,
    lastLoginAt: toIso(row.last_login_at ?? null),
    twoFactorEnabled: Boolean(row.totp_secret_enc),
  };
}

export async function findUserById(db: Db, id: string): Promise<User | null> {
  const row = await db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
  return row ? userRowToUser(row) : null;
}

/** Case-insensitive: "Alice" and "alice" are one account. */
export async function findUserByUsername(db: Db, username: string): Promise<UserWithPassword | null> {
  const row = await db
    .selectFrom("users")
    .selectAll()
    .where("username_key", "=", usernameKey(username))
    .executeTakeFirst();
  return row ? { ...userRowToUser(row), passwordHash: row.password_hash } : null;
}

export async function countUsers(db: Db): Promise<number> {
  const row = await db
    .selectFrom("users")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Inserts a user with `input.role` (default `viewer`), then claims the one-time
 * `first_admin` marker: the account that wins it (inside the same transaction) becomes
 * admin. The marker is a primary-key row, so two concurrent first registrations cannot
 * both become admin. Call inside a transaction.
 */
export async function insertUser(
  db: Db,
  input: { username: string; passwordHash: string; role?: Role },
): Promise<User> {
  const id = newId();
  const now = nowMs();
  const key = usernameKey(input.username);
  const existing = await db.selectFrom("users").select("id").where("username_key", "=", key).executeTakeFirst();
  if (existing) throw new UsernameTakenError();
  try {
    await db
      .insertInto("users")
      .values({
        id,
        username: input.username.trim(),
        username_key: key,
        password_hash: input.passwordHash,
        role: input.role ?? "viewer",
        created_at: now,
        updated_at: now,
      })
      .execute();
  } catch (error) {
    if (isUniqueViolation(error)) throw new UsernameTakenError();
    throw error;
  }
  const claim = await db
    .insertInto("settings")
    .ignore()
    .values({ key: "first_admin", value: JSON.stringify(id), updated_at: now })
    .executeTakeFirst();
  let role: Role = input.role ?? "viewer";
  if (Number(claim.numInsertedOrUpdatedRows ?? 0) > 0) {
    await db.updateTable("users").set({ role: "admin", updated_at: now }).where("id", "=", id).execute();
    role = "admin";
  }
  return {
    id,
    username: input.username.trim(),
    role,
    createdAt: toIso(now)!,
    disabled: false,
    lastLoginAt: null,
    twoFactorEnabled: false,
  };
}

export async function updatePasswordHash(db: Db, id: string, passwordHash: string): Promise<void> {
  await db
    .updateTable("users")
    .set({ password_hash: passwordHash, updated_at: nowMs() })
    .where("id", "=", id)
    .execute();
}

export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; errno?: number; message?: string };
  return (
    e?.errno === 1062 ||
    e?.code === "ER_DUP_ENTRY" ||
    e?.code === "SQLITE_CONSTRAINT_UNIQUE" ||
    e?.code === "SQLITE_CONSTRAINT_PRIMARYKEY" ||
    /UNIQUE constraint failed/i.test(e?.message ?? "")
  );
}
