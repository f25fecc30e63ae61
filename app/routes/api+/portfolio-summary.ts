// GET /api/portfolio-summary (any logged-in user): equity, wallet balance, available,
// margin used, unrealized and realized P&L, open positions (docs/decisions/006-portfolio-summary.md).
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { getPortfolioSummary } from "#app/services/positions.server.ts";
import { jsonError, NO_STORE } from "#app/utils/api.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  try {
    return json(await getPortfolioSummary(context.db), { headers: NO_STORE });
  } catch (error) {
    return jsonError(502, `Portfolio summary unavailable: ${(error as Error).message}`);
  }
}
