// The Trade History screen (docs/spec/screens.md Trade History, api.md, api.md#errors, figures.md#defaults-and-limits), shared by /history,
// /trade-history, /trades and /signals: summary cards (Total Trades, Completed, Failed,
// P&L with the closed-position count), symbol and status filters with Clear Filters, the
// Export button (trade-history.csv of the rows shown) and the expandable table.
// The filters are the URL's (?symbol=&status=&strategy=): the loader reads one page of 50
// rows and the cards' counts for them over every page (issue 22: the header follows the
// filter), so without JavaScript the filters are a GET form and "Older" a link (?before=).
// With JavaScript the filters typed narrow the rows at once and apply on the server after a
// pause; the newest page polls GET /api/trades?limit=50 (every 30 s; live trade updates
// refresh it sooner), the counts GET /api/trades/summary, the P&L card GET /api/closed-trades-pnl
// (every 30 s; the loader sends its first figure, so it is there without JavaScript), each with
// the same filter, and
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
import AccountBalanceWallet from "@mui/icons-material/AccountBalanceWallet";
import Cancel from "@mui/icons-material/Cancel";
import CheckCircle from "@mui/icons-material/CheckCircle";
import Download from "@mui/icons-material/Download";
import ReceiptLong from "@mui/icons-material/ReceiptLong";
import Paper from "@mui/material/Paper";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { S } from "./trade-history-screen.css.ts";
import { StatCard } from "../ui/stat-card.tsx";

// MUI's widgets (stat cards, Paper, fields, buttons, the error Alert); the layout is static
// classes (./trade-history-screen.css.ts) and the rows plain cells in MUI's Table (decision 043).
const SHRINK = { inputLabel: { shrink: true } } as const;
const NATIVE = { select: { native: true }, inputLabel: { shrink: true } } as const;
const SYMBOL_FIELD = { minWidth: 200 } as const;
const STATUS_FIELD = { minWidth: 160 } as const;
const PAD = { p: 2 } as const;

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
  /** The P&L card's figure for the filters (GET /api/closed-trades-pnl), polled after hydration. */
  pnl?: ClosedTradesPnl;
}

type Query<T> = ReturnType<typeof useApiQuery<T>>;

/**
 * Polls one URL and hands its state up. Keyed by the applied filters, so a new filter starts
 * from the loader's answer for it (useApiQuery keeps its data across URL changes).
 */
function Poll<T>({
  url,
  initialData,
  intervalMs,
  enabled = true,
  onState,
}: {
  url: string;
  initialData: T | undefined;
  intervalMs: number;
  enabled?: boolean;
  onState: (state: Query<T>) => void;
}) {
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
  const [counts, setCounts] = useState<{ key: string; query: Query<TradeHistoryData["totals"]> | null }>({
    key: applied,
    query: null,
  });
  const [pnlState, setPnlState] = useState<{ key: string; query: Query<ClosedTradesPnl> | null }>({
    key: applied,
    query: null,
  });
  const [older, setOlder] = useState<{ key: string; trades: Trade[]; cursor: string | null }>({
    key: applied,
    trades: [],
    cursor: data.nextCursor ?? null,
  });
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
  for (const t of [...(data.before ? [] : (trades?.data ?? [])), ...data.trades, ...pages.trades])
    if (!byId.has(t.id)) byId.set(t.id, t);
  const all = [...byId.values()].sort((a, b) =>
    a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
  );
  const shown = filterTrades(all, filters);
  const totals = current(counts)?.data ?? data.totals;
  const summary = totals ?? tradeSummary(all);
  const pnl = current(pnlState) ?? { data: undefined, error: null };
  const pnlData = pnl.data ?? data.pnl;
  const totalPnL = pnlData?.totalPnL ?? null;
  const closing = pnlData?.closingTrades ?? 0;
  const pnlStatus =
    totalPnL === null ? "neutral" : D(totalPnL).gt(0) ? "success" : D(totalPnL).lt(0) ? "error" : "neutral";
  const pnlDescription = pnlData
    ? `All time, net of fees: ${closing} closing ${closing === 1 ? "trade" : "trades"}${pnlData.funding && !D(pnlData.funding).eq(0) ? `, funding ${formatPnl(pnlData.funding)}` : ""}`
    : pnl.error
      ? `Unavailable: ${errorText(pnl.error, "Unknown error")}`
      : "Loading realized P&L...";
  const narrowed = hasFilters(data.filters) || strategy !== "";

  const olderHref = (cursor: string) =>
    `${location.pathname}?${tradeScreenQuery(data.filters, strategy, { before: cursor })}`;
  const loadOlder = async (event: React.MouseEvent) => {
    const cursor = pages.cursor;
    if (cursor === null || !hydrated) return;
    event.preventDefault();
    setLoadingOlder(true);
    setOlderError(null);
    try {
      const response = await fetch(`/api/trades?${apiQuery({ limit: TRADE_HISTORY_LIMIT, before: cursor })}`, {
        headers: { Accept: "application/json" },
      });
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
    toast({
      title: "Export successful",
      description: `Exported ${shown.length} ${shown.length === 1 ? "trade" : "trades"} as CSV file`,
    });
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
      <Poll<TradeHistoryData["totals"]>
        key={`totals|${applied}`}
        url={`/api/trades/summary?${apiQuery()}`}
        initialData={data.totals}
        intervalMs={PNL_POLL_MS}
        onState={(query) => setCounts({ key: applied, query })}
      />
      <Poll<ClosedTradesPnl>
        key={`pnl|${applied}`}
        url={`/api/closed-trades-pnl${apiQuery() ? `?${apiQuery()}` : ""}`}
        initialData={data.pnl}
        intervalMs={PNL_POLL_MS}
        onState={(query) => setPnlState({ key: applied, query })}
      />
      <div className={S.head}>
        <Typography variant="h1">Trade History</Typography>
        <div className={S.grow} />
        {/* A link to the page's CSV (GET /api/trades?format=csv, the same filter and page), which
            works without JavaScript; with it, the rows shown (typed filters, older pages loaded in place). */}
        <Button
          variant="outlined"
          startIcon={<Download />}
          href={`/api/trades?${apiQuery({ limit: TRADE_HISTORY_LIMIT, format: "csv", ...(data.before ? { before: data.before } : {}) })}`}
          download={TRADE_HISTORY_FILE}
          onClick={(event: React.MouseEvent) => {
            if (!hydrated) return;
            event.preventDefault();
            exportCsv();
          }}
          data-testid="trade-history-export"
        >
          Export
        </Button>
      </div>
      <div className={S.cards}>
        <StatCard
          testId="card-total-trades"
          title="Total Trades"
          value={String(summary.total)}
          icon={<ReceiptLong />}
          description={narrowed ? "Matching the filters" : "All orders"}
        />
        <StatCard
          testId="card-completed"
          title="Completed"
          value={String(summary.completed)}
          icon={<CheckCircle />}
          status={summary.completed > 0 ? "success" : "neutral"}
          description="Executed or completed"
        />
        <StatCard
          testId="card-failed"
          title="Failed"
          value={String(summary.failed)}
          icon={<Cancel />}
          status={summary.failed > 0 ? "error" : "neutral"}
          description="Rejected or not filled"
        />
        <StatCard
          testId="card-trade-pnl"
          title="P&L"
          value={totalPnL === null ? "—" : formatPnl(totalPnL)}
          icon={<AccountBalanceWallet />}
          status={pnlStatus}
          description={pnlDescription}
        />
      </div>

      <Paper variant="outlined" sx={PAD} data-testid="trade-history">
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
          <TextField
            size="small"
            label="Symbol"
            name="symbol"
            placeholder="e.g. BTC"
            value={filters.symbol}
            onChange={(e) => setFilters((f) => ({ ...f, symbol: e.target.value }))}
            sx={SYMBOL_FIELD}
            slotProps={{ ...SHRINK, htmlInput: { maxLength: 40 } }}
          />
          <TextField
            select
            size="small"
            label="Status"
            name="status"
            value={filters.status}
            onChange={(e) => setFilters((f) => ({ ...f, status: e.target.value as StatusFilter }))}
            sx={STATUS_FIELD}
            slotProps={NATIVE}
          >
            {STATUS_FILTERS.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </TextField>
          {data.strategies && data.strategies.length > 0 ? (
            <TextField
              select
              size="small"
              label="Strategy"
              name="strategy"
              value={data.strategy ?? ""}
              onChange={(e) => {
                const query = tradeScreenQuery(filters, e.target.value);
                navigate(`${location.pathname}${query ? `?${query}` : ""}`);
              }}
              slotProps={{ ...NATIVE, htmlInput: { "data-testid": "trade-strategy-filter" } }}
            >
              <option value="">All strategies</option>
              <option value="default">default (global secret)</option>
              {data.strategies.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </TextField>
          ) : null}
          {!hydrated ? (
            // Only before hydration: the no-JavaScript form's submit.
            <Button type="submit" variant="contained">
              Apply
            </Button>
          ) : null}
          <Button
            component={RemixLink}
            to={location.pathname}
            variant="text"
            disabled={hydrated && !hasFilters(filters) && !location.search}
            onClick={
              hydrated
                ? (event: React.MouseEvent) => {
                    event.preventDefault();
                    clearFilters();
                  }
                : undefined
            }
            data-testid="trade-clear-filters"
          >
            Clear Filters
          </Button>
          <div className={S.grow} />
          <Typography variant="body2" color="text.secondary" data-testid="trade-count">
            {hasFilters(filters)
              ? `${shown.length} of ${all.length} trades`
              : `${all.length} ${all.length === 1 ? "trade" : "trades"}`}
          </Typography>
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
              <span className="pd-caption pd-muted">
                Click a row for its details. Newest first; the latest {TRADE_HISTORY_LIMIT} orders.
              </span>
            ) : (
              <span className="pd-caption pd-muted" data-testid="trade-pages">
                {`Click a row for its details. Newest first, ${TRADE_HISTORY_LIMIT} a page${data.before ? " (an older page; " : "."}`}
                {data.before ? (
                  <RemixLink
                    to={`${location.pathname}${tradeScreenQuery(data.filters, strategy) ? `?${tradeScreenQuery(data.filters, strategy)}` : ""}`}
                  >
                    back to newest
                  </RemixLink>
                ) : null}
                {data.before ? ")" : ""}
              </span>
            )}
            <div className={S.grow} />
            {pages.cursor !== null ? (
              <a
                href={olderHref(pages.cursor)}
                onClick={loadOlder}
                data-testid="trades-older"
                data-cursor={pages.cursor}
                rel="next"
                className="pd-body2"
              >
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
      </Paper>
    </div>
  );
}
