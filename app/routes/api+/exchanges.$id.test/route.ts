// POST /api/exchanges/{id}/test (admin): one read-only call to the exchange with the stored
// keys; answers { success, message, exchange } with connectionStatus connected or error and
// the exchange's message. (A folder route: a file named *.test.ts is ignored as a test.)
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { coinbaseTester, testExchange } from "#app/services/exchange-connections.server.ts";
import { getNotAllowedLoader, jsonError, NO_STORE, requireMethod } from "#app/utils/api.server.ts";
import { requireAdmin } from "#app/services/sessions.server.ts";

export const loader = getNotAllowedLoader(requireAdmin);

export async function action({ request, context, params }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  requireMethod(request, "POST");
  const outcome = await testExchange(
    context.db,
    context.config,
    params.id ?? "",
    user.username,
    coinbaseTester(context.db),
  );
  if (!outcome) return jsonError(404, "Exchange not found");
  return json(outcome, { headers: NO_STORE });
}
