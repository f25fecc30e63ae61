// POST /api/orders/cancel-all (trader, admin): cancels every resting order. Answers
// { success, cancelled } once the worker has handled them, 202 with done: false when it has
// not within 10 s (the cancels still run).
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { cancelAllOrders } from "#app/services/orders.server.ts";
import { NO_STORE, getNotAllowedLoader, jsonError } from "#app/utils/api.server.ts";
import { requirePermission, requireUser } from "#app/services/sessions.server.ts";

export const loader = getNotAllowedLoader(requireUser);

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requirePermission(request, context, "orders.cancel");
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  const result = await cancelAllOrders(context.db, user.username);
  return json(
    { success: true, cancelled: result.cancelled, done: result.done },
    { status: result.done ? 200 : 202, headers: NO_STORE },
  );
}
