// POST /api/positions/close-all (trader, admin): "Flatten all". Cancels every resting order,
// closes every position at market (reduce-only: it works under the emergency stop), then asks
// the exchange whether the account is flat. Answers { success, closed, cancelled, flat,
// remaining }; 202 when the worker had not finished within the wait.
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { flattenAll } from "#app/services/positions.server.ts";
import { NO_STORE, getNotAllowedLoader, jsonError } from "#app/utils/api.server.ts";
import { requirePermission, requireUser } from "#app/services/sessions.server.ts";

export const loader = getNotAllowedLoader(requireUser);

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requirePermission(request, context, "positions.close");
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  const result = await flattenAll(context.db, user.username);
  return json({ success: true, ...result }, { status: result.done ? 200 : 202, headers: NO_STORE });
}
