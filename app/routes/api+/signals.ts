// GET /api/signals?limit=10: newest first, each with its latency timeline (issue 12).
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { queryInt } from "#app/utils/api.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";
import { listSignalsWithTimelines } from "#app/services/signals.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return json(
    await listSignalsWithTimelines(context.db, queryInt(new URL(request.url).searchParams, "limit", 10, 1, 500)),
  );
}
