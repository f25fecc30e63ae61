// The Trade History screen (docs/spec/screens.md Trade History, api.md, api.md#errors, figures.md#defaults-and-limits), shared by /history,
// /trade-history, /trades and /signals: summary cards (Total Trades, Completed, Failed,
// P&L with the closed-position count), symbol and status filters with Clear Filters, the
// Export button (trade-history.csv of the rows shown) and the expandable table.
// The filters are the URL's (?symbol=&status=&strategy=): the loader reads one page of 50
// rows and the cards' counts for them over every page (issue 22: the header follows the
// filter), so without JavaScript the filters are a GET form and "Older" a link (?before=).
// With JavaScript the filters typed narrow the rows at once and apply on the server after a
// pause; the newest page polls GET /api/trades?limit=50 (every 30 s; live trade updates
// refresh it sooner), the counts GET /api/trades/summary, the P&L card loads
// GET /api/closed-trades-pnl in the browser (every 30 s), each with the same filter, and
// "Older" loads the next page in place (X-Next-Cursor), as Activity Logs does.
import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import { Link as RemixLink, useLocation, useNavigate } from "@remix-run/react";
import { useEffect, useState } from "react";
import { D } from "#app/core/decimal.ts";
import type { Signal } from "#app/core/types/signals.ts";
import { errorText } from "#app/utils/api-client.ts";
import { downloadText, formatPnl } from "#app/core/format.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { theme } from "#app/mui/theme.ts";
import { useToast } from "../toaster.tsx";
import { TradeHistoryTable } from "./trade-history-table.tsx";
import {
  NO_FILTERS,
  PNL_POLL_MS,
  SIGNALS_POLL_MS,
  STATUS_FILTERS,
  type StatusFilter,
  TRADES_POLL_MS,
  TRADE_HISTORY_FILE,
  TRADE_HISTORY_LIMIT,
  type Trade,
  type TradeCounts,
  type TradeFilters,
  filterTrades,
  hasFilters,
  signalsUrl,
  tradeApiQuery,
  tradeHistoryCsv,
  tradeScreenQuery,
  tradeSummary,
} from "#app/core/trade-history.ts";
import { LeanIcon, PAPER, T, cls } from "../ui/lean.tsx";
import { S } from "./trade-history-screen.css.ts";
import { LeanButton, leanButtonClass } from "../ui/lean-button.tsx";
import { LeanTextField } from "../ui/lean-field.tsx";
import { StatCard } from "../ui/stat-card.tsx";

// The screen's frame (../screen.tsx), its stat cards (../ui/stat-card.tsx), the outlined
// Paper, the filter form's box and the captions as plain elements with build-time classes
// (./trade-history-screen.css.ts) instead of an MUI styled component, and an emotion
// serialization, each on every server render (docs/benchmarks.md, "Pages (T5)"). The form
// controls, buttons and the error Alert (with its Retry) stay MUI.

const ICONS = {
  receipt: ["M19.5 3.5 18 2l-1.5 1.5L15 2l-1.5 1.5L12 2l-1.5 1.5L9 2 7.5 3.5 6 2v14H3v3c0 1.66 1.34 3 3 3h12c1.66 0 3-1.34 3-3V2zM19 19c0 .55-.45 1-1 1s-1-.45-1-1v-3H8V5h11z", "M9 7h6v2H9zm7 0h2v2h-2zm-7 3h6v2H9zm7 0h2v2h-2z"],
  check: ["M12 2C6.48 2 2 6.48 2 12s4.48 10 10 10 10-4.48 10-10S17.52 2 12 2m-2 15-5-5 1.41-1.41L10 14.17l7.59-7.59L19 8z"],
  cancel: ["M12 2C6.47 2 2 6.47 2 12s4.47 10 10 10 10-4.47 10-10S17.53 2 12 2m5 13.59L15.59 17 12 13.41 8.41 17 7 15.59 10.59 12 7 8.41 8.41 7 12 10.59 15.59 7 17 8.41 13.41 12z"],
  wallet: [
    "M21 18v1c0 1.1-.9 2-2 2H5c-1.11 0-2-.9-2-2V5c0-1.1.89-2 2-2h14c1.1 0 2 .9 2 2v1h-9c-1.11 0-2 .9-2 2v8c0 1.1.89 2 2 2zm-9-2h10V8H12zm4-2.5c-.83 0-1.5-.67-1.5-1.5s.67-1.5 1.5-1.5 1.5.67 1.5 1.5-.67 1.5-1.5 1.5",
  ],
} as const;
const DOWNLOAD = "M5 20h14v-2H5zM19 9h-4V3H9v6H5l7 7z";

export interface ClosedTradesPnl {
  totalPnL: string;
  realizedMatches: number;
  /** Trades that closed something: the rows with a realized P&L (the total is their sum). */
  closingTrades?: number;
  /** Funding paid (−) or received (+), part of the total (docs/pnl.md); absent when there was none. */
  funding?: string;
}

export interface TradeHistoryData {
  /** One page, newest first (the newest unless `before`). */
  trades: Trade[];
  /** The cursor of the next, older page (`before=`), null when this page holds the oldest. */
  nextCursor?: string | null;
  /** The cursor this page starts after (a page further back), null for the newest page. */
  before?: string | null;
  filters: TradeFilters;
  /** The strategy filter (decision 027): "" all, "default", or a strategy id. */
  strategy?: string;
  strategies?: { id: string; name: string }[];
  /** The header's counts for the filters, over every page (issue 22). */
  totals?: TradeCounts;
}

type Query<T> = ReturnType<typeof useApiQuery<T>>;

/**
 * Polls one URL and hands its state up. Keyed by the applied filters, so a new filter starts
 * from the loader's answer for it (useApiQuery keeps its data across URL changes).
 */
function Poll<T>({ url, initialData, intervalMs, enabled = true, onState }: { url: string; initialData: T | undefined; intervalMs: number; enabled?: boolean; onState: (state: Query<T>) => void }) {
  const state = useApiQuery<T>(url, { initialData, refetchIntervalMs: intervalMs, enabled });
  useEffect(() => onState(state), [state.data, state.error, state.refetch]); // eslint-disable-line react-hooks/exhaustive-deps
  return null;
}

const sameFilters = (a: TradeFilters, b: TradeFilters) => a.symbol.trim() === b.symbol.trim() && a.status === b.status;
/** How long typing pauses before the filters apply on the server (the rows narrow at once). */
const APPLY_FILTERS_MS = 400;

export function TradeHistoryScreen({ data }: { data: TradeHistoryData }) {
  // A new strategy filter is a new list (its own API query).
  return <TradeHistoryBody key={data.strategy ?? ""} data={data} />;
}

function TradeHistoryBody({ data }: { data: TradeHistoryData }) {
  const toast = useToast();
  const hydrated = useHydrated();
  const strategy = data.strategy ?? "";
  // What the loader applied: the rows, the cursor and the totals are this filter's.
  const applied = `${tradeApiQuery(data.filters, strategy)}|${data.before ?? ""}`;
  const apiQuery = (extra: Record<string, string | number> = {}) => tradeApiQuery(data.filters, strategy, extra);
  const [head, setHead] = useState<{ key: string; query: Query<Trade[]> | null }>({ key: applied, query: null });
  const [counts, setCounts] = useState<{ key: string; query: Query<TradeHistoryData["totals"]> | null }>({ key: applied, query: null });
  const [pnlState, setPnlState] = useState<{ key: string; query: Query<ClosedTradesPnl> | null }>({ key: applied, query: null });
  const [older, setOlder] = useState<{ key: string; trades: Trade[]; cursor: string | null }>({ key: applied, trades: [], cursor: data.nextCursor ?? null });
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [olderError, setOlderError] = useState<string | null>(null);
  // docs/spec/api.md: the screen also fetches the latest 50 signals (it shows none of them).
  useApiQuery<Signal[]>(signalsUrl, { refetchIntervalMs: SIGNALS_POLL_MS });
  const [filters, setFilters] = useState<TradeFilters>(data.filters);
  const location = useLocation();
  const navigate = useNavigate();

  // Typed filters apply on the server (rows, pages and totals together) once typing pauses.
  useEffect(() => {
    if (!hydrated || sameFilters(filters, data.filters)) return;
    const timer = setTimeout(() => {
      const query = tradeScreenQuery(filters, strategy);
      navigate(`${location.pathname}${query ? `?${query}` : ""}`, { replace: true, preventScrollReset: true });
    }, APPLY_FILTERS_MS);
    return () => clearTimeout(timer);
  }, [filters, data.filters, hydrated, strategy, location.pathname, navigate]);

  const current = <T,>(state: { key: string; query: Query<T> | null }) => (state.key === applied ? state.query : null);
  const trades = current(head);
  const pages = older.key === applied ? older : { key: applied, trades: [], cursor: data.nextCursor ?? null };
  const byId = new Map<string, Trade>();
  for (const t of [...(data.before ? [] : (trades?.data ?? [])), ...data.trades, ...pages.trades]) if (!byId.has(t.id)) byId.set(t.id, t);
  const all = [...byId.values()].sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1));
  const shown = filterTrades(all, filters);
  const totals = current(counts)?.data ?? data.totals;
  const summary = totals ?? tradeSummary(all);
  const pnl = current(pnlState) ?? { data: undefined, error: null };
  const pnlData = pnl.data;
  const totalPnL = pnlData?.totalPnL ?? null;
  const closing = pnlData?.closingTrades ?? 0;
  const pnlStatus = totalPnL === null ? "neutral" : D(totalPnL).gt(0) ? "success" : D(totalPnL).lt(0) ? "error" : "neutral";
  const pnlDescription = pnlData
    ? `All time, net of fees: ${closing} closing ${closing === 1 ? "trade" : "trades"}${pnlData.funding && !D(pnlData.funding).eq(0) ? `, funding ${formatPnl(pnlData.funding)}` : ""}`
    : pnl.error
      ? `Unavailable: ${errorText(pnl.error, "Unknown error")}`
      : hydrated
        ? "Loading realized P&L..."
        : "Realized P&L: needs JavaScript";
  const narrowed = hasFilters(data.filters) || strategy !== "";

  const olderHref = (cursor: string) => `${location.pathname}?${tradeScreenQuery(data.filters, strategy, { before: cursor })}`;
  const loadOlder = async (event: React.MouseEvent) => {
    const cursor = pages.cursor;
    if (cursor === null || !hydrated) return;
    event.preventDefault();
    setLoadingOlder(true);
    setOlderError(null);
    try {
      const response = await fetch(`/api/trades?${apiQuery({ limit: TRADE_HISTORY_LIMIT, before: cursor })}`, { headers: { Accept: "application/json" } });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const page = (await response.json()) as Trade[];
      setOlder({ key: applied, trades: [...pages.trades, ...page], cursor: response.headers.get("X-Next-Cursor") });
    } catch (error) {
      setOlderError(`Failed to load trades: ${error instanceof Error ? error.message : "Unknown error"}`);
    } finally {
      setLoadingOlder(false);
    }
  };

  const exportCsv = () => {
    if (shown.length === 0) {
      toast({ title: "No trades to export", description: "Apply different filters or wait for trades to be placed" });
      return;
    }
    downloadText(TRADE_HISTORY_FILE, tradeHistoryCsv(shown));
    toast({ title: "Export successful", description: `Exported ${shown.length} ${shown.length === 1 ? "trade" : "trades"} as CSV file` });
  };

  const clearFilters = () => {
    setFilters(NO_FILTERS);
    // Filters that came in the URL (a no-JavaScript post of the filter form) go too.
    if (location.search) navigate(location.pathname, { replace: true, preventScrollReset: true });
  };

  return (
    <div>
      <Poll<Trade[]>
        key={`rows|${applied}`}
        url={`/api/trades?${apiQuery({ limit: TRADE_HISTORY_LIMIT })}`}
        initialData={data.before ? undefined : data.trades}
        intervalMs={TRADES_POLL_MS}
        enabled={!data.before}
        onState={(query) => setHead({ key: applied, query })}
      />
      <Poll<TradeHistoryData["totals"]> key={`totals|${applied}`} url={`/api/trades/summary?${apiQuery()}`} initialData={data.totals} intervalMs={PNL_POLL_MS} onState={(query) => setCounts({ key: applied, query })} />
      <Poll<ClosedTradesPnl>
        key={`pnl|${applied}`}
        url={`/api/closed-trades-pnl${apiQuery() ? `?${apiQuery()}` : ""}`}
        initialData={undefined}
        intervalMs={PNL_POLL_MS}
        onState={(query) => setPnlState({ key: applied, query })}
      />
      <div className={S.head}>
        <h1 className={T.h1}>Trade History</h1>
        <div className={S.grow} />
        {hydrated ? (
          <Button variant="outlined" startIcon={<LeanIcon d={DOWNLOAD} />} onClick={exportCsv} data-testid="trade-history-export">
            Export
          </Button>
        ) : (
          // Before hydration MUI's Button is disabled (nothing to export without JavaScript): the same, plain.
          <LeanButton variant="outlined" startIcon={<LeanIcon d={DOWNLOAD} />} tabIndex={-1} disabled data-testid="trade-history-export">
            Export
          </LeanButton>
        )}
      </div>
      <div className={S.cards}>
        <StatCard
          testId="card-total-trades"
          title="Total Trades"
          value={String(summary.total)}
          icon={<LeanIcon d={ICONS.receipt} medium />}
          description={narrowed ? "Matching the filters" : "All orders"}
        />
        <StatCard testId="card-completed" title="Completed" value={String(summary.completed)} icon={<LeanIcon d={ICONS.check} medium />} status={summary.completed > 0 ? "success" : "neutral"} description="Executed or completed" />
        <StatCard testId="card-failed" title="Failed" value={String(summary.failed)} icon={<LeanIcon d={ICONS.cancel} medium />} status={summary.failed > 0 ? "error" : "neutral"} description="Rejected or not filled" />
        <StatCard
          testId="card-trade-pnl"
          title="P&L"
          value={totalPnL === null ? "—" : formatPnl(totalPnL)}
          icon={<LeanIcon d={ICONS.wallet} medium />}
          status={pnlStatus}
          description={pnlDescription}
        />
      </div>

      <div className={cls(PAPER.outlined, S.pad)} data-testid="trade-history">
        <form
          method="get"
          action={location.pathname}
          onSubmit={(event) => {
            // With JavaScript the filters apply as they are typed.
            if (hydrated) event.preventDefault();
          }}
          className={S.filters}
          data-testid="trade-filters"
        >
          <LeanTextField
            label="Symbol"
            name="symbol"
            placeholder="e.g. BTC"
            maxLength={40}
            value={filters.symbol}
            onChange={(e) => setFilters((f) => ({ ...f, symbol: e.target.value }))}
            className={S.symbol}
          />
          <LeanTextField select label="Status" name="status" value={filters.status} onChange={(e) => setFilters((f) => ({ ...f, status: e.target.value as StatusFilter }))} className={S.status}>
            {STATUS_FILTERS.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </LeanTextField>
          {data.strategies && data.strategies.length > 0 ? (
            <LeanTextField
              select
              label="Strategy"
              name="strategy"
              value={data.strategy ?? ""}
              onChange={(e) => {
                const query = tradeScreenQuery(filters, e.target.value);
                navigate(`${location.pathname}${query ? `?${query}` : ""}`);
              }}
              data-testid="trade-strategy-filter"
            >
              <option value="">All strategies</option>
              <option value="default">default (global secret)</option>
              {data.strategies.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </LeanTextField>
          ) : null}
          {!hydrated ? (
            // Only before hydration (the no-JavaScript form's submit), so never an MUI Button.
            <LeanButton type="submit" variant="contained">
              Apply
            </LeanButton>
          ) : null}
          {hydrated ? (
            <Button
              component={RemixLink}
              to={location.pathname}
              variant="text"
              disabled={!hasFilters(filters) && !location.search}
              onClick={(event: React.MouseEvent) => {
                event.preventDefault();
                clearFilters();
              }}
              data-testid="trade-clear-filters"
            >
              Clear Filters
            </Button>
          ) : (
            <RemixLink className={leanButtonClass()} tabIndex={0} to={location.pathname} data-testid="trade-clear-filters">
              Clear Filters
            </RemixLink>
          )}
          <div className={S.grow} />
          <p className={cls(T.body2, T.muted)} data-testid="trade-count">
            {hasFilters(filters) ? `${shown.length} of ${all.length} trades` : `${all.length} ${all.length === 1 ? "trade" : "trades"}`}
          </p>
        </form>

        {trades?.error ? (
          <Alert
            severity="error"
            sx={{ mb: 2 }}
            action={
              <Button color="inherit" size="small" onClick={() => void trades.refetch()}>
                Retry
              </Button>
            }
          >
            {`Failed to load trades: ${errorText(trades.error, "Unknown error")}`}
          </Alert>
        ) : null}

        <TradeHistoryTable trades={shown} />
        {all.length > 0 || data.before ? (
          <div className={S.footer}>
            {pages.cursor === null && !data.before && all.length <= TRADE_HISTORY_LIMIT ? (
              <span className={cls(T.caption, T.muted)}>Click a row for its details. Newest first; the latest {TRADE_HISTORY_LIMIT} orders.</span>
            ) : (
              <span className={cls(T.caption, T.muted)} data-testid="trade-pages">
                {`Click a row for its details. Newest first, ${TRADE_HISTORY_LIMIT} a page${data.before ? " (an older page; " : "."}`}
                {data.before ? <RemixLink to={`${location.pathname}${tradeScreenQuery(data.filters, strategy) ? `?${tradeScreenQuery(data.filters, strategy)}` : ""}`}>back to newest</RemixLink> : null}
                {data.before ? ")" : ""}
              </span>
            )}
            <div className={S.grow} />
            {pages.cursor !== null ? (
              <a href={olderHref(pages.cursor)} onClick={loadOlder} data-testid="trades-older" data-cursor={pages.cursor} rel="next" className={T.body2}>
                {loadingOlder ? "Loading..." : "Older"}
              </a>
            ) : null}
          </div>
        ) : null}
        {olderError ? (
          <Alert severity="error" sx={{ mt: 2 }} data-testid="trades-older-error">
            {olderError}
          </Alert>
        ) : null}
      </div>
    </div>
  );
}
