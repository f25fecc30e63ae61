// The product catalog as the screens and the API see it (docs/decisions/051-every-coinbase-perpetual.md):
// how many products the app trades, how many came from Coinbase's list and when, and the
// admin's "Read products from Coinbase".
import type { Kysely } from "kysely";
import { BUILTIN_PRODUCTS, listProducts } from "#app/core/products.ts";
import type { DB } from "#db/schema.ts";
import { type CatalogRefresh, readStoredCatalog, refreshCatalog } from "#exchange/coinbase/catalog.ts";

export interface ProductCatalogView {
  /** Every product the app trades now. */
  total: number;
  builtIn: number;
  /** Read from Coinbase's list (the built-in ones included when Coinbase lists them). */
  listed: number;
  /** When Coinbase's list was last read (ISO), or null: never (offline install). */
  fetchedAt: string | null;
}

export async function productCatalogView(db: Kysely<DB>): Promise<ProductCatalogView> {
  const stored = await readStoredCatalog(db, 5_000);
  return {
    total: listProducts().length,
    builtIn: BUILTIN_PRODUCTS.length,
    listed: stored?.products.length ?? 0,
    fetchedAt: stored?.fetchedAt ? new Date(stored.fetchedAt).toISOString() : null,
  };
}

/** Reads Coinbase's list now; throws with why it could not (the stored catalog is unchanged). */
export function refreshProducts(db: Kysely<DB>, by: string): Promise<CatalogRefresh> {
  return refreshCatalog(db, { by });
}

/** The sentence the screens and the API answer after a read. */
export function refreshMessage(result: CatalogRefresh): string {
  return (
    `Read ${result.products} perpetuals from Coinbase` +
    (result.added.length ? `; new: ${result.added.join(", ")}` : "; nothing new") +
    (result.removed.length ? `; no longer listed (kept for open positions): ${result.removed.join(", ")}` : "")
  );
}
