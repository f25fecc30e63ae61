// GET /api/signals/{id} (any signed-in role): one signal, its status and reason, whether it is
// a test alert, and its latency timeline, as they are now (the "Send test alert" panel polls it
// while the alert makes its way). 404 for an unknown id.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { getSignalNow } from "#app/services/test-alert.server.ts";
import { NO_STORE, jsonError } from "#app/utils/api.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const now = await getSignalNow(context.db, params.id ?? "");
  if (!now) return jsonError(404, "Signal not found", { success: false });
  return json(now, { headers: NO_STORE });
}
