// Account operations shared by the login/registration pages and the JSON API:
// password hashing (argon2id), the failed-login throttle, registration.
import type { Kysely } from "kysely";
import { type NewActivityLog, recordActivities, recordActivity } from "#db/queries/activity-logs.ts";
import { throttleSource } from "#app/core/net/throttle-source.ts";
import {
  type Throttle,
  clearThrottle,
  getThrottle,
  markKnownSource,
  refundAttempt,
  reserveLoginAttempt,
} from "#db/queries/login-throttles.ts";
import { type Invite, consumeInvite, findOpenInvite } from "#db/queries/invites.ts";
import { getSetting } from "#db/queries/settings.ts";
import { type User, countUsers, findUserByUsername, insertUser, usernameKey } from "#db/queries/users.ts";
import type { DB } from "#db/schema.ts";

import { REGISTRATION_BY_INVITATION } from "#app/core/schemas/auth.ts";

// OWASP's minimum for argon2id: 19 MiB, two passes, one lane.
const HASH_OPTIONS = { algorithm: "argon2id", memoryCost: 19456, timeCost: 2 } as const;

export const hashPassword = (password: string) => Bun.password.hash(password, HASH_OPTIONS);
export const verifyPassword = (password: string, hash: string) => Bun.password.verify(password, hash);

/** Compared against when the account does not exist, so both paths cost the same. */
let dummyHash: Promise<string> | undefined;
const getDummyHash = () => (dummyHash ??= hashPassword(`not-a-real-password-${Math.random()}`));

/**
 * Throttle policy (docs/decisions/016-login-throttle-v2.md and 040-login-throttle-v3.md):
 * - the source is the client address as throttleSource gives it: IPv4 as is, IPv4-mapped
 *   IPv6 as its IPv4, other IPv6 by its /64 (rotating through one's own /64 gains nothing);
 * - per account AND source pair: 5 attempts free, then a lock of 30 s doubling with each
 *   further failure, at most 15 minutes. A stranger's failures lock only the stranger's
 *   pair: the owner, from an address with no failures, still signs in;
 * - per source (many names from one place): 20 free, then 60 s doubling, at most 15 minutes;
 * - per account from any number of sources (the ceiling): 20 free, then 30 s doubling, at
 *   most 5 minutes: about 35 guesses in the first hour and 12 an hour after, however many
 *   addresses guess. A source from which the account's password was right within 30 days
 *   (its "known" source) is not held by the ceiling, so guessing from elsewhere never keeps
 *   the owner out at home; from a new place the owner waits at most 5 minutes;
 * - each attempt is reserved (counted) BEFORE the password is checked, so parallel
 *   requests cannot get more checks than the allowance, and a refused attempt costs no
 *   argon2 hash and writes nothing; a successful login clears its pair and gives the
 *   source and the account their attempt back;
 * - counters are forgotten after an hour without failures.
 */
export const THROTTLE = {
  pair: { free: 5, baseMs: 30_000 },
  ip: { free: 20, baseMs: 60_000 },
  account: { free: 20, baseMs: 30_000, maxLockMs: 5 * 60_000 },
  maxLockMs: 15 * 60_000,
  resetAfterMs: 60 * 60_000,
  knownSourceMs: 30 * 24 * 60 * 60_000,
};

const lockPolicy =
  (free: number, baseMs: number, maxMs = THROTTLE.maxLockMs) =>
  (failures: number) =>
    failures < free ? 0 : Math.min(baseMs * 2 ** (failures - free), maxMs);
const pairLock = lockPolicy(THROTTLE.pair.free, THROTTLE.pair.baseMs);
const ipLock = lockPolicy(THROTTLE.ip.free, THROTTLE.ip.baseMs);
const accountLock = lockPolicy(THROTTLE.account.free, THROTTLE.account.baseMs, THROTTLE.account.maxLockMs);

export const pairKey = (username: string, ip: string | null) =>
  `pair:${usernameKey(username)}|${throttleSource(ip) ?? "-"}`;
const ipKey = (ip: string) => `ip:${throttleSource(ip)}`;
export const accountKey = (username: string) => `account:${usernameKey(username)}`;
/** Marks a source the account's right password came from (updated_at: when); never locked. */
export const knownSourceKey = (username: string, ip: string | null) =>
  `known:${usernameKey(username)}|${throttleSource(ip) ?? "-"}`;

export type LoginResult =
  | { ok: true; user: User /** 2FA is on: no session until the code is checked. */; secondFactor: boolean }
  | { ok: false; status: 401 | 429; error: string; retryAfterSeconds?: number };

export const INVALID_CREDENTIALS = "Invalid username or password";

export async function attemptLogin(
  db: Kysely<DB>,
  input: { username: string; password: string; ip: string | null },
): Promise<LoginResult> {
  const pair = pairKey(input.username, input.ip);
  const known = await getThrottle(db, knownSourceKey(input.username, input.ip));
  const ceiling = !(known && known.updatedAt > Date.now() - THROTTLE.knownSourceMs);
  const keys = [
    { key: pair, lockFor: pairLock },
    ...(input.ip ? [{ key: ipKey(input.ip), lockFor: ipLock }] : []),
    ...(ceiling ? [{ key: accountKey(input.username), lockFor: accountLock }] : []),
  ];
  const reservation = await reserveLoginAttempt(db, keys, THROTTLE.resetAfterMs);
  if (!reservation.ok) {
    // Refusals write nothing: a flood of them must not fill the log (the lock itself is logged once).
    const retryAfterSeconds = Math.ceil(reservation.retryAfterMs / 1000);
    return {
      ok: false,
      status: 429,
      error: `Too many failed login attempts. Try again in ${retryAfterSeconds} seconds.`,
      retryAfterSeconds,
    };
  }

  const user = await findUserByUsername(db, input.username);
  // A disabled account answers like a wrong password (its state is not revealed).
  const valid = user
    ? (await verifyPassword(input.password, user.passwordHash)) && !user.disabled
    : (await verifyPassword(input.password, await getDummyHash()), false);

  if (!user || !valid) {
    const entries: NewActivityLog[] = [
      {
        type: "auth",
        level: "warning",
        message: `Failed login for ${input.username}`,
        data: { username: input.username, ip: input.ip },
      },
    ];
    entries.push(
      ...lockoutEntries(reservation.locked, input.username, input.ip, (lock, seconds) =>
        lock.key.startsWith("ip:")
          ? `Logins from one address locked for ${seconds} s after ${lock.failures} failures`
          : lock.key.startsWith("account:")
            ? `Login for ${input.username} from new addresses slowed: locked for ${seconds} s after ${lock.failures} failures`
            : `Login for ${input.username} from one address locked for ${seconds} s after ${lock.failures} failures`,
      ),
    );
    await recordActivities(db, entries);
    return { ok: false, status: 401, error: INVALID_CREDENTIALS };
  }

  const { passwordHash: _hash, ...publicUser } = user;
  if (publicUser.twoFactorEnabled) {
    // The password was right: its throttle is cleared as for a login, but the session waits
    // for the second step (checkSecondFactor, then completeLogin).
    await passwordAccepted(db, input.username, input.ip, pair, ceiling);
    return { ok: true, user: publicUser, secondFactor: true };
  }
  await passwordAccepted(db, input.username, input.ip, pair, ceiling);
  return { ok: true, user: await completeLogin(db, publicUser, input.ip), secondFactor: false };
}

/**
 * A right password: its pair is cleared, the source and (when it was counted) the account
 * get their reserved attempt back, and the source becomes one the account is known from.
 */
async function passwordAccepted(
  db: Kysely<DB>,
  username: string,
  ip: string | null,
  pair: string,
  ceiling: boolean,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await clearThrottle(trx, pair);
    if (ip) await refundAttempt(trx, ipKey(ip), ipLock);
    if (ceiling) await refundAttempt(trx, accountKey(username), accountLock);
    await markKnownSource(trx, knownSourceKey(username, ip));
  });
}

/** Records a login (last login time, activity log); attemptLogin has cleared the password throttle. */
export async function completeLogin(db: Kysely<DB>, user: User, ip: string | null): Promise<User> {
  const now = Date.now();
  await db.transaction().execute(async (trx) => {
    await trx.updateTable("users").set({ last_login_at: now }).where("id", "=", user.id).execute();
    await recordActivity(trx, {
      type: "auth",
      level: "info",
      message: `${user.username} logged in${user.twoFactorEnabled ? " (two-factor)" : ""}`,
      data: { username: user.username, ip },
    });
  });
  return { ...user, lastLoginAt: new Date(now).toISOString() };
}

/** The admin setting that lets anyone register (as a viewer) without an invitation. */
export const REGISTRATION_OPEN_SETTING = "registration_open";
export { REGISTRATION_BY_INVITATION };

export class RegistrationClosedError extends Error {
  constructor() {
    super(REGISTRATION_BY_INVITATION);
  }
}

export async function isRegistrationOpen(db: Kysely<DB>): Promise<boolean> {
  return (await getSetting<boolean>(db, REGISTRATION_OPEN_SETTING)) === true;
}

/**
 * What the registration screen may offer: the first account (it becomes admin), an account
 * through a valid invitation (with its role), an open registration (viewer), or nothing.
 */
export type RegistrationMode =
  | { kind: "first" }
  | { kind: "invite"; invite: Invite }
  | { kind: "open" }
  | { kind: "closed"; inviteInvalid: boolean };

export async function registrationMode(
  db: Kysely<DB>,
  inviteCode: string | null | undefined,
): Promise<RegistrationMode> {
  if ((await countUsers(db)) === 0) return { kind: "first" };
  if (inviteCode) {
    const invite = await findOpenInvite(db, inviteCode);
    if (invite) return { kind: "invite", invite };
  }
  if (await isRegistrationOpen(db)) return { kind: "open" };
  return { kind: "closed", inviteInvalid: Boolean(inviteCode) };
}

/**
 * Creates an account. The first one becomes admin; after it an account needs a valid
 * invitation (it gets the invitation's role, and uses it up in the same transaction, so
 * one code makes one account however many register at once) or an open registration
 * (viewer). Refused without hashing the password when registration is closed, so a
 * stranger cannot spend the server's CPU on argon2.
 */
export async function registerUser(
  db: Kysely<DB>,
  input: { username: string; password: string; invite?: string | null; ip: string | null },
): Promise<User> {
  const mode = await registrationMode(db, input.invite);
  if (mode.kind === "closed") throw new RegistrationClosedError();
  const passwordHash = await hashPassword(input.password);
  return db.transaction().execute(async (trx) => {
    const invite = mode.kind === "invite" ? mode.invite : null;
    const user = await insertUser(trx, { username: input.username, passwordHash, role: invite?.role ?? "viewer" });
    if (user.role === "admin" && !invite) {
      // The first account (it won the first_admin marker inside this transaction).
    } else if (invite) {
      if (!(await consumeInvite(trx, invite.code, user.id))) throw new RegistrationClosedError();
    } else if (!(await isRegistrationOpen(trx))) {
      // Another registration became the first account meanwhile, or the admin closed
      // registration: this one is refused and rolled back.
      throw new RegistrationClosedError();
    }
    // Registering signs the account in: it counts as its first login.
    const now = Date.now();
    await trx.updateTable("users").set({ last_login_at: now }).where("id", "=", user.id).execute();
    await recordActivity(trx, {
      type: "auth",
      level: "success",
      message: `Account ${user.username} created (${user.role}${invite ? ", by invitation" : mode.kind === "open" ? ", open registration" : ""})`,
      data: { username: user.username, role: user.role, ip: input.ip },
    });
    return { ...user, lastLoginAt: new Date(now).toISOString() };
  });
}

/** One activity line per throttle a failure just locked, said by `say` with the seconds left. */
export function lockoutEntries(
  locked: Throttle[],
  username: string,
  ip: string | null,
  say: (lock: Throttle, seconds: number) => string,
): NewActivityLog[] {
  return locked.map((lock) => {
    const seconds = Math.ceil((lock.lockedUntil! - Date.now()) / 1000);
    return {
      type: "auth",
      level: "warning",
      message: say(lock, seconds),
      data: { username, ip, failures: lock.failures, lockedSeconds: seconds },
    };
  });
}
