// POST /api/strategies/{id}/rotate (admin): a new webhook secret for the strategy; the old
// one stops working at once (this process at once, others within a second).
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { StrategyError, getStrategyView, rotateStrategySecret } from "#app/services/strategies.server.ts";
import { getNotAllowedLoader, jsonError, NO_STORE } from "#app/utils/api.server.ts";
import { requirePermission } from "#app/services/sessions.server.ts";

export const loader = getNotAllowedLoader((request, context) =>
  requirePermission(request, context, "strategies.manage"),
);

export async function action({ request, context, params }: ActionFunctionArgs) {
  const user = await requirePermission(request, context, "strategies.manage");
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  try {
    await rotateStrategySecret(context.db, context.config.appSecret, params.id ?? "", user.username);
  } catch (error) {
    if (error instanceof StrategyError) return jsonError(error.status, error.message);
    throw error;
  }
  return json(
    { success: true, ...(await getStrategyView(request, context, params.id ?? "", user.role)) },
    { headers: NO_STORE },
  );
}
