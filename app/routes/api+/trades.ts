// GET /api/trades?limit=10&status=&symbol= and POST /api/trades (a manual order).
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { ManualOrderSchema, manualOrderFromBody } from "#app/core/schemas/manual-order.ts";
import { placeManualOrder } from "#app/services/orders.server.ts";
import { withPositions } from "#app/services/trade-history.server.ts";
import { firstIssue, jsonError, readJsonObject, queryInt } from "#app/utils/api.server.ts";
import { requireUser, requirePermission } from "#app/utils/auth.server.ts";
import { listTrades } from "#app/services/trade-history.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const url = new URL(request.url);
  const trades = await listTrades(context.db, {
    limit: queryInt(url.searchParams, "limit", 10, 1, 1000),
    status: url.searchParams.get("status") || undefined,
    symbol: url.searchParams.get("symbol") || undefined,
    strategy: url.searchParams.get("strategy") || undefined,
  });
  return json(await withPositions(context.db, trades));
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requirePermission(request, context, "orders.place");
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  const body = await readJsonObject(request);
  const parsed = ManualOrderSchema.safeParse(manualOrderFromBody(body));
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error.issues);
    return json({ success: false, error: message, field }, { status: 400 });
  }
  const result = await placeManualOrder(context.db, parsed.data, user.username);
  if (!result.ok) return json({ success: false, error: result.error, field: result.field }, { status: result.status });
  return json({ success: true, trade: result.trade }, { status: 201 });
}
