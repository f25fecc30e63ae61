// Who is asking: the session user, the guards every loader/action/API route calls first,
// and the remix-auth form strategy used by both the login page and POST /api/login.
import { closeSocketsOfSession } from "#app/services/session-sockets.server.ts";
import { json, redirect } from "@remix-run/node";
import type { AppLoadContext } from "@remix-run/node";
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { type Permission, can, refusalMessage } from "#app/core/auth/permissions.ts";
import { LoginSchema } from "#app/core/schemas/auth.ts";
import { type LoginResult, attemptLogin } from "#app/services/auth.server.ts";
import { TWO_FACTOR_REQUIRED, sessionPolicyRefusal } from "./session-policy.server.ts";
import { sharedRead } from "#app/services/shared-read.server.ts";
import { createSession, deleteSessionByToken, getSessionUser } from "#db/queries/sessions.ts";
import type { User } from "#db/queries/users.ts";
import {
  SESSION_POLICY,
  commitSessionToken,
  destroySessionCookie,
  readSessionToken,
} from "#app/utils/session.server.ts";

const userCache = new WeakMap<Request, Promise<User | null>>();

/** The logged-in user, or null. Cached per request. */
export function getUser(request: Request, context: AppLoadContext): Promise<User | null> {
  let pending = userCache.get(request);
  if (!pending) {
    pending = (async () => {
      const token = await readSessionToken(request, context);
      if (!token) return null;
      // The root's, the layout's and the page's loaders each ask with a Request of their own:
      // lookups of one session at about the same time share one read (decision 037).
      const found = await sharedRead(context.db, `session|${token}`, () =>
        getSessionUser(context.db, token, SESSION_POLICY),
      );
      return found?.user ?? null;
    })();
    userCache.set(request, pending);
  }
  return pending;
}

const isApiRequest = (request: Request) => new URL(request.url).pathname.startsWith("/api/");

/**
 * The logged-in user, or a thrown Response: 401 JSON for /api routes, otherwise a
 * redirect to /login that brings the user back afterwards.
 */
export async function requireUser(request: Request, context: AppLoadContext): Promise<User> {
  const user = await getUser(request, context);
  if (user) {
    await requireTwoFactorIfDemanded(request, context, user);
    return user;
  }
  if (isApiRequest(request)) {
    throw json({ error: "Authentication required" }, { status: 401, headers: { "Cache-Control": "no-store" } });
  }
  const url = new URL(request.url);
  const back = url.pathname + url.search;
  const target = back === "/" ? "/login" : `/login?${new URLSearchParams({ redirectTo: back })}`;
  throw redirect(target);
}

/** Where an account without 2FA may still go when an admin requires 2FA: to set it up, or leave. */
const TWO_FACTOR_SETUP_PATHS = new Set(["/account", "/logout", "/api/logout", "/api/user"]);
export { TWO_FACTOR_REQUIRED };

/**
 * The session policy (app/services/session-policy.server.ts, the same check as /ws and
 * /api/health): an account it refuses (2FA required for all, and none set up) only reaches
 * the Account screen.
 */
async function requireTwoFactorIfDemanded(request: Request, context: AppLoadContext, user: User): Promise<void> {
  if (user.twoFactorEnabled) return;
  const path = new URL(request.url).pathname.replace(/\/+$/, "") || "/";
  if (TWO_FACTOR_SETUP_PATHS.has(path)) return;
  const refusal = await sessionPolicyRefusal(context.db, user);
  if (!refusal) return;
  if (isApiRequest(request)) throw json({ error: refusal }, { status: 403, headers: { "Cache-Control": "no-store" } });
  throw redirect("/account");
}

/** The signed-in user the session policy lets through, or null (/api/health's detailed view). */
export async function getUserWithinPolicy(request: Request, context: AppLoadContext): Promise<User | null> {
  const user = await getUser(request, context);
  if (!user || (await sessionPolicyRefusal(context.db, user))) return null;
  return user;
}

/** requireUser, then a 403 JSON (pages render it through their error boundary) unless admin. */
export async function requireAdmin(request: Request, context: AppLoadContext): Promise<User> {
  const user = await requireUser(request, context);
  if (user.role !== "admin") {
    throw json({ error: "Admin access required" }, { status: 403, headers: { "Cache-Control": "no-store" } });
  }
  return user;
}

/**
 * requireUser, then a 403 JSON (pages render it through their error boundary) unless the
 * user's role has the permission (app/core/auth/permissions.ts).
 */
export async function requirePermission(
  request: Request,
  context: AppLoadContext,
  permission: Permission,
): Promise<User> {
  const user = await requireUser(request, context);
  if (!can(user.role, permission)) {
    throw json(
      { error: refusalMessage(user.role, permission) },
      { status: 403, headers: { "Cache-Control": "no-store" } },
    );
  }
  return user;
}

/** Login and registration pages: a logged-in visitor goes straight to the app. */
export async function requireAnonymous(request: Request, context: AppLoadContext): Promise<void> {
  if (await getUser(request, context)) throw redirect("/dashboard");
}

export class LoginError extends Error {
  constructor(public result: Extract<LoginResult, { ok: false }>) {
    super(result.error);
  }
}

export class LoginValidationError extends Error {
  constructor(public issues: { path: PropertyKey[]; message: string }[]) {
    super(issues[0]?.message ?? "Invalid input");
  }
}

/** A right password: the user, and whether a second-factor code must follow before a session. */
export interface PasswordOutcome {
  user: User;
  secondFactor: boolean;
}

function authenticatorFor(context: AppLoadContext) {
  const authenticator = new Authenticator<PasswordOutcome>();
  authenticator.use(
    new FormStrategy(async ({ form }) => {
      const parsed = LoginSchema.safeParse({
        username: form.get("username") ?? undefined,
        password: form.get("password") ?? undefined,
      });
      if (!parsed.success) throw new LoginValidationError(parsed.error.issues);
      const result = await attemptLogin(context.db, { ...parsed.data, ip: context.clientIp });
      if (!result.ok) throw new LoginError(result);
      return { user: result.user, secondFactor: result.secondFactor };
    }),
    "form",
  );
  return authenticator;
}

/**
 * Authenticates a form post (username, password). Throws LoginError / LoginValidationError.
 * With 2FA on, `secondFactor` is true and nothing is logged in yet.
 */
export function authenticateForm(request: Request, context: AppLoadContext): Promise<PasswordOutcome> {
  return authenticatorFor(context).authenticate("form", request);
}

/**
 * Starts a new session for the user (a fresh token: any session the browser had before
 * is ended, so a planted cookie never becomes a logged-in one) and returns the
 * Set-Cookie header value.
 */
export async function startSession(request: Request, context: AppLoadContext, user: User): Promise<string> {
  const previous = await readSessionToken(request, context);
  if (previous) {
    await deleteSessionByToken(context.db, previous);
    closeSocketsOfSession(previous);
  }
  const { token } = await createSession(context.db, {
    userId: user.id,
    ip: context.clientIp,
    userAgent: request.headers.get("user-agent"),
    policy: SESSION_POLICY,
  });
  return commitSessionToken(context, token);
}

/** Ends the session server-side and returns the Set-Cookie header that clears it. */
export async function endSession(request: Request, context: AppLoadContext): Promise<string> {
  const token = await readSessionToken(request, context);
  if (token) {
    await deleteSessionByToken(context.db, token);
    closeSocketsOfSession(token);
  }
  return destroySessionCookie(context);
}
