// The Trade History screen (SPEC.md §2 Trade History, §7, §8, §9), shared by /history,
// /trade-history, /trades and /signals: summary cards (Total Trades, Completed, Failed,
// P&L with the closed-position count), symbol and status filters with Clear Filters, the
// Export button (trade-history.csv of the filtered rows) and the expandable table.
// The trades are server-rendered from the loader, then polled (GET /api/trades?limit=50,
// every 30 s; live trade updates refresh them sooner); the P&L card loads
// GET /api/closed-trades-pnl in the browser (every 30 s). Without JavaScript the filters
// are a GET form the loader applies.
import AccountBalanceWalletIcon from "@mui/icons-material/AccountBalanceWallet";
import CheckCircleIcon from "@mui/icons-material/CheckCircle";
import DownloadIcon from "@mui/icons-material/Download";
import CancelIcon from "@mui/icons-material/Cancel";
import ReceiptLongIcon from "@mui/icons-material/ReceiptLong";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { Link as RemixLink, useLocation, useNavigate } from "@remix-run/react";
import { useState } from "react";
import { D } from "#app/core/decimal.ts";
import type { Signal } from "#db/queries/signals.ts";
import { errorText } from "#app/utils/api-client.ts";
import { downloadText, formatPnl } from "#app/utils/format.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { Screen } from "../screen.tsx";
import { useToast } from "../toaster.tsx";
import { TradeHistoryTable } from "../trade-history/trade-history-table.tsx";
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
} from "../trade-history/trade-history-utils.ts";
import { StatCard } from "../ui/stat-card.tsx";

export interface ClosedTradesPnl {
  totalPnL: string;
  realizedMatches: number;
}

export interface TradeHistoryData {
  trades: Trade[];
  filters: TradeFilters;
}

export function TradeHistoryScreen({ data }: { data: TradeHistoryData }) {
  const toast = useToast();
  const hydrated = useHydrated();
  const trades = useApiQuery<Trade[]>(tradesUrl, { initialData: data.trades, refetchIntervalMs: TRADES_POLL_MS });
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
  const matches = pnl.data?.realizedMatches ?? 0;
  const pnlStatus = totalPnL === null ? "neutral" : D(totalPnL).gt(0) ? "success" : D(totalPnL).lt(0) ? "error" : "neutral";
  const pnlDescription = pnl.data
    ? `${matches} closed ${matches === 1 ? "position" : "positions"}`
    : pnl.error
      ? `Unavailable: ${errorText(pnl.error, "Unknown error")}`
      : hydrated
        ? "Loading closed positions..."
        : "Closed positions: needs JavaScript";

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
    <Screen
      title="Trade History"
      actions={
        <Button variant="outlined" startIcon={<DownloadIcon />} onClick={exportCsv} disabled={!hydrated} data-testid="trade-history-export">
          Export
        </Button>
      }
    >
      <Box sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", sm: "1fr 1fr", lg: "repeat(4, 1fr)" }, mb: 2 }}>
        <StatCard
          testId="card-total-trades"
          title="Total Trades"
          value={String(summary.total)}
          icon={<ReceiptLongIcon />}
          description={summary.total >= TRADE_HISTORY_LIMIT ? `The latest ${TRADE_HISTORY_LIMIT} orders` : "All orders"}
        />
        <StatCard testId="card-completed" title="Completed" value={String(summary.completed)} icon={<CheckCircleIcon />} status={summary.completed > 0 ? "success" : "neutral"} description="Executed or completed" />
        <StatCard testId="card-failed" title="Failed" value={String(summary.failed)} icon={<CancelIcon />} status={summary.failed > 0 ? "error" : "neutral"} description="Rejected or not filled" />
        <StatCard
          testId="card-trade-pnl"
          title="P&L"
          value={totalPnL === null ? "—" : formatPnl(totalPnL)}
          icon={<AccountBalanceWalletIcon />}
          status={pnlStatus}
          description={pnlDescription}
        />
      </Box>

      <Paper variant="outlined" sx={{ p: 2 }} data-testid="trade-history">
        <Box
          component="form"
          method="get"
          action={location.pathname}
          onSubmit={(event) => {
            // With JavaScript the filters apply as they are typed.
            if (hydrated) event.preventDefault();
          }}
          sx={{ display: "flex", gap: 1.5, alignItems: "center", flexWrap: "wrap", mb: 2 }}
          data-testid="trade-filters"
        >
          <TextField
            name="symbol"
            label="Symbol"
            size="small"
            placeholder="e.g. BTC"
            value={filters.symbol}
            onChange={(e) => setFilters((f) => ({ ...f, symbol: e.target.value }))}
            slotProps={{ inputLabel: { shrink: true }, htmlInput: { maxLength: 40 } }}
            sx={{ minWidth: 200 }}
          />
          <TextField
            select
            name="status"
            label="Status"
            size="small"
            value={filters.status}
            onChange={(e) => setFilters((f) => ({ ...f, status: e.target.value as StatusFilter }))}
            slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
            sx={{ minWidth: 160 }}
          >
            {STATUS_FILTERS.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </TextField>
          {!hydrated ? (
            <Button type="submit" variant="contained">
              Apply
            </Button>
          ) : null}
          <Button
            component={RemixLink}
            to={location.pathname}
            variant="text"
            disabled={hydrated && !hasFilters(filters) && !location.search}
            onClick={(event: React.MouseEvent) => {
              if (!hydrated) return;
              event.preventDefault();
              clearFilters();
            }}
            data-testid="trade-clear-filters"
          >
            Clear Filters
          </Button>
          <Box sx={{ flex: 1 }} />
          <Typography variant="body2" color="text.secondary" data-testid="trade-count">
            {hasFilters(filters) ? `${shown.length} of ${all.length} trades` : `${all.length} ${all.length === 1 ? "trade" : "trades"}`}
          </Typography>
        </Box>

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
          <Stack direction="row" sx={{ mt: 1.5 }}>
            <Typography variant="caption" color="text.secondary">
              Click a row for its details. Newest first; the latest {TRADE_HISTORY_LIMIT} orders.
            </Typography>
          </Stack>
        ) : null}
      </Paper>
    </Screen>
  );
}
