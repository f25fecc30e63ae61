// GET /api/test/coinbase (admin): tests the trading credentials (API Settings' Test
// Connection) with one read-only call. Answers 200 { success, message } or
// { success: false, error, message }; a stored connection keeps the outcome as its status.
// Any other exchange name is 404: Coinbase is the only supported exchange.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { coinbaseTester, testTradingCredentials } from "#app/services/exchange-connections.server.ts";
import { jsonError, NO_STORE } from "#app/utils/api.server.ts";
import { requireAdmin } from "#app/services/sessions.server.ts";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const user = await requireAdmin(request, context);
  if ((params.exchange ?? "").toLowerCase() !== "coinbase")
    return jsonError(404, `Unknown exchange: ${params.exchange}`);
  const outcome = await testTradingCredentials(context.db, context.config, user.username, coinbaseTester(context.db));
  const body = outcome.success
    ? { success: true, message: outcome.message, source: outcome.source }
    : { success: false, error: outcome.message, message: outcome.message, source: outcome.source };
  return json(body, { headers: NO_STORE });
}
