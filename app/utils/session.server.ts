// The session cookie: HttpOnly, SameSite=Lax, signed with a key derived from APP_SECRET,
// Secure whenever the request came over https. It carries a random token only; the
// session itself (user, expiry) lives in the sessions table.
import { createHmac } from "node:crypto";
import { type Cookie, createCookie } from "@remix-run/node";
import type { AppLoadContext } from "@remix-run/node";
import type { SessionPolicy } from "#db/queries/sessions.ts";

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

export const sessionCookie = (context: AppLoadContext) =>
  cookieFor(context, "tv_session", SESSION_POLICY.absoluteMs / 1000);

export async function readSessionToken(request: Request, context: AppLoadContext): Promise<string | null> {
  const value = await sessionCookie(context).parse(request.headers.get("Cookie"));
  return typeof value === "string" && value.length > 0 ? value : null;
}

export function commitSessionToken(context: AppLoadContext, token: string): Promise<string> {
  return sessionCookie(context).serialize(token, { secure: context.isHttps });
}

export function destroySessionCookie(context: AppLoadContext): Promise<string> {
  return sessionCookie(context).serialize("", { secure: context.isHttps, maxAge: 0, expires: new Date(0) });
}

export const flashCookie = (context: AppLoadContext) => cookieFor(context, "tv_toast");
