// GET /api/positions/{id}/details: { trades, relatedSignal, metrics: { totalVolume,
// estimatedFees, unrealizedPnL } } (docs/spec/api.md#shapes "Position details response"), plus the
// position, the exchange label and metrics.feesPaid / markPrice. 404 JSON for an unknown id.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { getPositionDetails } from "#app/services/positions.server.ts";
import { jsonError, NO_STORE } from "#app/utils/api.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const details = await getPositionDetails(context.db, params.id ?? "");
  if (!details) return jsonError(404, "Position not found");
  return json(details, { headers: NO_STORE });
}
