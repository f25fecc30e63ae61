// The Trade History screen (SPEC.md §2 Trade History, §7, §8, §9), shared by /history,
// /trade-history, /trades and /signals: summary cards (Total Trades, Completed, Failed,
// P&L with the closed-position count), symbol and status filters with Clear Filters, the
// Export button (trade-history.csv of the filtered rows) and the expandable table.
// The trades are server-rendered from the loader, then polled (GET /api/trades?limit=50,
// every 30 s; live trade updates refresh them sooner); the P&L card loads
// GET /api/closed-trades-pnl in the browser (every 30 s). Without JavaScript the filters
// are a GET form the loader applies.
import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import { Link as RemixLink, useLocation, useNavigate } from "@remix-run/react";
import { useState } from "react";
import { D } from "#app/core/decimal.ts";
import type { Signal } from "#db/queries/signals.ts";
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
  type TradeFilters,
  filterTrades,
  hasFilters,
  signalsUrl,
  tradeHistoryCsv,
  tradeSummary,
  tradesUrl,
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
  trades: Trade[];
  filters: TradeFilters;
  /** The strategy filter (decision 027): "" all, "default", or a strategy id. */
  strategy?: string;
  strategies?: { id: string; name: string }[];
}

export function TradeHistoryScreen({ data }: { data: TradeHistoryData }) {
  // A new strategy filter is a new list (its own API query).
  return <TradeHistoryBody key={data.strategy ?? ""} data={data} />;
}

function TradeHistoryBody({ data }: { data: TradeHistoryData }) {
  const toast = useToast();
  const hydrated = useHydrated();
  const trades = useApiQuery<Trade[]>(data.strategy ? `${tradesUrl}&strategy=${encodeURIComponent(data.strategy)}` : tradesUrl, { initialData: data.trades, refetchIntervalMs: TRADES_POLL_MS });
  // SPEC.md §7: the screen also fetches the latest 50 signals (it shows none of them).
  useApiQuery<Signal[]>(signalsUrl, { refetchIntervalMs: SIGNALS_POLL_MS });
  const pnl = useApiQuery<ClosedTradesPnl>("/api/closed-trades-pnl", { refetchIntervalMs: PNL_POLL_MS });
  const [filters, setFilters] = useState<TradeFilters>(data.filters);
  const location = useLocation();
  const navigate = useNavigate();

  const all = trades.data ?? [];
  const shown = filterTrades(all, filters);
  const summary = tradeSummary(all);
  const totalPnL = pnl.data?.totalPnL ?? null;
  const closing = pnl.data?.closingTrades ?? 0;
  const pnlStatus = totalPnL === null ? "neutral" : D(totalPnL).gt(0) ? "success" : D(totalPnL).lt(0) ? "error" : "neutral";
  const pnlDescription = pnl.data
    ? `All time, net of fees: ${closing} closing ${closing === 1 ? "trade" : "trades"}${pnl.data.funding && !D(pnl.data.funding).eq(0) ? `, funding ${formatPnl(pnl.data.funding)}` : ""}`
    : pnl.error
      ? `Unavailable: ${errorText(pnl.error, "Unknown error")}`
      : hydrated
        ? "Loading realized P&L..."
        : "Realized P&L: needs JavaScript";

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
          description={summary.total >= TRADE_HISTORY_LIMIT ? `The latest ${TRADE_HISTORY_LIMIT} orders` : "All orders"}
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
              onChange={(e) => navigate(`${location.pathname}${e.target.value ? `?strategy=${encodeURIComponent(e.target.value)}` : ""}`)}
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

        {trades.error ? (
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
        {all.length > 0 ? (
          <div className={S.footer}>
            <span className={cls(T.caption, T.muted)}>Click a row for its details. Newest first; the latest {TRADE_HISTORY_LIMIT} orders.</span>
          </div>
        ) : null}
      </div>
    </div>
  );
}
