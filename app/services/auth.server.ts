// Account operations shared by the login/registration pages and the JSON API:
// password hashing (argon2id), the failed-login throttle, registration.
import type { Kysely } from "kysely";
import { recordActivity } from "#db/queries/activity-logs.ts";
import { clearThrottle, getThrottle, recordLoginFailure } from "#db/queries/login-throttles.ts";
import { type User, findUserByUsername, insertUser, usernameKey } from "#db/queries/users.ts";
import type { DB } from "#db/schema.ts";

// OWASP's minimum for argon2id: 19 MiB, two passes, one lane.
const HASH_OPTIONS = { algorithm: "argon2id", memoryCost: 19456, timeCost: 2 } as const;

export const hashPassword = (password: string) => Bun.password.hash(password, HASH_OPTIONS);
export const verifyPassword = (password: string, hash: string) => Bun.password.verify(password, hash);

/** Compared against when the account does not exist, so both paths cost the same. */
let dummyHash: Promise<string> | undefined;
const getDummyHash = () => (dummyHash ??= hashPassword("not-a-real-password-" + Math.random()));

/**
 * Throttle policy (docs/decisions/001-login-throttle.md):
 * - per account name: 5 failures free, then a lock of 30 s doubling with each further
 *   failure, at most 15 minutes;
 * - per client address: 20 failures free, then 60 s doubling, at most 15 minutes;
 * - counters are forgotten after an hour without failures, and the account counter is
 *   cleared by a successful login.
 */
export const THROTTLE = {
  account: { free: 5, baseMs: 30_000 },
  ip: { free: 20, baseMs: 60_000 },
  maxLockMs: 15 * 60_000,
  resetAfterMs: 60 * 60_000,
};

const lockPolicy = (free: number, baseMs: number) => (failures: number) =>
  failures < free ? 0 : Math.min(baseMs * 2 ** (failures - free), THROTTLE.maxLockMs);

const accountKey = (username: string) => `user:${usernameKey(username)}`;
const ipKey = (ip: string) => `ip:${ip}`;

export type LoginResult =
  | { ok: true; user: User }
  | { ok: false; status: 401 | 429; error: string; retryAfterSeconds?: number };

export const INVALID_CREDENTIALS = "Invalid username or password";

export async function attemptLogin(
  db: Kysely<DB>,
  input: { username: string; password: string; ip: string | null },
): Promise<LoginResult> {
  const now = Date.now();
  const keys = [accountKey(input.username), ...(input.ip ? [ipKey(input.ip)] : [])];
  for (const key of keys) {
    const throttle = await getThrottle(db, key);
    if (throttle?.lockedUntil && throttle.lockedUntil > now) {
      const retryAfterSeconds = Math.ceil((throttle.lockedUntil - now) / 1000);
      await recordActivity(db, {
        type: "auth",
        level: "warning",
        message: `Login refused for ${input.username}: too many failed attempts`,
        data: { username: input.username, ip: input.ip, retryAfterSeconds },
      });
      return {
        ok: false,
        status: 429,
        error: `Too many failed login attempts. Try again in ${retryAfterSeconds} seconds.`,
        retryAfterSeconds,
      };
    }
  }

  const user = await findUserByUsername(db, input.username);
  const valid = user
    ? await verifyPassword(input.password, user.passwordHash)
    : (await verifyPassword(input.password, await getDummyHash()), false);

  if (!user || !valid) {
    await db.transaction().execute(async (trx) => {
      await recordLoginFailure(trx, accountKey(input.username), lockPolicy(THROTTLE.account.free, THROTTLE.account.baseMs), THROTTLE.resetAfterMs);
      if (input.ip) {
        await recordLoginFailure(trx, ipKey(input.ip), lockPolicy(THROTTLE.ip.free, THROTTLE.ip.baseMs), THROTTLE.resetAfterMs);
      }
      await recordActivity(trx, {
        type: "auth",
        level: "warning",
        message: `Failed login for ${input.username}`,
        data: { username: input.username, ip: input.ip },
      });
    });
    return { ok: false, status: 401, error: INVALID_CREDENTIALS };
  }

  const { passwordHash: _hash, ...publicUser } = user;
  await db.transaction().execute(async (trx) => {
    await clearThrottle(trx, accountKey(input.username));
    await recordActivity(trx, {
      type: "auth",
      level: "info",
      message: `${user.username} logged in`,
      data: { username: user.username, ip: input.ip },
    });
  });
  return { ok: true, user: publicUser };
}

export async function registerUser(
  db: Kysely<DB>,
  input: { username: string; password: string; ip: string | null },
): Promise<User> {
  const passwordHash = await hashPassword(input.password);
  return db.transaction().execute(async (trx) => {
    const user = await insertUser(trx, { username: input.username, passwordHash });
    await recordActivity(trx, {
      type: "auth",
      level: "success",
      message: `Account ${user.username} created${user.role === "admin" ? " (admin)" : ""}`,
      data: { username: user.username, role: user.role, ip: input.ip },
    });
    return user;
  });
}
