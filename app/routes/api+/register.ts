// POST /api/register {username, password}: 201 with the user and a session cookie
// (the first account becomes admin); 400 naming the field; 409 when the name is taken.
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { RegisterApiSchema } from "#app/core/schemas/auth.ts";
import { registerUser } from "#app/services/auth.server.ts";
import { firstIssue, jsonError, readJsonObject } from "#app/utils/api.server.ts";
import { startSession } from "#app/utils/auth.server.ts";
import { UsernameTakenError } from "#db/queries/users.ts";

export async function loader(_: LoaderFunctionArgs) {
  return jsonError(405, "Method GET not allowed");
}

export async function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  const body = await readJsonObject(request, 16 * 1024);
  const parsed = RegisterApiSchema.safeParse({
    username: typeof body.username === "string" ? body.username : undefined,
    password: typeof body.password === "string" ? body.password : undefined,
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
    throw error;
  }
}
