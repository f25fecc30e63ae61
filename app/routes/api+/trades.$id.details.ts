// GET /api/trades/{id}/details: { trade, relatedSignal, relatedTrades, metrics } for the
// Trade History screen's expanded row (polled every 10 s while expanded); 404 JSON for an
// unknown id.
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { getTradeDetails } from "#app/services/trade-details.server.ts";
import { jsonError, NO_STORE } from "#app/utils/api.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const details = await getTradeDetails(context.db, params.id ?? "");
  if (!details) return jsonError(404, "Trade not found");
  return json(details, { headers: NO_STORE });
}

export async function action({ request }: ActionFunctionArgs) {
  return jsonError(405, `Method ${request.method} not allowed`);
}
