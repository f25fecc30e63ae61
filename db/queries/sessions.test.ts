import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import { beforeAll, describe, expect, test } from "vitest";
import {
  type SessionPolicy,
  createSession,
  deleteExpiredSessions,
  deleteSessionByToken,
  deleteUserSessions,
  getSessionUser,
} from "#db/queries/sessions.ts";
import { type User, insertUser } from "#db/queries/users.ts";
import type { DB } from "#db/schema.ts";
import { testDialects } from "#tests/setup/db.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const POLICY: SessionPolicy = { idleMs: 30 * MINUTE, absoluteMs: 7 * DAY };

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe.each(testDialects())("sessions repository on %s", (dialect) => {
  const fresh = freshDatabase(dialect);
  let db: Kysely<DB>;
  let alice: User;
  let bob: User;

  beforeAll(async () => {
    db = fresh.db;
    alice = await db.transaction().execute((trx) => insertUser(trx, { username: "alice", passwordHash: "h1" }));
    bob = await db.transaction().execute((trx) => insertUser(trx, { username: "bob", passwordHash: "h2" }));
  });

  const rowOf = (token: string) =>
    db.selectFrom("sessions").selectAll().where("id", "=", sha256(token)).executeTakeFirst();
  const setRow = (token: string, values: { created_at?: number; last_seen_at?: number; expires_at?: number }) =>
    db.updateTable("sessions").set(values).where("id", "=", sha256(token)).execute();
  const newSession = (user: User, policy = POLICY) => createSession(db, { userId: user.id, policy });

  test("createSession stores the SHA-256 of the token, never the token itself", async () => {
    const before = Date.now();
    const { token, session } = await createSession(db, {
      userId: alice.id,
      ip: "10.0.0.1",
      userAgent: "vitest",
      policy: POLICY,
    });
    const after = Date.now();

    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 random bytes, base64url
    expect(session.id).toBe(sha256(token));
    expect(session.userId).toBe(alice.id);
    expect(session.createdAt).toBeGreaterThanOrEqual(before);
    expect(session.createdAt).toBeLessThanOrEqual(after);
    expect(session.lastSeenAt).toBe(session.createdAt);
    expect(session.expiresAt).toBe(session.createdAt + POLICY.idleMs);

    const row = await rowOf(token);
    expect(row).toMatchObject({ id: sha256(token), user_id: alice.id, ip: "10.0.0.1", user_agent: "vitest" });
    expect(Number(row!.expires_at)).toBe(session.expiresAt);
    const everything = JSON.stringify(await db.selectFrom("sessions").selectAll().execute());
    expect(everything).not.toContain(token);

    const second = await newSession(alice);
    expect(second.token).not.toBe(token);
  });

  test("createSession truncates ip and user agent, and caps the first expiry at the absolute limit", async () => {
    const { token, session } = await createSession(db, {
      userId: bob.id,
      ip: "1".repeat(100),
      userAgent: "u".repeat(400),
      policy: { idleMs: 10 * MINUTE, absoluteMs: 5 * MINUTE },
    });
    expect(session.expiresAt).toBe(session.createdAt + 5 * MINUTE);
    const row = await rowOf(token);
    expect(row!.ip).toBe("1".repeat(64));
    expect(row!.user_agent).toBe("u".repeat(255));

    const bare = await newSession(bob);
    const bareRow = await rowOf(bare.token);
    expect(bareRow!.ip).toBeNull();
    expect(bareRow!.user_agent).toBeNull();
  });

  test("getSessionUser returns the user and the session", async () => {
    const { token, session } = await newSession(alice);
    const result = await getSessionUser(db, token, POLICY);
    expect(result).toEqual({ user: alice, session });
    expect(result!.user).not.toHaveProperty("passwordHash");

    const other = await newSession(bob);
    expect((await getSessionUser(db, other.token, POLICY))?.user).toEqual(bob);
  });

  test("getSessionUser returns null for an unknown or empty token, and for the stored hash used as a token", async () => {
    const { token } = await newSession(alice);
    expect(await getSessionUser(db, "not-a-real-token", POLICY)).toBeNull();
    expect(await getSessionUser(db, "", POLICY)).toBeNull();
    expect(await getSessionUser(db, sha256(token), POLICY)).toBeNull();
  });

  test("an expired session returns null and is deleted", async () => {
    const { token } = await newSession(alice);
    await setRow(token, { expires_at: Date.now() - 1 });
    expect(await getSessionUser(db, token, POLICY)).toBeNull();
    expect(await rowOf(token)).toBeUndefined();
  });

  test("a request within 60 s of the last one does not touch the row", async () => {
    const { token } = await newSession(alice);
    const now = Date.now();
    const seen = now - 59 * 1000;
    const expires = seen + POLICY.idleMs;
    await setRow(token, { created_at: now - 10 * MINUTE, last_seen_at: seen, expires_at: expires });

    const result = await getSessionUser(db, token, POLICY);
    expect(result?.session).toMatchObject({ lastSeenAt: seen, expiresAt: expires });
    const row = await rowOf(token);
    expect(Number(row!.last_seen_at)).toBe(seen);
    expect(Number(row!.expires_at)).toBe(expires);
  });

  test("a request more than 60 s after the last one slides the idle expiry", async () => {
    const { token } = await newSession(alice);
    const now = Date.now();
    const seen = now - 61 * 1000;
    await setRow(token, { created_at: now - 10 * MINUTE, last_seen_at: seen, expires_at: seen + POLICY.idleMs });

    const before = Date.now();
    const result = await getSessionUser(db, token, POLICY);
    const after = Date.now();
    expect(result).not.toBeNull();
    const row = await rowOf(token);
    const lastSeen = Number(row!.last_seen_at);
    expect(lastSeen).toBeGreaterThanOrEqual(before);
    expect(lastSeen).toBeLessThanOrEqual(after);
    expect(Number(row!.expires_at)).toBe(lastSeen + POLICY.idleMs);
    expect(result!.session).toMatchObject({ lastSeenAt: lastSeen, expiresAt: lastSeen + POLICY.idleMs });
  });

  test("sliding never extends past createdAt + absoluteMs", async () => {
    const { token } = await newSession(alice);
    const now = Date.now();
    const createdAt = now - POLICY.absoluteMs + 5 * MINUTE; // 5 minutes of life left
    await setRow(token, { created_at: createdAt, last_seen_at: now - 2 * MINUTE, expires_at: now + MINUTE });

    const result = await getSessionUser(db, token, POLICY);
    expect(result?.session.expiresAt).toBe(createdAt + POLICY.absoluteMs);
    expect(Number((await rowOf(token))!.expires_at)).toBe(createdAt + POLICY.absoluteMs);

    // Past the absolute limit the session is gone, whatever the activity.
    await setRow(token, {
      created_at: now - POLICY.absoluteMs - 1,
      last_seen_at: now - 2 * MINUTE,
      expires_at: now - 1,
    });
    expect(await getSessionUser(db, token, POLICY)).toBeNull();
  });

  test("deleteSessionByToken removes that session only; an empty token removes nothing", async () => {
    const one = await newSession(bob);
    const two = await newSession(bob);
    const count = async () => (await db.selectFrom("sessions").select("id").execute()).length;
    const total = await count();

    await deleteSessionByToken(db, "");
    expect(await count()).toBe(total);

    await deleteSessionByToken(db, one.token);
    expect(await rowOf(one.token)).toBeUndefined();
    expect(await getSessionUser(db, one.token, POLICY)).toBeNull();
    expect(await rowOf(two.token)).toBeDefined();
    expect(await count()).toBe(total - 1);
  });

  test("deleteUserSessions removes every session of one user and returns the count", async () => {
    await db.deleteFrom("sessions").execute();
    await newSession(alice);
    await newSession(alice);
    const bobs = await newSession(bob);

    expect(await deleteUserSessions(db, alice.id)).toBe(2);
    expect(await db.selectFrom("sessions").select("id").where("user_id", "=", alice.id).execute()).toEqual([]);
    expect(await rowOf(bobs.token)).toBeDefined();
    expect(await deleteUserSessions(db, alice.id)).toBe(0);
  });

  test("deleteExpiredSessions removes sessions expired at `now` (inclusive) and returns the count", async () => {
    await db.deleteFrom("sessions").execute();
    const now = Date.now();
    const old = await newSession(alice);
    const boundary = await newSession(alice);
    const live = await newSession(bob);
    await setRow(old.token, { expires_at: now - 1000 });
    await setRow(boundary.token, { expires_at: now });
    await setRow(live.token, { expires_at: now + 1 });

    expect(await deleteExpiredSessions(db, now)).toBe(2);
    expect(await rowOf(old.token)).toBeUndefined();
    expect(await rowOf(boundary.token)).toBeUndefined();
    expect(await rowOf(live.token)).toBeDefined();
    expect(await deleteExpiredSessions(db, now)).toBe(0);
  });

  test("deleteExpiredSessions defaults to the current time", async () => {
    await db.deleteFrom("sessions").execute();
    const expired = await newSession(alice);
    const live = await newSession(alice);
    await setRow(expired.token, { expires_at: Date.now() - 5000 });

    expect(await deleteExpiredSessions(db)).toBe(1);
    expect(await rowOf(live.token)).toBeDefined();
  });
});
