// Market Data (docs/spec/screens.md Market Data, api.md#shapes Market product, api.md, figures.md#defaults-and-limits): the Overview (total
// products, the exchange's total 24 h volume when it reports one (decision 049), Top Gainers and Top Losers of 5), Trading Pairs (search and
// All / Top Gainers / Top Losers; a card opens its details) and Product Details (price info,
// trading info, market data, or 'Select a Product'). Tabs, search and cards are links and a
// GET form, so the screen works without JavaScript; with it, they switch in place. The
// summary polls every 10 s, the products every 30 s, a product's details every 10 s.
import ShowChartIcon from "@mui/icons-material/ShowChart";
import TrendingDownIcon from "@mui/icons-material/TrendingDown";
import TrendingUpIcon from "@mui/icons-material/TrendingUp";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Card from "@mui/material/Card";
import CardActionArea from "@mui/material/CardActionArea";
import CardContent from "@mui/material/CardContent";
import Chip from "@mui/material/Chip";
import List from "@mui/material/List";
import ListItem from "@mui/material/ListItem";
import ListItemText from "@mui/material/ListItemText";
import Paper from "@mui/material/Paper";
import Tab from "@mui/material/Tab";
import Tabs from "@mui/material/Tabs";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { Form } from "@remix-run/react";
import { type MouseEvent, type ReactNode, useState } from "react";
import { D } from "#app/core/decimal.ts";
import { sourceLabel } from "#app/core/price-source.ts";
import type {
  MarketProduct,
  MarketProductDetails,
  MarketSummary,
  MarketVolume,
} from "#app/services/market-data.server.ts";
import type { ProductCatalogView } from "#app/services/products.server.ts";
import { errorText } from "#app/utils/api-client.ts";
import { formatDateTime, formatMarketPrice, formatPnl, formatVolume } from "#app/core/format.ts";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { Screen } from "../screen.tsx";
import { StatCard } from "../ui/stat-card.tsx";

export const SUMMARY_POLL_MS = 10_000;
export const PRODUCTS_POLL_MS = 30_000;
export const DETAILS_POLL_MS = 10_000;

export type MarketTab = "overview" | "pairs" | "details";
export type PairFilter = "all" | "gainers" | "losers";

export interface MarketView {
  tab: MarketTab;
  product: string | null;
  q: string;
  filter: PairFilter;
}

export function marketHref(view: MarketView): string {
  const params = new URLSearchParams();
  if (view.tab !== "overview") params.set("tab", view.tab);
  if (view.product) params.set("product", view.product);
  if (view.q) params.set("q", view.q);
  if (view.filter !== "all") params.set("filter", view.filter);
  const qs = params.toString();
  return `/market-data${qs ? `?${qs}` : ""}`;
}

/** "+2.35%" / "-1.20%", or "—" when the exchange gives no 24 h change. */
export function formatChange(change: string | null | undefined): string {
  const signed = formatPnl(change); // the same sign and 2 decimals as P&L
  return signed === "—" ? signed : `${signed}%`;
}

const changeColor = (change: string | null) =>
  change == null
    ? "text.secondary"
    : D(change).gt(0)
      ? "success.main"
      : D(change).lt(0)
        ? "error.main"
        : "text.secondary";

/** Trading Pairs: the search (product, base or quote, any case) and the filter. */
export function filterPairs(products: MarketProduct[], q: string, filter: PairFilter): MarketProduct[] {
  const needle = q.trim().toLowerCase();
  let list = products.filter(
    (p) => !needle || [p.productId, p.baseCurrencyId, p.quoteCurrencyId].some((s) => s.toLowerCase().includes(needle)),
  );
  if (filter === "gainers")
    list = list
      .filter((p) => p.priceChange24h !== null && D(p.priceChange24h).gt(0))
      .sort((a, b) => D(b.priceChange24h!).cmp(D(a.priceChange24h!)));
  if (filter === "losers")
    list = list
      .filter((p) => p.priceChange24h !== null && D(p.priceChange24h).lt(0))
      .sort((a, b) => D(a.priceChange24h!).cmp(D(b.priceChange24h!)));
  return list;
}

function Movers({
  title,
  icon,
  products,
  hasChangeData,
  testId,
}: {
  title: string;
  icon: ReactNode;
  products: MarketProduct[];
  hasChangeData: boolean;
  testId: string;
}) {
  return (
    <Paper variant="outlined" sx={{ p: 2 }} data-testid={testId}>
      <Box sx={{ display: "flex", alignItems: "center", gap: 1, mb: 1 }}>
        {icon}
        <Typography variant="h3" component="h2">
          {title}
        </Typography>
      </Box>
      {products.length === 0 ? (
        <Typography color="text.secondary">
          {hasChangeData ? "None in the last 24 hours" : "24h change not available from this exchange"}
        </Typography>
      ) : (
        <List dense disablePadding>
          {products.map((p) => (
            <ListItem
              key={p.productId}
              disableGutters
              secondaryAction={
                <Typography sx={{ color: changeColor(p.priceChange24h), fontWeight: 600 }}>
                  {formatChange(p.priceChange24h)}
                </Typography>
              }
            >
              <ListItemText primary={p.productId} secondary={formatMarketPrice(p.price)} />
            </ListItem>
          ))}
        </List>
      )}
    </Paper>
  );
}

/** Where the total comes from: "4 products × last price · coinbase", "… · simulator (paper fills)". */
export function volumeSource(volume: MarketVolume, source: string): string {
  return `${volume.products} product${volume.products === 1 ? "" : "s"}, volume × last price · ${source}${volume.basis ? ` (${volume.basis})` : ""}`;
}

function Overview({ summary }: { summary: MarketSummary | undefined }) {
  if (!summary) return <Typography color="text.secondary">Loading market summary...</Typography>;
  return (
    <Box>
      <Box
        sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", sm: "1fr 1fr" }, mb: 1 }}
        data-testid="market-cards"
      >
        <StatCard
          title="Total Products"
          value={String(summary.totalProducts)}
          icon={<ShowChartIcon />}
          description={`${summary.onlineProducts} online · ${summary.source}`}
          status="neutral"
        />
        {summary.volume24h ? (
          <StatCard
            title="24h Volume"
            value={`${formatVolume(summary.volume24h.notional)} ${summary.volume24h.quote}`}
            icon={<ShowChartIcon />}
            description={volumeSource(summary.volume24h, summary.source)}
            status="neutral"
          />
        ) : null}
      </Box>
      {summary.stale ? (
        <Alert severity="warning" sx={{ mb: 2 }}>
          The exchange did not answer: showing the data of {formatDateTime(summary.lastUpdated)}
        </Alert>
      ) : null}
      <Box sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", md: "1fr 1fr" }, mt: 2 }}>
        <Movers
          title="Top Gainers"
          icon={<TrendingUpIcon color="success" />}
          products={summary.topGainers}
          hasChangeData={summary.hasChangeData}
          testId="top-gainers"
        />
        <Movers
          title="Top Losers"
          icon={<TrendingDownIcon color="error" />}
          products={summary.topLosers}
          hasChangeData={summary.hasChangeData}
          testId="top-losers"
        />
      </Box>
    </Box>
  );
}

/** "24h change", or the real window while the price history is younger than a day. */
function changeLabel(p: Pick<MarketProduct, "priceChangeSince">): string {
  return p.priceChangeSince ? `Change since ${formatDateTime(p.priceChangeSince)}` : "24h change";
}

/** "24h volume", with what it counts when it is not the market's (the simulator: its own fills). */
function volumeLabel(p: Pick<MarketProduct, "volumeBasis">): string {
  return p.volumeBasis ? `24h volume (${p.volumeBasis})` : "24h volume";
}

function PairCard({
  product,
  href,
  onOpen,
}: {
  product: MarketProduct;
  href: string;
  onOpen: (e: MouseEvent) => void;
}) {
  return (
    <Card variant="outlined" data-testid="pair-card" data-product={product.productId}>
      <CardActionArea href={href} onClick={onOpen}>
        <CardContent>
          <Box sx={{ display: "flex", justifyContent: "space-between", alignItems: "center", mb: 1 }}>
            <Typography variant="h3" component="h2">
              {product.productId}
            </Typography>
            <Chip size="small" color={product.status === "online" ? "success" : "default"} label={product.status} />
          </Box>
          <Typography variant="h2" component="p" sx={{ fontVariantNumeric: "tabular-nums" }}>
            {formatMarketPrice(product.price)}
          </Typography>
          <Box sx={{ display: "flex", justifyContent: "space-between", mt: 1 }}>
            <Typography sx={{ color: changeColor(product.priceChange24h) }} title={changeLabel(product)}>
              {product.priceChangeSince ? "Since start" : "24h"} {formatChange(product.priceChange24h)}
            </Typography>
            <Typography color="text.secondary" title={volumeLabel(product)}>
              Vol {formatVolume(product.volume24h)}
            </Typography>
          </Box>
        </CardContent>
      </CardActionArea>
    </Card>
  );
}

function DetailsSection({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper variant="outlined" sx={{ p: 2 }}>
      <Typography variant="h3" component="h2" gutterBottom>
        {title}
      </Typography>
      {children}
    </Paper>
  );
}

function Row({ label, value }: { label: string; value: ReactNode }) {
  return (
    <Box sx={{ display: "flex", justifyContent: "space-between", py: 0.5, borderBottom: 1, borderColor: "divider" }}>
      <Typography color="text.secondary">{label}</Typography>
      <Typography sx={{ fontWeight: 600, fontVariantNumeric: "tabular-nums" }}>{value}</Typography>
    </Box>
  );
}

function Details({ productId, initial }: { productId: string | null; initial: MarketProductDetails | null }) {
  const query = useApiQuery<MarketProductDetails>(`/api/market/products/${encodeURIComponent(productId ?? "")}`, {
    initialData: initial && initial.productId === productId ? initial : undefined,
    refetchIntervalMs: DETAILS_POLL_MS,
    enabled: !!productId,
  });
  if (!productId) {
    return (
      <Paper variant="outlined" sx={{ p: 4, textAlign: "center" }} data-testid="select-product">
        <Typography variant="h3" component="p" gutterBottom>
          Select a Product
        </Typography>
        <Typography color="text.secondary">Choose a trading pair to see its price, trading and market data.</Typography>
      </Paper>
    );
  }
  if (query.error && !query.data)
    return <Alert severity="error">{errorText(query.error, `Product ${productId} not available`)}</Alert>;
  const p = query.data;
  if (!p) return <Typography color="text.secondary">Loading {productId}...</Typography>;
  return (
    <Box
      sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", md: "repeat(3, 1fr)" } }}
      data-testid="product-details"
      data-product={p.productId}
    >
      <DetailsSection title="Price Information">
        <Row label="Price" value={formatMarketPrice(p.price)} />
        <Row label="Mid-market price" value={formatMarketPrice(p.midMarketPrice)} />
        <Row label="Best bid" value={formatMarketPrice(p.bid)} />
        <Row label="Best ask" value={formatMarketPrice(p.ask)} />
        <Row
          label={changeLabel(p)}
          value={
            <Box component="span" sx={{ color: changeColor(p.priceChange24h) }}>
              {formatChange(p.priceChange24h)}
            </Box>
          }
        />
      </DetailsSection>
      <DetailsSection title="Trading Information">
        <Row label="Status" value={p.status} />
        <Row label="Base increment" value={p.baseIncrement} />
        <Row label="Quote increment" value={p.quoteIncrement} />
        <Row label="Minimum size" value={p.baseMinSize} />
        <Row label="Minimum market funds" value={p.minMarketFunds} />
        <Row label="Trading session" value={p.fcmTradingSessionEnabled ? "Open" : "Closed"} />
      </DetailsSection>
      <DetailsSection title="Market Data">
        <Row label="Base currency" value={p.baseCurrencyId} />
        <Row label="Quote currency" value={p.quoteCurrencyId} />
        <Row label={volumeLabel(p)} value={formatVolume(p.volume24h)} />
        <Row label="Price source" value={p.priceSource ? sourceLabel(p.priceSource) : "—"} />
        <Row label="Last updated" value={formatDateTime(p.lastUpdated)} />
      </DetailsSection>
    </Box>
  );
}

/**
 * Where the product list comes from (decision 051): how many perpetuals, and when Coinbase's
 * list was read; an admin can read it now (a form: works without JavaScript).
 */
function CatalogLine({
  catalog,
  canRefresh,
  outcome,
}: {
  catalog: ProductCatalogView;
  canRefresh: boolean;
  outcome: { message?: string; error?: string } | null;
}) {
  return (
    <Box sx={{ mb: 2 }} data-testid="product-catalog">
      <Box sx={{ display: "flex", gap: 2, alignItems: "center", flexWrap: "wrap" }}>
        <Typography variant="body2" color="text.secondary">
          {catalog.fetchedAt
            ? `${catalog.total} perpetuals: Coinbase's list, read ${formatDateTime(catalog.fetchedAt)}`
            : `${catalog.total} built-in perpetuals: Coinbase's product list has not been read yet`}
        </Typography>
        {canRefresh ? (
          <Form method="post" action="/market-data">
            <input type="hidden" name="intent" value="refresh-products" />
            <Button type="submit" size="small" variant="outlined" data-testid="refresh-products">
              Read products from Coinbase
            </Button>
          </Form>
        ) : null}
      </Box>
      {outcome?.message || outcome?.error ? (
        <Alert severity={outcome.error ? "error" : "success"} sx={{ mt: 1 }} data-testid="refresh-products-outcome">
          {outcome.error ?? outcome.message}
        </Alert>
      ) : null}
    </Box>
  );
}

export function MarketDataScreen({
  initialView,
  summary: initialSummary,
  products: initialProducts,
  details,
  loadError,
  catalog,
  canRefreshProducts = false,
  refreshOutcome = null,
}: {
  initialView: MarketView;
  summary: MarketSummary | null;
  products: MarketProduct[] | null;
  details: MarketProductDetails | null;
  loadError: string | null;
  catalog?: ProductCatalogView;
  canRefreshProducts?: boolean;
  refreshOutcome?: { message?: string; error?: string } | null;
}) {
  const hydrated = useHydrated();
  const [view, setView] = useState(initialView);
  const summary = useApiQuery<MarketSummary>("/api/market/summary", {
    initialData: initialSummary ?? undefined,
    refetchIntervalMs: SUMMARY_POLL_MS,
  });
  const products = useApiQuery<MarketProduct[]>("/api/market/products", {
    initialData: initialProducts ?? undefined,
    refetchIntervalMs: PRODUCTS_POLL_MS,
  });

  const go = (next: MarketView, event?: MouseEvent) => {
    if (!hydrated) return; // the link loads the page
    event?.preventDefault();
    setView(next);
    window.history.replaceState(null, "", marketHref(next));
  };

  const error =
    (summary.error && !summary.data) || (products.error && !products.data)
      ? errorText(summary.error ?? products.error, loadError ?? "Market data unavailable")
      : !summary.data && loadError
        ? loadError
        : null;
  const pairs = filterPairs(products.data ?? [], view.q, view.filter);
  const noChange = summary.data && !summary.data.hasChangeData;

  return (
    <Screen title="Market Data">
      <Tabs value={view.tab} sx={{ mb: 2, borderBottom: 1, borderColor: "divider" }} aria-label="Market data views">
        {(
          [
            ["overview", "Overview"],
            ["pairs", "Trading Pairs"],
            ["details", "Product Details"],
          ] as const
        ).map(([tab, label]) => {
          const next = { ...view, tab };
          return (
            <Tab
              key={tab}
              value={tab}
              label={label}
              component="a"
              href={marketHref(next)}
              onClick={(e: MouseEvent) => go(next, e)}
            />
          );
        })}
      </Tabs>
      {error ? (
        <Alert severity="error" sx={{ mb: 2 }} data-testid="market-error">
          {error}
        </Alert>
      ) : null}
      {noChange && view.tab !== "details" ? (
        <Alert severity="info" sx={{ mb: 2 }} data-testid="market-no-change">
          24h change and volume are not available from{" "}
          {summary.data!.source === "simulator" ? "the simulator (it keeps no price history)" : "this exchange"}: they
          show as —.
        </Alert>
      ) : null}
      {view.tab === "overview" && catalog ? (
        <CatalogLine catalog={catalog} canRefresh={canRefreshProducts} outcome={refreshOutcome} />
      ) : null}
      {view.tab === "overview" ? <Overview summary={summary.data} /> : null}
      {view.tab === "pairs" ? (
        <Box>
          <Box
            component="form"
            method="get"
            action="/market-data"
            onSubmit={(e: React.FormEvent) => hydrated && e.preventDefault()}
            sx={{ display: "flex", gap: 2, mb: 2, flexWrap: "wrap", alignItems: "center" }}
          >
            <input type="hidden" name="tab" value="pairs" />
            <TextField
              name="q"
              label="Search pairs"
              size="small"
              {...(hydrated
                ? { value: view.q, onChange: (e) => go({ ...view, q: e.target.value }) }
                : { defaultValue: view.q })}
              slotProps={{ htmlInput: { "data-testid": "pair-search" } }}
            />
            <TextField
              select
              name="filter"
              label="Filter"
              size="small"
              sx={{ minWidth: 160 }}
              {...(hydrated
                ? { value: view.filter, onChange: (e) => go({ ...view, filter: e.target.value as PairFilter }) }
                : { defaultValue: view.filter })}
              slotProps={{
                select: { native: true },
                inputLabel: { shrink: true },
                htmlInput: { "data-testid": "pair-filter" },
              }}
            >
              <option value="all">All</option>
              <option value="gainers">Top Gainers</option>
              <option value="losers">Top Losers</option>
            </TextField>
            {hydrated ? null : (
              <Button type="submit" variant="outlined">
                Search
              </Button>
            )}
          </Box>
          {pairs.length === 0 ? (
            <Paper variant="outlined" sx={{ p: 4, textAlign: "center" }} data-testid="pairs-empty">
              <Typography color="text.secondary">
                {products.data ? "No trading pairs match" : "Loading trading pairs..."}
              </Typography>
            </Paper>
          ) : (
            <Box
              sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", sm: "1fr 1fr", lg: "repeat(4, 1fr)" } }}
              data-testid="pairs-grid"
            >
              {pairs.map((p) => {
                const next: MarketView = { ...view, tab: "details", product: p.productId };
                return <PairCard key={p.productId} product={p} href={marketHref(next)} onOpen={(e) => go(next, e)} />;
              })}
            </Box>
          )}
        </Box>
      ) : null}
      {view.tab === "details" ? <Details productId={view.product} initial={details} /> : null}
    </Screen>
  );
}
