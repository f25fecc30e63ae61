// GET /api/market/summary (any logged-in user; polled every 10 s): product counts, the
// exchange's total 24 h volume or null (docs/decisions/049-market-data-real-figures-only.md) and the top 5 gainers and losers by 24 h change.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { getMarketSummary } from "#app/services/market-data.server.ts";
import { jsonError, NO_STORE } from "#app/utils/api.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  try {
    return json(await getMarketSummary(context.db), { headers: NO_STORE });
  } catch (error) {
    return jsonError(502, `Market data unavailable: ${(error as Error).message}`);
  }
}

export async function action({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return jsonError(405, `Method ${request.method} not allowed`);
}
