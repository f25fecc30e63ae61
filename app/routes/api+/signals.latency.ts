// GET /api/signals/latency (issue 12): p50 / p99 of each step of the alerts' path
// (fired → received → committed → claimed → sent → accepted → fill booked) over the last
// 24 h, from the signals' latency timelines. Any signed-in role.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { requireUser } from "#app/services/sessions.server.ts";
import { getLatencySummary } from "#app/services/signals.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return json(await getLatencySummary(context.db), { headers: { "Cache-Control": "no-store" } });
}
