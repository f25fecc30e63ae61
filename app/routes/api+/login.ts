// POST /api/login {username, password, code?}: 200 with the user and a new session cookie;
// 400 naming the field; 401 for wrong credentials; 429 while throttled. With 2FA on, the
// second factor comes in the same request as `code` (an app code or a recovery code):
// without it, 401 {error, twoFactorRequired: true} once the password is right.
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { LoginSchema, TwoFactorCodeSchema } from "#app/core/schemas/auth.ts";
import { completeLogin } from "#app/services/auth.server.ts";
import { TWO_FACTOR_CODE_REQUIRED, checkSecondFactor } from "#app/services/two-factor.server.ts";
import { NO_STORE, firstIssue, jsonError, readJsonObject } from "#app/utils/api.server.ts";
import { LoginError, LoginValidationError, authenticateForm, startSession } from "#app/services/sessions.server.ts";

export async function loader(_: LoaderFunctionArgs) {
  return jsonError(405, "Method GET not allowed");
}

export async function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  const body = await readJsonObject(request, 16 * 1024);
  const parsed = LoginSchema.safeParse({
    username: typeof body.username === "string" ? body.username : undefined,
    password: typeof body.password === "string" ? body.password : undefined,
  });
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error.issues);
    return jsonError(400, message, { field });
  }
  // The same remix-auth form strategy as the login page.
  const formRequest = new Request(request.url, {
    method: "POST",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      "User-Agent": request.headers.get("user-agent") ?? "",
    },
    body: new URLSearchParams({ username: parsed.data.username, password: parsed.data.password }),
  });
  try {
    let { user, secondFactor } = await authenticateForm(formRequest, context);
    if (secondFactor) {
      if (body.code === undefined || body.code === null || body.code === "") {
        return json({ error: TWO_FACTOR_CODE_REQUIRED, twoFactorRequired: true }, { status: 401, headers: NO_STORE });
      }
      const code = TwoFactorCodeSchema.safeParse(body.code);
      if (!code.success) return jsonError(400, code.error.issues[0]!.message, { field: "code" });
      const checked = await checkSecondFactor(context.db, context.config.appSecret, user.id, code.data, {
        ip: context.clientIp,
        purpose: "login",
      });
      if (!checked.ok) {
        const headers = checked.retryAfterSeconds
          ? { "Retry-After": String(checked.retryAfterSeconds), ...NO_STORE }
          : NO_STORE;
        return json({ error: checked.error, twoFactorRequired: true }, { status: checked.status, headers });
      }
      user = await completeLogin(context.db, user, context.clientIp);
    }
    const cookie = await startSession(request, context, user);
    return json(user, { headers: { "Set-Cookie": cookie, "Cache-Control": "no-store" } });
  } catch (error) {
    if (error instanceof LoginValidationError)
      return jsonError(400, error.message, { field: firstIssue(error.issues).field });
    if (error instanceof LoginError) {
      const headers = error.result.retryAfterSeconds
        ? { "Retry-After": String(error.result.retryAfterSeconds) }
        : undefined;
      return json({ error: error.result.error }, { status: error.result.status, headers });
    }
    throw error;
  }
}
