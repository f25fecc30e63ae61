// GET /api/signals?limit=10: newest first, each with its latency timeline (issue 12).
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { queryInt } from "#app/utils/api.server.ts";
import { requireUser } from "#app/utils/auth.server.ts";
import { listSignals } from "#db/queries/signals.ts";
import { withTimelines } from "#db/queries/signal-timeline.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return json(await withTimelines(context.db, await listSignals(context.db, { limit: queryInt(new URL(request.url).searchParams, "limit", 10, 1, 500) })));
}
