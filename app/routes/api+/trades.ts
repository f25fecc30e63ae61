// GET /api/trades?limit=10&status=&symbol=&search=&strategy=&before= and POST /api/trades (a
// manual order). GET answers a JSON array, newest first (created_at, then id), as it always
// did; paging is cursor based and rides on a response header, as GET /api/logs does:
// `X-Next-Cursor: <cursor>` is set when older matching trades exist; pass it back as
// `before=<cursor>` for the next page (trades written meanwhile never shift a page).
// status "executed" is executed or completed; symbol is exact, search a case-insensitive
// substring of the symbol (Trade History's Symbol filter); strategy an id or "default".
// `format=csv` answers the same page as Trade History's Export file (trade-history.csv, its
// columns), so the screen's Export works without JavaScript too.
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { TRADE_HISTORY_FILE, tradeHistoryCsv } from "#app/core/trade-history.ts";
import { ManualOrderSchema, manualOrderFromBody } from "#app/core/schemas/manual-order.ts";
import { placeManualOrder } from "#app/services/orders.server.ts";
import { apiTradesPage } from "#app/services/trade-history.server.ts";
import { NO_STORE, firstIssue, jsonError, readJsonObject } from "#app/utils/api.server.ts";
import { requireUser, requirePermission } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const params = new URL(request.url).searchParams;
  const { trades, nextCursor } = await apiTradesPage(context.db, params);
  const cursor: Record<string, string> = nextCursor !== null ? { "X-Next-Cursor": nextCursor } : {};
  if (params.get("format") === "csv")
    return new Response(tradeHistoryCsv(trades), {
      headers: {
        ...NO_STORE,
        ...cursor,
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="${TRADE_HISTORY_FILE}"`,
        "X-Total-Count": String(trades.length),
      },
    });
  return json(trades, { headers: cursor });
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
