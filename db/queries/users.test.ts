import type { Kysely } from "kysely";
import { describe, expect, test } from "vitest";
import {
  UsernameTakenError,
  countUsers,
  findUserById,
  findUserByUsername,
  insertUser,
  isUniqueViolation,
  updatePasswordHash,
  userRowToUser,
  usernameKey,
} from "#db/queries/users.ts";
import type { DB } from "#db/schema.ts";
import { testDialects } from "#tests/setup/db.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";

const register = (db: Kysely<DB>, username: string, passwordHash = `hash-of-${username}`) =>
  db.transaction().execute((trx) => insertUser(trx, { username, passwordHash }));

/** The error the database itself raises for `run`, or a failure when it does not throw. */
async function dbError(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected the statement to fail");
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("usernameKey and userRowToUser", () => {
  test("usernameKey trims and lower-cases", () => {
    expect(usernameKey("  Alice_01 ")).toBe("alice_01");
  });

  test("userRowToUser maps a row, and an unknown role reads as viewer", () => {
    const row = {
      id: "id-1",
      username: "Alice",
      username_key: "alice",
      password_hash: "secret-hash",
      role: "admin",
      disabled: 0,
      last_login_at: null,
      totp_secret_enc: null,
      totp_pending_enc: null,
      totp_last_step: null,
      created_at: Date.UTC(2026, 0, 2, 3, 4, 5, 6),
      updated_at: 0,
    };
    expect(userRowToUser(row)).toEqual({
      id: "id-1",
      username: "Alice",
      role: "admin",
      createdAt: "2026-01-02T03:04:05.006Z",
      disabled: false,
      lastLoginAt: null,
      twoFactorEnabled: false,
    });
    expect(userRowToUser({ ...row, role: "superuser" }).role).toBe("viewer");
    expect(userRowToUser({ ...row, role: "viewer" }).role).toBe("viewer");
    expect(userRowToUser({ ...row, role: "trader", totp_secret_enc: "x" })).toMatchObject({
      role: "trader",
      twoFactorEnabled: true,
    });
    expect(userRowToUser(row)).not.toHaveProperty("passwordHash");
  });
});

describe.each(testDialects())("users repository on %s", (dialect) => {
  describe("registration and lookups", () => {
    const t = freshDatabase(dialect);

    test("countUsers is 0 on an empty database", async () => {
      expect(await countUsers(t.db)).toBe(0);
    });

    test("the first user becomes admin, later ones viewer (without an invitation role)", async () => {
      const before = Date.now();
      const alice = await register(t.db, "Alice");
      expect(alice).toMatchObject({ username: "Alice", role: "admin" });
      expect(alice.createdAt).toMatch(ISO);
      expect(Date.parse(alice.createdAt)).toBeGreaterThanOrEqual(before);
      expect(alice.id).toMatch(/^[0-9a-f-]{36}$/);

      const bob = await register(t.db, "bob");
      const carol = await register(t.db, "carol");
      expect(bob.role).toBe("viewer");
      expect(carol.role).toBe("viewer");

      const rows = await t.db
        .selectFrom("users")
        .select(["username", "role", "username_key"])
        .orderBy("username_key")
        .execute();
      expect(rows).toEqual([
        { username: "Alice", role: "admin", username_key: "alice" },
        { username: "bob", role: "viewer", username_key: "bob" },
        { username: "carol", role: "viewer", username_key: "carol" },
      ]);
      expect(await countUsers(t.db)).toBe(3);
    });

    test("the username is trimmed before it is stored", async () => {
      const dave = await register(t.db, "  dave  ");
      expect(dave.username).toBe("dave");
      expect((await findUserById(t.db, dave.id))?.username).toBe("dave");
    });

    test("usernames are unique whatever their case (UsernameTakenError)", async () => {
      const count = await countUsers(t.db);
      await expect(register(t.db, "ALICE")).rejects.toBeInstanceOf(UsernameTakenError);
      await expect(register(t.db, " alice ")).rejects.toThrow("Username already exists");
      await expect(register(t.db, "Bob")).rejects.toBeInstanceOf(UsernameTakenError);
      expect(await countUsers(t.db)).toBe(count);
    });

    test("findUserById returns the public user, or null", async () => {
      const alice = await findUserByUsername(t.db, "alice");
      const found = await findUserById(t.db, alice!.id);
      expect(found).toEqual({
        id: alice!.id,
        username: "Alice",
        role: "admin",
        createdAt: alice!.createdAt,
        disabled: false,
        lastLoginAt: null,
        twoFactorEnabled: false,
      });
      expect(found).not.toHaveProperty("passwordHash");
      expect(await findUserById(t.db, "00000000-0000-0000-0000-000000000000")).toBeNull();
    });

    test("findUserByUsername is case-insensitive and returns the password hash", async () => {
      for (const name of ["alice", "ALICE", "aLiCe", "  Alice "]) {
        const user = await findUserByUsername(t.db, name);
        expect(user, name).toMatchObject({ username: "Alice", role: "admin", passwordHash: "hash-of-Alice" });
      }
      expect((await findUserByUsername(t.db, "BOB"))?.passwordHash).toBe("hash-of-bob");
      expect(await findUserByUsername(t.db, "nobody")).toBeNull();
    });

    test("updatePasswordHash changes that user's hash only", async () => {
      const bob = (await findUserByUsername(t.db, "bob"))!;
      const before = await t.db
        .selectFrom("users")
        .select("updated_at")
        .where("id", "=", bob.id)
        .executeTakeFirstOrThrow();
      await updatePasswordHash(t.db, bob.id, "new-hash");
      expect((await findUserByUsername(t.db, "bob"))?.passwordHash).toBe("new-hash");
      expect((await findUserByUsername(t.db, "carol"))?.passwordHash).toBe("hash-of-carol");
      const after = await t.db
        .selectFrom("users")
        .select("updated_at")
        .where("id", "=", bob.id)
        .executeTakeFirstOrThrow();
      expect(Number(after.updated_at)).toBeGreaterThanOrEqual(Number(before.updated_at));
    });
  });

  describe("isUniqueViolation", () => {
    const t = freshDatabase(dialect);
    const now = Date.now();
    const row = (id: string, key: string) => ({
      id,
      username: key,
      username_key: key,
      password_hash: "h",
      role: "viewer",
      created_at: now,
      updated_at: now,
    });

    test("recognises this database's unique-key and primary-key violations", async () => {
      await t.db.insertInto("users").values(row("u1", "erin")).execute();
      const uniqueKey = await dbError(() => t.db.insertInto("users").values(row("u2", "erin")).execute());
      const primaryKey = await dbError(() => t.db.insertInto("users").values(row("u1", "frank")).execute());
      expect(isUniqueViolation(uniqueKey)).toBe(true);
      expect(isUniqueViolation(primaryKey)).toBe(true);
    });

    test("does not mistake other database errors for unique violations", async () => {
      const notNull = await dbError(() =>
        t.db
          .insertInto("users")
          .values({ ...row("u3", "gina"), role: null as unknown as string })
          .execute(),
      );
      const foreignKey = await dbError(() =>
        t.db
          .insertInto("sessions")
          .values({ id: "s", user_id: "missing", created_at: now, expires_at: now, last_seen_at: now })
          .execute(),
      );
      expect(isUniqueViolation(notNull)).toBe(false);
      expect(isUniqueViolation(foreignKey)).toBe(false);
    });

    test("recognises both dialects' error shapes, and nothing else", () => {
      // mysql2's duplicate-key error and bun:sqlite's constraint errors
      expect(
        isUniqueViolation({ errno: 1062, code: "ER_DUP_ENTRY", message: "Duplicate entry 'x' for key 'username_key'" }),
      ).toBe(true);
      expect(isUniqueViolation({ code: "ER_DUP_ENTRY" })).toBe(true);
      expect(
        isUniqueViolation({
          code: "SQLITE_CONSTRAINT_UNIQUE",
          message: "UNIQUE constraint failed: users.username_key",
        }),
      ).toBe(true);
      expect(isUniqueViolation({ code: "SQLITE_CONSTRAINT_PRIMARYKEY" })).toBe(true);
      expect(isUniqueViolation(new Error("UNIQUE constraint failed: users.id"))).toBe(true);

      expect(isUniqueViolation({ errno: 1048, code: "ER_BAD_NULL_ERROR" })).toBe(false);
      expect(
        isUniqueViolation({ code: "SQLITE_CONSTRAINT_NOTNULL", message: "NOT NULL constraint failed: users.role" }),
      ).toBe(false);
      expect(isUniqueViolation(new Error("connection lost"))).toBe(false);
      expect(isUniqueViolation(null)).toBe(false);
      expect(isUniqueViolation(undefined)).toBe(false);
      expect(isUniqueViolation("UNIQUE")).toBe(false);
    });
  });

  describe("concurrent first registrations", () => {
    const t = freshDatabase(dialect);

    /**
     * Runs each registration in its own transaction. On MySQL the transactions really
     * overlap (each holds a pool connection; a barrier makes them all open before any
     * inserts); bun:sqlite has one connection, so its transactions queue.
     */
    async function race(usernames: string[]) {
      let arrived = 0;
      let release!: () => void;
      const barrier = new Promise<void>((resolve) => (release = resolve));
      return Promise.allSettled(
        usernames.map((username) =>
          t.db.transaction().execute(async (trx) => {
            if (dialect === "mysql") {
              if (++arrived === usernames.length) release();
              await barrier;
            }
            return insertUser(trx, { username, passwordHash: "h" });
          }),
        ),
      );
    }

    test("two racing registrations end with exactly one admin", async () => {
      const results = await race(["racer_one", "racer_two"]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled"]);
      const users = results.map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof insertUser>>>).value);
      expect(users.map((u) => u.role).sort()).toEqual(["admin", "viewer"]);

      const stored = await t.db.selectFrom("users").select(["id", "role"]).execute();
      expect(stored).toHaveLength(2);
      expect(stored.filter((u) => u.role === "admin")).toHaveLength(1);
      const admin = users.find((u) => u.role === "admin")!;
      expect(stored.find((u) => u.role === "admin")?.id).toBe(admin.id);
      const marker = await t.db
        .selectFrom("settings")
        .select("value")
        .where("key", "=", "first_admin")
        .executeTakeFirstOrThrow();
      expect(JSON.parse(marker.value)).toBe(admin.id);
    });

    test("two racing registrations of one name (different case): one wins, the other gets UsernameTakenError", async () => {
      const results = await race(["same_name", "SAME_NAME"]);
      const fulfilled = results.filter((r) => r.status === "fulfilled");
      const rejected = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
      expect(fulfilled).toHaveLength(1);
      expect(rejected).toHaveLength(1);
      expect(rejected[0]!.reason).toBeInstanceOf(UsernameTakenError);
      const rows = await t.db.selectFrom("users").select("role").where("username_key", "=", "same_name").execute();
      expect(rows).toEqual([{ role: "viewer" }]);
      expect(await countUsers(t.db)).toBe(3);
    });
  });
});
