// GET /api/balance: { exchange, label, balances: [{ currency, available, hold }] }.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { activeBalances } from "#app/services/exchange-connections.server.ts";
import { jsonError } from "#app/utils/api.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  try {
    return json(await activeBalances(context.db));
  } catch (error) {
    return jsonError(502, `Balances unavailable: ${(error as Error).message}`);
  }
}
