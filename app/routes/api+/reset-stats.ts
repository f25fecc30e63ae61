// POST /api/reset-stats (admin): deletes trades, signals, positions and activity logs in one
// transaction. Answers { success, message }; 409 while a position is open or an order is
// pending (flatten first).
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { resetStatistics } from "#app/services/positions.server.ts";
import { getNotAllowedLoader, jsonError, NO_STORE } from "#app/utils/api.server.ts";
import { requireAdmin } from "#app/services/sessions.server.ts";

export const loader = getNotAllowedLoader(requireAdmin);

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  const result = await resetStatistics(context.db, user.username);
  if (!result.success) return jsonError(result.status, result.error, { success: false });
  return json({ success: result.success, message: result.message }, { headers: NO_STORE });
}
