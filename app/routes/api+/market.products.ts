// GET /api/market/products (any logged-in user; the screen polls it every 30 s): the active
// exchange's products (docs/spec/api.md#shapes Market product), from the per-process cache.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { getMarketProducts } from "#app/services/market-data.server.ts";
import { jsonError, NO_STORE } from "#app/utils/api.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  try {
    return json(await getMarketProducts(context.db), { headers: NO_STORE });
  } catch (error) {
    return jsonError(502, `Market data unavailable: ${(error as Error).message}`);
  }
}

export async function action({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return jsonError(405, `Method ${request.method} not allowed`);
}
