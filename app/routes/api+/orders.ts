// GET /api/orders: the resting (open) orders, oldest first: pending trades the exchange has
// (an order id). Every signed-in role reads them; cancelling is /api/trades/{id}/cancel and
// /api/orders/cancel-all (trader, admin).
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { listOpenOrders } from "#app/services/orders.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return json(await listOpenOrders(context.db), { headers: NO_STORE });
}
