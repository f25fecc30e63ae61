// GET /api/signals/{id} (any signed-in role): one signal, its status and reason, whether it is
// a test alert, and its latency timeline, as they are now (the "Send test alert" panel polls it
// while the alert makes its way). 404 for an unknown id.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { NO_STORE, jsonError } from "#app/utils/api.server.ts";
import { requireUser } from "#app/utils/auth.server.ts";
import { getSignalTimeline } from "#db/queries/signal-timeline.ts";
import { getSignal } from "#db/queries/signals.ts";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const signal = await getSignal(context.db, params.id ?? "");
  if (!signal) return jsonError(404, "Signal not found", { success: false });
  const { payload, dedupeKey: _key, ...rest } = signal;
  return json({ signal: { ...rest, test: payload.test === true }, timeline: await getSignalTimeline(context.db, signal.id) }, { headers: NO_STORE });
}
