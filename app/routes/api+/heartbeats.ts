// GET /api/heartbeats (every role): the strategies expected to send a heartbeat alert, with
// their state (waiting | ok | missed), last heartbeat and when they turn missed (issue 12).
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { NO_STORE } from "#app/utils/api.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";
import { listStrategyHeartbeats } from "#app/services/heartbeats.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return json({ heartbeats: await listStrategyHeartbeats(context.db) }, { headers: NO_STORE });
}
