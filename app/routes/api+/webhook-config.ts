// GET /api/webhook-config (admin): the webhook URL, its secret and the alert template.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { getWebhookConfig } from "#app/services/webhook-config.server.ts";
import { requireAdmin } from "#app/services/sessions.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdmin(request, context);
  return json(await getWebhookConfig(request, context), { headers: NO_STORE });
}
