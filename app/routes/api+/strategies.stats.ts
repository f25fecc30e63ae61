// GET /api/strategies/stats (every signed-in role): docs/spec/api.md#shapes performance statistics
// (allTime, month, week) per strategy, "default" for the global secret, beside the totals.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { getStrategyStatistics } from "#app/services/strategies.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return json(await getStrategyStatistics(context.db), { headers: NO_STORE });
}
