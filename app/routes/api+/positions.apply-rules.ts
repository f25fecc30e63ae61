// POST /api/positions/apply-rules (admin): copies the current trading config's controls onto
// every open position by its source. Answers { appliedCount, totalPositions }.
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { applyRulesToOpenPositions } from "#app/services/positions.server.ts";
import { getNotAllowedLoader, jsonError, NO_STORE } from "#app/utils/api.server.ts";
import { requireAdmin } from "#app/services/sessions.server.ts";

export const loader = getNotAllowedLoader(requireAdmin);

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  return json(await applyRulesToOpenPositions(context.db, user.username), { headers: NO_STORE });
}
