// /market-data: the Market Data screen (docs/spec/screens.md, figures.md#defaults-and-limits). ?tab=overview|pairs|details,
// &product=, &q=, &filter=all|gainers|losers choose what the server renders (links and a GET
// form: it works without JavaScript); the data comes from the same cached services as
// /api/market/*.
import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, json } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { can } from "#app/core/auth/permissions.ts";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import {
  type MarketTab,
  type MarketView,
  MarketDataScreen,
  type PairFilter,
} from "#app/components/market-data/market-data-screen.tsx";
import {
  type MarketProduct,
  type MarketProductDetails,
  type MarketSummary,
  getMarketProduct,
  getMarketProducts,
  getMarketSummary,
} from "#app/services/market-data.server.ts";
import { productCatalogView, refreshMessage, refreshProducts } from "#app/services/products.server.ts";
import { requireAdmin, requireUser } from "#app/services/sessions.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";

const TABS: MarketTab[] = ["overview", "pairs", "details"];
const FILTERS: PairFilter[] = ["all", "gainers", "losers"];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const url = new URL(request.url);
  const tab = url.searchParams.get("tab") as MarketTab | null;
  const filter = url.searchParams.get("filter") as PairFilter | null;
  const view: MarketView = {
    tab: tab && TABS.includes(tab) ? tab : "overview",
    product: url.searchParams.get("product") || null,
    q: (url.searchParams.get("q") ?? "").slice(0, 64),
    filter: filter && FILTERS.includes(filter) ? filter : "all",
  };
  let summary: MarketSummary | null = null;
  let products: MarketProduct[] | null = null;
  let details: MarketProductDetails | null = null;
  let loadError: string | null = null;
  try {
    [summary, products] = await Promise.all([getMarketSummary(context.db), getMarketProducts(context.db)]);
    if (view.product) details = await getMarketProduct(context.db, view.product);
  } catch (error) {
    loadError = `Market data unavailable: ${(error as Error).message}`;
  }
  const catalog = await productCatalogView(context.db);
  const canRefreshProducts = can(user.role, "settings.change");
  return json({ view, summary, products, details, loadError, catalog, canRefreshProducts }, { headers: NO_STORE });
}

/** intent=refresh-products (admin): reads Coinbase's list of perpetuals now (decision 051). */
export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  const form = await request.formData().catch(() => null);
  if (form?.get("intent") !== "refresh-products") return json({ error: "Unknown action" }, { status: 400 });
  try {
    return json({ message: refreshMessage(await refreshProducts(context.db, user.username)) }, { headers: NO_STORE });
  } catch (error) {
    return json(
      { error: `Products could not be read from Coinbase: ${(error as Error).message}` },
      { status: 502, headers: NO_STORE },
    );
  }
}

export default function Page() {
  const data = useLoaderData<typeof loader>();
  const outcome = useActionData<typeof action>();
  return (
    <MarketDataScreen
      initialView={data.view}
      summary={data.summary}
      products={data.products}
      details={data.details}
      loadError={data.loadError}
      catalog={data.catalog}
      canRefreshProducts={data.canRefreshProducts}
      refreshOutcome={outcome ?? null}
    />
  );
}

export const meta: MetaFunction = () => [{ title: "Market Data · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
