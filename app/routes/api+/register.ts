// POST /api/register {username, password, invite?}: 201 with the user and a session cookie
// (the first account becomes admin; later ones need an invitation, or an open registration);
// 400 naming the field; 403 without a valid invitation; 409 when the name is taken.
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { RegisterApiSchema } from "#app/core/schemas/auth.ts";
import { UsernameTakenError } from "#app/core/types/users.ts";
import { RegistrationClosedError, registerUser } from "#app/services/auth.server.ts";
import { firstIssue, jsonError, readBodyObject } from "#app/utils/api.server.ts";
import { startSession } from "#app/services/sessions.server.ts";

export async function loader(_: LoaderFunctionArgs) {
  return jsonError(405, "Method GET not allowed");
}

export async function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  const body = await readBodyObject(request, 16 * 1024);
  const parsed = RegisterApiSchema.safeParse({
    username: typeof body.username === "string" ? body.username : undefined,
    password: typeof body.password === "string" ? body.password : undefined,
    invite: typeof body.invite === "string" ? body.invite : undefined,
  });
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error.issues);
    return jsonError(400, message, { field });
  }
  try {
    const user = await registerUser(context.db, { ...parsed.data, ip: context.clientIp });
    const cookie = await startSession(request, context, user);
    return json(user, { status: 201, headers: { "Set-Cookie": cookie, "Cache-Control": "no-store" } });
  } catch (error) {
    if (error instanceof UsernameTakenError) return jsonError(409, error.message, { field: "username" });
    if (error instanceof RegistrationClosedError) return jsonError(403, error.message);
    throw error;
  }
}
