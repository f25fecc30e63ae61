// POST /api/market/products/refresh (admin): reads Coinbase's list of perpetuals now
// (docs/decisions/051-every-coinbase-perpetual.md); 502 with why when Coinbase cannot be read.
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { productCatalogView, refreshMessage, refreshProducts } from "#app/services/products.server.ts";
import { requireAdmin } from "#app/services/sessions.server.ts";
import { getNotAllowedLoader, jsonError, NO_STORE } from "#app/utils/api.server.ts";

export const loader = getNotAllowedLoader(requireAdmin);

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  try {
    const result = await refreshProducts(context.db, user.username);
    return json(
      { success: true, message: refreshMessage(result), ...result, catalog: await productCatalogView(context.db) },
      { headers: NO_STORE },
    );
  } catch (error) {
    return jsonError(502, `Products could not be read from Coinbase: ${(error as Error).message}`);
  }
}
