// TOTP two-factor authentication (issue 10): enrolment with a QR code and a typed code,
// ten one-time recovery codes (SHA-256 only, shown once), the second login step, turning
// it off with a current code, an admin's reset. The TOTP maths is @epic-web/totp's.
// Secrets are stored like exchange keys: AES-GCM under APP_SECRET (app/core/crypto.ts).
import { createHash, randomBytes, randomInt } from "node:crypto";
import { getTOTPAuthUri, verifyTOTP } from "@epic-web/totp";
import base32Encode from "base32-encode";
import type { Kysely } from "kysely";
import QRCode from "qrcode";
import { DecryptError, decryptSecret, encryptSecret } from "#app/core/crypto.ts";
import { type NewActivityLog, recordActivities, recordActivity } from "#db/queries/activity-logs.ts";
import { clearThrottle, reserveLoginAttempt } from "#db/queries/login-throttles.ts";
import { getSettingCached } from "#db/queries/settings.ts";
import { type User, findUserById } from "#db/queries/users.ts";
import type { DB } from "#db/schema.ts";
import { lockoutEntries } from "./auth.server.ts";

/** What every authenticator app understands: SHA-1, 6 digits, 30 s. */
export const TOTP = { algorithm: "SHA-1", digits: 6, period: 30 } as const;
export const TOTP_ISSUER = "PerpDesk";
export const RECOVERY_CODE_COUNT = 10;
/** The admin setting that makes every account set up 2FA before using the app. */
export const REQUIRE_TWO_FACTOR_SETTING = "require_two_factor";

/**
 * Code checks per account (login step and the Account screen alike): 5 free, then 30 s
 * doubling, at most 15 minutes. Per account, not per address: whoever reaches this step
 * already has the password, and spreading guesses over many addresses must not multiply
 * them. Reserved before the check, like the password's (db/queries/login-throttles.ts).
 */
const CODE_THROTTLE = { free: 5, baseMs: 30_000, maxLockMs: 15 * 60_000, resetAfterMs: 60 * 60_000 };
const codeLock = (failures: number) =>
  failures < CODE_THROTTLE.free
    ? 0
    : Math.min(CODE_THROTTLE.baseMs * 2 ** (failures - CODE_THROTTLE.free), CODE_THROTTLE.maxLockMs);
const codeKey = (userId: string) => `2fa:${userId}`;

export type CodeResult =
  | { ok: true; method: "totp" | "recovery" }
  | { ok: false; status: 400 | 401 | 429; error: string; retryAfterSeconds?: number };

export const TWO_FACTOR_CODE_REQUIRED = "Two-factor code required";
export const WRONG_CODE = "That code is not valid. Check your authenticator app and try again.";
export const SECRET_UNREADABLE =
  "The two-factor secret cannot be read (APP_SECRET changed): sign in with a recovery code, or ask an admin to reset two-factor authentication";

const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"; // no i, l, o, 0, 1: read aloud and typed without doubt
const hashRecoveryCode = (normalised: string) =>
  createHash("sha256").update(`perpdesk-recovery:${normalised}`).digest("hex");
const newRecoveryCode = () =>
  Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join("");
/** "abcdefghjk" → "abcde-fghjk", as shown to the user. */
export const formatRecoveryCode = (code: string) => `${code.slice(0, 5)}-${code.slice(5)}`;

/** A 160-bit secret (RFC 4226's recommendation), base32 as authenticator apps take it. */
const newTotpSecret = () => base32Encode(randomBytes(20), "RFC4648", { padding: false });
const currentStep = () => Math.floor(Date.now() / 1000 / TOTP.period);

export interface Enrolment {
  /** The base32 key, grouped by four for typing by hand. */
  secretGroups: string;
  otpauthUri: string;
  /** The QR code as an SVG data: URL (an <img>, no script needed). */
  qrDataUrl: string;
}

async function enrolmentFor(user: User, secret: string): Promise<Enrolment> {
  const otpauthUri = getTOTPAuthUri({ ...TOTP, secret, accountName: user.username, issuer: TOTP_ISSUER });
  const svg = await QRCode.toString(otpauthUri, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  return {
    secretGroups: secret.replace(/(.{4})/g, "$1 ").trim(),
    otpauthUri,
    qrDataUrl: `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`,
  };
}

async function readUserTotp(db: Kysely<DB>, userId: string) {
  return db
    .selectFrom("users")
    .select(["totp_secret_enc", "totp_pending_enc", "totp_last_step", "username"])
    .where("id", "=", userId)
    .executeTakeFirst();
}

/** The enrolment in progress (a new secret not yet confirmed), if any. */
export async function pendingEnrolment(db: Kysely<DB>, appSecret: string, user: User): Promise<Enrolment | null> {
  const row = await readUserTotp(db, user.id);
  if (!row?.totp_pending_enc || row.totp_secret_enc) return null;
  try {
    return await enrolmentFor(user, decryptSecret(row.totp_pending_enc, appSecret));
  } catch (error) {
    if (error instanceof DecryptError) return null;
    throw error;
  }
}

/** Starts (or restarts) enrolment with a fresh secret. Refused while 2FA is on. */
export async function beginEnrolment(db: Kysely<DB>, appSecret: string, user: User): Promise<Enrolment | null> {
  const secret = newTotpSecret();
  const result = await db
    .updateTable("users")
    .set({ totp_pending_enc: encryptSecret(secret, appSecret) })
    .where("id", "=", user.id)
    .where("totp_secret_enc", "is", null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return null;
  return enrolmentFor(user, secret);
}

export async function cancelEnrolment(db: Kysely<DB>, user: User): Promise<void> {
  await db.updateTable("users").set({ totp_pending_enc: null }).where("id", "=", user.id).execute();
}

/** Reserves one code check; a refusal says how long to wait. */
async function reserveCodeCheck(db: Kysely<DB>, userId: string) {
  const reservation = await reserveLoginAttempt(
    db,
    [{ key: codeKey(userId), lockFor: codeLock }],
    CODE_THROTTLE.resetAfterMs,
  );
  if (reservation.ok) return reservation;
  const retryAfterSeconds = Math.ceil(reservation.retryAfterMs / 1000);
  return {
    ok: false as const,
    refusal: {
      ok: false as const,
      status: 429 as const,
      error: `Too many wrong codes. Try again in ${retryAfterSeconds} seconds.`,
      retryAfterSeconds,
    },
  };
}

/**
 * Checks a TOTP code against `secret` and, when it is right, records its time step: a
 * step at or before the last accepted one is refused, so a code (seen over a shoulder,
 * or replayed) works once.
 */
async function acceptTotp(
  db: Kysely<DB>,
  userId: string,
  secret: string,
  code: string,
  column: "secret" | "pending",
): Promise<boolean> {
  if (!/^\d{6}$/.test(code)) return false;
  const verified = await verifyTOTP({ ...TOTP, otp: code, secret, window: 1 });
  if (!verified) return false;
  const step = currentStep() + verified.delta;
  const result = await db
    .updateTable("users")
    .set({ totp_last_step: step })
    .where("id", "=", userId)
    .where((eb) => eb.or([eb("totp_last_step", "is", null), eb("totp_last_step", "<", step)]))
    .where(column === "secret" ? "totp_secret_enc" : "totp_pending_enc", "is not", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Uses up a recovery code (one statement: two requests with the same code cannot both pass). */
async function acceptRecoveryCode(db: Kysely<DB>, userId: string, code: string): Promise<boolean> {
  if (!/^[a-z0-9]{10}$/.test(code)) return false;
  const result = await db
    .updateTable("recovery_codes")
    .set({ used_at: Date.now() })
    .where("code_hash", "=", hashRecoveryCode(code))
    .where("user_id", "=", userId)
    .where("used_at", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

async function replaceRecoveryCodes(db: Kysely<DB>, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await db.deleteFrom("recovery_codes").where("user_id", "=", userId).execute();
  const now = Date.now();
  await db
    .insertInto("recovery_codes")
    .values(
      codes.map((code) => ({ code_hash: hashRecoveryCode(code), user_id: userId, created_at: now, used_at: null })),
    )
    .execute();
  return codes.map(formatRecoveryCode);
}

export async function recoveryCodesLeft(db: Kysely<DB>, userId: string): Promise<number> {
  const row = await db
    .selectFrom("recovery_codes")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("user_id", "=", userId)
    .where("used_at", "is", null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Checks a second-factor code (normalised by TwoFactorCodeSchema) for a user whose 2FA is
 * on: a TOTP code, or else one of the recovery codes. Throttled per account; a right code
 * clears the account's counter.
 */
export async function checkSecondFactor(
  db: Kysely<DB>,
  appSecret: string,
  userId: string,
  code: string,
  context: { ip: string | null; purpose: string },
): Promise<CodeResult> {
  const row = await readUserTotp(db, userId);
  if (!row?.totp_secret_enc)
    return { ok: false, status: 400, error: "Two-factor authentication is not on for this account" };
  const reservation = await reserveCodeCheck(db, userId);
  if (!reservation.ok) return reservation.refusal;

  let unreadable = false;
  let method: "totp" | "recovery" | null = null;
  if (/^\d{6}$/.test(code)) {
    try {
      if (await acceptTotp(db, userId, decryptSecret(row.totp_secret_enc, appSecret), code, "secret")) method = "totp";
    } catch (error) {
      if (!(error instanceof DecryptError)) throw error;
      unreadable = true;
    }
  } else if (await acceptRecoveryCode(db, userId, code)) {
    method = "recovery";
  }

  if (method) {
    await clearThrottle(db, codeKey(userId));
    if (method === "recovery") {
      const left = await recoveryCodesLeft(db, userId);
      await recordActivity(db, {
        type: "auth",
        level: "warning",
        message: `${row.username} used a recovery code (${left} left)`,
        data: { username: row.username, ip: context.ip, recoveryCodesLeft: left },
      });
    }
    return { ok: true, method };
  }
  const entries: NewActivityLog[] = [
    {
      type: "auth",
      level: unreadable ? "error" : "warning",
      message: unreadable
        ? `Two-factor code for ${row.username} could not be checked: the stored secret cannot be decrypted (APP_SECRET changed)`
        : `Wrong two-factor code for ${row.username} (${context.purpose})`,
      data: { username: row.username, ip: context.ip },
    },
  ];
  entries.push(
    ...lockoutEntries(
      reservation.locked,
      row.username,
      context.ip,
      (lock, seconds) =>
        `Two-factor codes for ${row.username} locked for ${seconds} s after ${lock.failures} wrong codes`,
    ),
  );
  await recordActivities(db, entries);
  return { ok: false, status: 401, error: unreadable ? SECRET_UNREADABLE : WRONG_CODE };
}

/** A user's change to their own second factor, in the activity log with who and from where. */
function logOwnChange(
  db: Kysely<DB>,
  user: User,
  ip: string | null,
  level: "success" | "warning" | "info",
  change: string,
): Promise<void> {
  return recordActivity(db, {
    type: "auth",
    level,
    message: `${user.username} ${change}`,
    data: { username: user.username, ip },
  });
}

/** Fresh recovery codes, formatted, to be shown once; or why there are none. */
type RecoveryCodesResult = { ok: true; recoveryCodes: string[] } | Extract<CodeResult, { ok: false }>;

/**
 * Confirms enrolment with a code from the app: the pending secret becomes the account's,
 * and ten recovery codes are made. Returns them formatted, to be shown once.
 */
export async function confirmEnrolment(
  db: Kysely<DB>,
  appSecret: string,
  user: User,
  code: string,
  ip: string | null,
): Promise<RecoveryCodesResult> {
  const row = await readUserTotp(db, user.id);
  if (row?.totp_secret_enc) return { ok: false, status: 400, error: "Two-factor authentication is already on" };
  if (!row?.totp_pending_enc)
    return { ok: false, status: 400, error: "Start the setup again: no setup is in progress" };
  const reservation = await reserveCodeCheck(db, user.id);
  if (!reservation.ok) return reservation.refusal;
  let secret: string;
  try {
    secret = decryptSecret(row.totp_pending_enc, appSecret);
  } catch (error) {
    if (!(error instanceof DecryptError)) throw error;
    await cancelEnrolment(db, user);
    return { ok: false, status: 400, error: "Start the setup again: the key being set up can no longer be read" };
  }
  if (!(await acceptTotp(db, user.id, secret, code, "pending"))) return { ok: false, status: 401, error: WRONG_CODE };
  const recoveryCodes = await db.transaction().execute(async (trx) => {
    await trx
      .updateTable("users")
      .set({ totp_secret_enc: row.totp_pending_enc, totp_pending_enc: null })
      .where("id", "=", user.id)
      .execute();
    const codes = await replaceRecoveryCodes(trx, user.id);
    await clearThrottle(trx, codeKey(user.id));
    await logOwnChange(trx, user, ip, "success", "turned on two-factor authentication");
    return codes;
  });
  return { ok: true, recoveryCodes };
}

/** Turns 2FA off after a current code (an app code or a recovery code). */
export async function disableTwoFactor(
  db: Kysely<DB>,
  appSecret: string,
  user: User,
  code: string,
  ip: string | null,
): Promise<CodeResult> {
  const checked = await checkSecondFactor(db, appSecret, user.id, code, { ip, purpose: "turning it off" });
  if (!checked.ok) return checked;
  await db.transaction().execute(async (trx) => {
    await clearTwoFactor(trx, user.id);
    await logOwnChange(trx, user, ip, "warning", "turned off two-factor authentication");
  });
  return checked;
}

/** New recovery codes (the old ones stop working) after a current code. */
export async function renewRecoveryCodes(
  db: Kysely<DB>,
  appSecret: string,
  user: User,
  code: string,
  ip: string | null,
): Promise<RecoveryCodesResult> {
  const checked = await checkSecondFactor(db, appSecret, user.id, code, { ip, purpose: "new recovery codes" });
  if (!checked.ok) return checked;
  const recoveryCodes = await db.transaction().execute(async (trx) => {
    const codes = await replaceRecoveryCodes(trx, user.id);
    await logOwnChange(trx, user, ip, "info", "made new recovery codes");
    return codes;
  });
  return { ok: true, recoveryCodes };
}

/** Removes an account's 2FA: secret, enrolment, replay step and recovery codes. Call inside a transaction. */
export async function clearTwoFactor(db: Kysely<DB>, userId: string): Promise<void> {
  await db
    .updateTable("users")
    .set({ totp_secret_enc: null, totp_pending_enc: null, totp_last_step: null })
    .where("id", "=", userId)
    .execute();
  await db.deleteFrom("recovery_codes").where("user_id", "=", userId).execute();
}

/**
 * The account a pending login's second step (the signed two-factor cookie) is for, or null when
 * that step cannot go on: the account is gone, disabled, or no longer has two-factor on.
 */
export async function secondStepUser(db: Kysely<DB>, userId: string): Promise<User | null> {
  const user = await findUserById(db, userId);
  return user && !user.disabled && user.twoFactorEnabled ? user : null;
}

export async function isTwoFactorRequired(db: Kysely<DB>): Promise<boolean> {
  return (await getSettingCached<boolean>(db, REQUIRE_TWO_FACTOR_SETTING, 2000)) === true;
}
