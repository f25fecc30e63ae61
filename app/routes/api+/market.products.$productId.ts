// GET /api/market/products/{productId} (any logged-in user): one product with its best bid,
// ask and mid-market price; 404 JSON for a product the exchange does not list.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { getMarketProduct } from "#app/services/market-data.server.ts";
import { jsonError, NO_STORE } from "#app/utils/api.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const productId = params.productId ?? "";
  try {
    const product = await getMarketProduct(context.db, productId);
    if (!product) return jsonError(404, `Product ${productId} not found`);
    return json(product, { headers: NO_STORE });
  } catch (error) {
    return jsonError(502, `Market data unavailable: ${(error as Error).message}`);
  }
}

export async function action({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return jsonError(405, `Method ${request.method} not allowed`);
}
