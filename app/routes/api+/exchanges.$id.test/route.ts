// POST /api/exchanges/{id}/test (admin): one read-only call to the exchange with the stored
// keys; answers { success, message, exchange } with connectionStatus connected or error and
// the exchange's message. (A folder route: a file named *.test.ts is ignored as a test.)
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { coinbaseTester, testExchange } from "#app/services/exchange-connections.server.ts";
import { jsonError } from "#app/utils/api.server.ts";
import { requireAdmin } from "#app/utils/auth.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdmin(request, context);
  return jsonError(405, "Method GET not allowed");
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  const outcome = await testExchange(context.db, context.config, params.id ?? "", user.username, coinbaseTester(context.db));
  if (!outcome) return jsonError(404, "Exchange not found");
  return json(outcome, { headers: { "Cache-Control": "no-store" } });
}
