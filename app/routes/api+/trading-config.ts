// GET /api/trading-config (any user) and POST (admin; the body bare or under `config`).
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { updateTradingConfig } from "#app/services/trading.server.ts";
import { jsonError, readJsonObject } from "#app/utils/api.server.ts";
import { requireAdmin, requireUser } from "#app/services/sessions.server.ts";
import { getTradingConfig } from "#app/services/trading.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return json({ config: await getTradingConfig(context.db) });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  if (request.method !== "POST" && request.method !== "PUT")
    return jsonError(405, `Method ${request.method} not allowed`);
  const body = await readJsonObject(request);
  const result = await updateTradingConfig(context.db, body, user.username);
  if (!result.ok) return jsonError(400, result.error, result.field ? { field: result.field } : {});
  return json({ success: true, config: result.config });
}
