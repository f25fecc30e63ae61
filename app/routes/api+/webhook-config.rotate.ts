// POST /api/webhook-config/rotate (admin): a new secret; the old one stops working at once.
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { getWebhookConfig } from "#app/services/webhook-config.server.ts";
import { rotateWebhookSecret } from "#app/services/webhook.server.ts";
import { jsonError } from "#app/utils/api.server.ts";
import { requireAdmin } from "#app/utils/auth.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdmin(request, context);
  return jsonError(405, "Method GET not allowed");
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  await rotateWebhookSecret(context.db, context.config.appSecret, user.username);
  return json({ success: true, ...(await getWebhookConfig(request, context)) }, { headers: { "Cache-Control": "no-store" } });
}
