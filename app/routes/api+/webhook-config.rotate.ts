// POST /api/webhook-config/rotate (admin) { grace?: "none" | "15m" | "1h" | "24h" }: a new secret;
// the old one stops working at once, or after the grace period (issue 25).
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { getWebhookConfig } from "#app/services/webhook-config.server.ts";
import { isRotationGrace, rotateWebhookSecret } from "#app/services/webhook.server.ts";
import { getNotAllowedLoader, jsonError, NO_STORE, readBodyObject } from "#app/utils/api.server.ts";
import { requireAdmin } from "#app/services/sessions.server.ts";

export const loader = getNotAllowedLoader(requireAdmin);

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  const body =
    request.headers.get("content-length") === "0"
      ? {}
      : await readBodyObject(request).catch(() => ({}) as Record<string, unknown>);
  const grace = body.grace ?? "none";
  if (!isRotationGrace(grace))
    return jsonError(400, "Grace period must be none, 15m, 1h or 24h", { success: false, field: "grace" });
  await rotateWebhookSecret(context.db, context.config.appSecret, user.username, { grace });
  return json({ success: true, ...(await getWebhookConfig(request, context)) }, { headers: NO_STORE });
}
