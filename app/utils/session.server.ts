// The session cookie: HttpOnly, SameSite=Lax, signed with a key derived from APP_SECRET,
// Secure whenever the request came over https. It carries a random token only; the
// session itself (user, expiry) lives in the sessions table.
import { createHmac } from "node:crypto";
import { type Cookie, createCookie } from "@remix-run/node";
import type { AppLoadContext } from "@remix-run/node";
import type { SessionPolicy } from "#app/core/types/sessions.ts";

export const SESSION_POLICY: SessionPolicy = {
  idleMs: 12 * 60 * 60 * 1000, // 12 hours without a request
  absoluteMs: 7 * 24 * 60 * 60 * 1000, // 7 days after login
};

const cookies = new Map<string, Cookie>();

export function deriveKey(appSecret: string, purpose: string): string {
  return createHmac("sha256", appSecret).update(purpose).digest("hex");
}

function cookieFor(context: AppLoadContext, name: string, maxAgeSeconds?: number): Cookie {
  const cacheKey = `${name}:${context.config.appSecret}`;
  let cookie = cookies.get(cacheKey);
  if (!cookie) {
    cookie = createCookie(name, {
      httpOnly: true,
      sameSite: "lax",
      path: "/",
      secrets: [deriveKey(context.config.appSecret, `cookie:${name}`)],
      maxAge: maxAgeSeconds,
    });
    cookies.set(cacheKey, cookie);
  }
  return cookie;
}

/**
 * Cookies are Secure when the request came over https, and always when PUBLIC_URL is an
 * https address (production behind TLS: a plain-http request then gets no usable cookie
 * rather than a cookie an eavesdropper could read).
 */
export const secureCookies = (context: AppLoadContext) =>
  context.isHttps || Boolean(context.config.PUBLIC_URL?.startsWith("https:"));

export const sessionCookie = (context: AppLoadContext) =>
  cookieFor(context, "tv_session", SESSION_POLICY.absoluteMs / 1000);

export async function readSessionToken(request: Request, context: AppLoadContext): Promise<string | null> {
  const value = await sessionCookie(context).parse(request.headers.get("Cookie"));
  return typeof value === "string" && value.length > 0 ? value : null;
}

export function commitSessionToken(context: AppLoadContext, token: string): Promise<string> {
  return sessionCookie(context).serialize(token, { secure: secureCookies(context) });
}

export function destroySessionCookie(context: AppLoadContext): Promise<string> {
  return sessionCookie(context).serialize("", { secure: secureCookies(context), maxAge: 0, expires: new Date(0) });
}

export const flashCookie = (context: AppLoadContext) => cookieFor(context, "tv_toast");

/**
 * Between the password and the second-factor code: a signed cookie naming the account that
 * passed the password step, for 5 minutes. It grants nothing but the right to try codes
 * (throttled per account), and is replaced by the session cookie once a code is right.
 */
export const SECOND_FACTOR_TTL_MS = 5 * 60 * 1000;
const secondFactorCookie = (context: AppLoadContext) => cookieFor(context, "tv_2fa", SECOND_FACTOR_TTL_MS / 1000);

export interface PendingSecondFactor {
  userId: string;
  redirectTo: string;
}

export function commitSecondFactor(context: AppLoadContext, pending: PendingSecondFactor): Promise<string> {
  return secondFactorCookie(context).serialize(
    { u: pending.userId, r: pending.redirectTo, t: Date.now() },
    { secure: secureCookies(context) },
  );
}

export async function readSecondFactor(request: Request, context: AppLoadContext): Promise<PendingSecondFactor | null> {
  const value = await secondFactorCookie(context).parse(request.headers.get("Cookie"));
  if (!value || typeof value !== "object") return null;
  const { u, r, t } = value as { u?: unknown; r?: unknown; t?: unknown };
  if (typeof u !== "string" || typeof t !== "number" || Date.now() - t > SECOND_FACTOR_TTL_MS) return null;
  return { userId: u, redirectTo: typeof r === "string" ? r : "" };
}

export function clearSecondFactor(context: AppLoadContext): Promise<string> {
  return secondFactorCookie(context).serialize("", { secure: secureCookies(context), maxAge: 0, expires: new Date(0) });
}
