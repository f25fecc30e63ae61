// POST /api/positions/apply-rules (admin): copies the current trading config's controls onto
// every open position by its source. Answers { appliedCount, totalPositions }.
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { applyRulesToOpenPositions } from "#app/services/positions.server.ts";
import { jsonError } from "#app/utils/api.server.ts";
import { requireAdmin } from "#app/utils/auth.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdmin(request, context);
  return jsonError(405, "Method GET not allowed");
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  return json(await applyRulesToOpenPositions(context.db, user.username), { headers: { "Cache-Control": "no-store" } });
}
