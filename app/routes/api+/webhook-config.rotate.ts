// POST /api/webhook-config/rotate (admin): a new secret; the old one stops working at once.
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { getWebhookConfig } from "#app/services/webhook-config.server.ts";
import { rotateWebhookSecret } from "#app/services/webhook.server.ts";
import { getNotAllowedLoader, jsonError, NO_STORE } from "#app/utils/api.server.ts";
import { requireAdmin } from "#app/services/sessions.server.ts";

export const loader = getNotAllowedLoader(requireAdmin);

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  await rotateWebhookSecret(context.db, context.config.appSecret, user.username);
  return json({ success: true, ...(await getWebhookConfig(request, context)) }, { headers: NO_STORE });
}
