// GET /api/balance: { exchange, label, balances: [{ currency, available, hold }] }.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { getExchange } from "#exchange/factory.ts";
import { jsonError } from "#app/utils/api.server.ts";
import { requireUser } from "#app/utils/auth.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const exchange = getExchange(context.db);
  try {
    return json({ exchange: exchange.name, label: exchange.label, balances: await exchange.getBalances() });
  } catch (error) {
    return jsonError(502, `Balances unavailable: ${(error as Error).message}`);
  }
}
