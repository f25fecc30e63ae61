// POST /api/login {username, password}: 200 with the user and a new session cookie;
// 400 naming the field; 401 for wrong credentials; 429 while throttled.
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { LoginSchema } from "#app/core/schemas/auth.ts";
import { firstIssue, jsonError, readJsonObject } from "#app/utils/api.server.ts";
import { LoginError, LoginValidationError, authenticateForm, startSession } from "#app/utils/auth.server.ts";

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
    headers: { "Content-Type": "application/x-www-form-urlencoded", "User-Agent": request.headers.get("user-agent") ?? "" },
    body: new URLSearchParams({ username: parsed.data.username, password: parsed.data.password }),
  });
  try {
    const user = await authenticateForm(formRequest, context);
    const cookie = await startSession(request, context, user);
    return json(user, { headers: { "Set-Cookie": cookie, "Cache-Control": "no-store" } });
  } catch (error) {
    if (error instanceof LoginValidationError) return jsonError(400, error.message, { field: firstIssue(error.issues).field });
    if (error instanceof LoginError) {
      const headers = error.result.retryAfterSeconds ? { "Retry-After": String(error.result.retryAfterSeconds) } : undefined;
      return json({ error: error.result.error }, { status: error.result.status, headers });
    }
    throw error;
  }
}
