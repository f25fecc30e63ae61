// GET /api/drifts: the open drift alarms (issue 11), differences between the exchange's
// positions and the app's that the reconciliation loop confirmed. Every signed-in role reads
// them; resolving is POST /api/drifts/{id}/resolve (trader, admin).
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { listDrifts } from "#app/services/drifts.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return json(await listDrifts(context.db), { headers: NO_STORE });
}
