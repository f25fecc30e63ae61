// POST /api/trades/{id}/cancel (trader, admin): cancels a resting order on the exchange (the
// simulator releases its hold at once). Answers { success, status } with what the trade
// became (`cancelled`, or `executed` when it filled first); 202 while the worker has not
// answered within 10 s; 404 unknown trade; 409 when it is not resting.
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { cancelOrderBy } from "#app/services/orders.server.ts";
import { NO_STORE, getNotAllowedLoader, jsonError } from "#app/utils/api.server.ts";
import { requirePermission, requireUser } from "#app/services/sessions.server.ts";

export const loader = getNotAllowedLoader(requireUser);

export async function action({ request, context, params }: ActionFunctionArgs) {
  const user = await requirePermission(request, context, "orders.cancel");
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  const result = await cancelOrderBy(context.db, params.id ?? "", user.username);
  if (!result.ok) return jsonError(result.status, result.error, { success: false });
  return json(
    { success: true, status: result.status, done: result.done },
    { status: result.done ? 200 : 202, headers: NO_STORE },
  );
}
