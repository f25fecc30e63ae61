// POST /api/emergency-stop (every logged-in user): answers { success, message }.
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { switchEmergencyStop } from "#app/services/trading.server.ts";
import { getNotAllowedLoader, jsonError } from "#app/utils/api.server.ts";
import { requireUser, requirePermission } from "#app/services/sessions.server.ts";

export const loader = getNotAllowedLoader(requireUser);

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requirePermission(request, context, "emergency.activate");
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  return json(await switchEmergencyStop(context.db, true, user.username));
}
