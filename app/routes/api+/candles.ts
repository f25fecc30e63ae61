// GET /api/candles?symbol=…&from=…&to=…&limit=… (decision 032): the 1-minute candles the app
// keeps for a symbol, oldest first; at most `limit` (≤ 1500, the newest of the range when it
// holds more). `to` defaults to now. 400 with the field for a bad query, 401 without a login.
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { CandlesQuerySchema, MAX_CANDLES } from "#app/core/schemas/candles.ts";
import { candleViews } from "#app/services/price-chart.server.ts";
import { NO_STORE, jsonError } from "#app/utils/api.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const parsed = CandlesQuerySchema.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return jsonError(400, issue?.message ?? "Invalid query", { field: issue?.path.join(".") || null });
  }
  const { symbol, from, to = Date.now(), limit = MAX_CANDLES } = parsed.data;
  return json(
    { symbol, from, to, candles: await candleViews(context.db, symbol, from, to, limit) },
    { headers: NO_STORE },
  );
}

export async function action({ request }: ActionFunctionArgs) {
  return jsonError(405, `Method ${request.method} not allowed`);
}
