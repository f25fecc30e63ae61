// POST /api/positions/{symbol}/close (trader, admin): queues a close-position job for
// the whole remaining quantity (the worker sends a reduce-only market order). Answers
// { success, message, jobId }; 404 JSON when there is no open position in the symbol. It
// works under the emergency stop (a close only reduces risk).
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { requestClosePosition } from "#app/services/positions.server.ts";
import { getNotAllowedLoader, jsonError, NO_STORE } from "#app/utils/api.server.ts";
import { requireUser, requirePermission } from "#app/services/sessions.server.ts";

export const loader = getNotAllowedLoader(requireUser);

export async function action({ request, context, params }: ActionFunctionArgs) {
  const user = await requirePermission(request, context, "positions.close");
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  const result = await requestClosePosition(context.db, params.symbol ?? "", user.username);
  if (!result.ok) return jsonError(result.status, result.error, { success: false });
  return json({ success: true, message: result.message, jobId: result.jobId }, { headers: NO_STORE });
}
