// POST /api/logout: ends the session server-side and clears the cookie.
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { jsonError } from "#app/utils/api.server.ts";
import { endSession, requireUser } from "#app/services/sessions.server.ts";
import { recordLogout } from "#app/services/activity-logs.server.ts";

export async function loader(_: LoaderFunctionArgs) {
  return jsonError(405, "Method GET not allowed");
}

export async function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  const user = await requireUser(request, context);
  const cookie = await endSession(request, context);
  await recordLogout(context.db, user.username);
  return json(
    { success: true, message: "You have been successfully logged out" },
    { headers: { "Set-Cookie": cookie } },
  );
}
