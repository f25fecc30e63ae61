// GET /api/positions: open positions on perpetual / futures symbols, marked to the latest
// price, with unrealizedPnl and roi (app/services/positions.server.ts).
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { listPositionViews } from "#app/services/positions.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const strategy = new URL(request.url).searchParams.get("strategy") || undefined;
  return json(
    await listPositionViews(context.db, { maxAgeMs: context.config.PRICE_MAX_AGE_SECONDS * 1000, strategy }),
    { headers: NO_STORE },
  );
}
