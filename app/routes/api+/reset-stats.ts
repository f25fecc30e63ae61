// POST /api/reset-stats (admin): deletes trades, signals, positions and activity logs in one
// transaction. Answers { success, message }.
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { resetStatistics } from "#app/services/positions.server.ts";
import { jsonError } from "#app/utils/api.server.ts";
import { requireAdmin } from "#app/utils/auth.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdmin(request, context);
  return jsonError(405, "Method GET not allowed");
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  const result = await resetStatistics(context.db, user.username);
  return json({ success: result.success, message: result.message }, { headers: { "Cache-Control": "no-store" } });
}
