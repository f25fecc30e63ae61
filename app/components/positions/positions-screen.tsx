// Futures Positions (SPEC.md §2, §4, §7, §8, §9): the open perpetual / futures positions with
// their protection, polled every 5 s (3 retries, back-off from 1 s up to 30 s) and refreshed
// by live trade_update / dashboard_update messages. The list is server-rendered, so it shows
// without JavaScript; Close asks for confirmation with JavaScript and posts the page's form
// (intent=close) without it.
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import CircularProgress from "@mui/material/CircularProgress";
import Paper from "@mui/material/Paper";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableContainer from "@mui/material/TableContainer";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import Typography from "@mui/material/Typography";
import { Fragment, type FormEvent, type ReactNode, useEffect, useRef, useState } from "react";
import { D } from "#app/core/decimal.ts";
import { isFuturesSymbol } from "#app/core/products.ts";
import type { PositionView } from "#app/services/positions.server.ts";
import { apiRequest, errorText } from "#app/utils/api-client.ts";
import { formatFractionPercent, formatPercent, formatPnl, formatPrice, formatQuantity } from "#app/utils/format.ts";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { useApiQuery, useInvalidate } from "#app/utils/use-api-query.tsx";
import { Screen } from "../screen.tsx";
import { useToast } from "../toaster.tsx";
import { LeanChip, LeanIcon, cls } from "../ui/lean.tsx";
import { useExpanded } from "../ui/use-expanded.ts";
import { PositionDetail } from "./position-detail.tsx";
import { breakEvenText, positionStatusText, takeProfitProgress, takeProfitText, trailingText } from "./position-texts.ts";

export const POSITIONS_POLL_MS = 5_000;
/** SPEC.md §7: positions retry 3 times, back-off from 1 s up to 30 s. */
export const positionsRetryDelay = (attempt: number) => Math.min(1000 * 2 ** attempt, 30_000);

export const COLUMNS = ["Position", "Entry / Current", "Max Drawdown", "TP", "SL", "BE", "Trailing", "Portfolio", "P/L", "ROI", "Status", "Actions"] as const;

/** JSON turns the server's PositionView into this (dates are already strings). */
export type PositionItem = PositionView;

const signClass = (value: string | null | undefined) => (value == null ? undefined : D(value).gt(0) ? "pd-c-success" : D(value).lt(0) ? "pd-c-error" : undefined);

// The rows are plain elements with the lean classes (components/ui/lean.tsx) instead of an
// MUI TableCell, Typography, Box and Chip each (docs/benchmarks.md, "Pages (T5)"). MUI 9's
// Typography takes no "text.secondary" color, so the captions keep the primary text color.
function Caption({ children }: { children: ReactNode }) {
  return <div className="pd-caption">{children}</div>;
}

function StateChip({ label }: { label: string }) {
  const color = label === "Triggered" || label === "Tracking" ? "success" : label === "Active" ? "primary" : undefined;
  return <LeanChip label={label} color={color} variant={label === "Inactive" ? "outlined" : "filled"} />;
}

const ARROW_DOWN = "M7.41 8.59 12 13.17l4.59-4.58L18 10l-6 6-6-6z";
const ARROW_RIGHT = "M8.59 16.59 13.17 12 8.59 7.41 10 6l6 6-6 6z";

function ClosePositionButton({ symbol }: { symbol: string }) {
  const hydrated = useHydrated();
  const toast = useToast();
  const invalidate = useInvalidate();
  const [busy, setBusy] = useState(false);
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!window.confirm(`Are you sure you want to close your position in ${symbol}?`)) return;
    setBusy(true);
    try {
      await apiRequest("POST", `/api/positions/${encodeURIComponent(symbol)}/close`);
      toast({ title: "Position Closed", description: `Successfully closed position for ${symbol}` });
    } catch (error) {
      console.warn(`close ${symbol} failed: ${errorText(error, "unknown error")}`);
      toast({ title: "Error Closing Position", description: `Failed to close position for ${symbol}`, variant: "destructive" });
    } finally {
      setBusy(false);
      invalidate("/api/positions", "/api/trades", "/api/dashboard/stats");
    }
  };
  return (
    // A plain form: without JavaScript it posts intent=close to this page's action.
    <form method="post" action="/positions" onSubmit={hydrated ? onSubmit : undefined} onClick={(e) => e.stopPropagation()}>
      <input type="hidden" name="intent" value="close" />
      <input type="hidden" name="symbol" value={symbol} />
      <Button type="submit" size="small" variant="outlined" color="error" disabled={busy} data-testid={`close-${symbol}`}>
        {busy ? "Closing..." : "Close"}
      </Button>
    </form>
  );
}

function PositionRow({ p, expanded, onToggle }: { p: PositionItem; expanded: boolean; onToggle: () => void }) {
  const controls = p.advancedControls;
  const be = breakEvenText(controls, p.breakEvenTriggered);
  const trailing = trailingText(controls, p.trailingStopActive);
  const tpProgress = takeProfitProgress(controls, p.ruleState);
  const drawdown = D(p.maxDrawdown || "0");
  return (
    <tr className={cls("pd-tr pd-hover pd-pointer", expanded && "pd-open")} data-testid="position-row" data-symbol={p.symbol} aria-expanded={expanded} onClick={onToggle}>
      <td className="pd-td">
        <div className="pd-hstack">
          <LeanIcon d={expanded ? ARROW_DOWN : ARROW_RIGHT} />
          <div>
            <p className="pd-body1 pd-bold pd-nowrap">{p.symbol}</p>
            <Caption>
              <span className={cls("pd-bold", p.side === "long" ? "pd-c-primary" : "pd-c-error")}>{p.side.toUpperCase()}</span> {formatQuantity(p.remainingQuantity)}
              {D(p.remainingQuantity).lt(p.quantity) ? ` of ${formatQuantity(p.quantity)}` : ""}
            </Caption>
            <Caption>
              {p.leverage}x {p.marginType}
            </Caption>
          </div>
        </div>
      </td>
      <td className="pd-td pd-num pd-nowrap">
        <div>{formatPrice(p.entryPrice)}</div>
        <Caption>{formatPrice(p.currentPrice)}</Caption>
      </td>
      <td className={cls("pd-td pd-num", drawdown.gt(0) && "pd-c-error")}>{drawdown.gt(0) ? `-${formatPercent(p.maxDrawdown)}` : formatPercent("0")}</td>
      <td className="pd-td pd-nowrap">
        <div>{takeProfitText(controls)}</div>
        {tpProgress ? <Caption>{tpProgress}</Caption> : null}
      </td>
      <td className="pd-td pd-nowrap">
        <div>{controls?.stopLossOffset != null && controls.stopLossOffset > 0 ? formatFractionPercent(controls.stopLossOffset) : "None"}</div>
        {p.stopPrice ? <Caption>@ {formatPrice(p.stopPrice)}</Caption> : null}
      </td>
      <td className="pd-td">
        <StateChip label={be} />
      </td>
      <td className="pd-td">
        <StateChip label={trailing} />
        {trailing === "Tracking" && p.trailingBestPrice ? <Caption>best {formatPrice(p.trailingBestPrice)}</Caption> : null}
      </td>
      <td className="pd-td pd-num">{formatPercent(p.portfolioPercent)}</td>
      <td className="pd-td pd-num">
        <div className={cls("pd-nowrap", signClass(p.unrealizedPnl))}>{formatPnl(p.unrealizedPnl)}</div>
        {!D(p.realizedPnl || "0").eq(0) ? <Caption>realised {formatPnl(p.realizedPnl)}</Caption> : null}
      </td>
      <td className={cls("pd-td pd-num", signClass(p.roi))}>{p.roi == null ? "—" : `${D(p.roi).gt(0) ? "+" : ""}${formatPercent(p.roi)}`}</td>
      <td className="pd-td">
        <LeanChip label={positionStatusText(p)} color={positionStatusText(p) === "PARTIAL" ? "warning" : "success"} data-testid="position-status" />
      </td>
      <td className="pd-td">
        <ClosePositionButton symbol={p.symbol} />
      </td>
    </tr>
  );
}

export function PositionsTable({ positions }: { positions: PositionItem[] }) {
  const { isExpanded, toggle } = useExpanded();
  return (
    <TableContainer component={Paper} variant="outlined">
      <Table size="small" data-testid="positions-table">
        <TableHead>
          <TableRow>
            {COLUMNS.map((c) => (
              <TableCell key={c} sx={{ fontWeight: 600, lineHeight: 1.3 }}>
                {c}
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {positions.map((p) => (
            <Fragment key={p.id}>
              <PositionRow p={p} expanded={isExpanded(p.id)} onToggle={() => toggle(p.id)} />
              {isExpanded(p.id) ? (
                <TableRow data-testid="position-detail-row">
                  <TableCell colSpan={COLUMNS.length} sx={{ bgcolor: "action.hover", p: 0 }}>
                    <PositionDetail position={p} />
                  </TableCell>
                </TableRow>
              ) : null}
            </Fragment>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

export function PositionsScreen({ initial, loadError }: { initial: PositionItem[] | null; loadError: string | null }) {
  const hydrated = useHydrated();
  const toast = useToast();
  const query = useApiQuery<PositionItem[]>("/api/positions", {
    initialData: initial ?? undefined,
    refetchIntervalMs: POSITIONS_POLL_MS,
    retryDelayMs: positionsRetryDelay,
  });
  const [retrying, setRetrying] = useState(false);
  const error = query.error ?? (query.data === undefined && !hydrated ? (loadError ? new Error(loadError) : null) : null);

  const toasted = useRef<Error | string | null>(null);
  useEffect(() => {
    const current = query.error ?? (loadError && query.data === undefined ? loadError : null);
    if (current && current !== toasted.current) {
      toasted.current = current;
      const reason = typeof current === "string" ? current : errorText(current, "Unable to load positions");
      toast({ title: "Failed to Load Positions", description: `${reason}. Press Retry to try again.`, variant: "destructive" });
    }
  }, [query.error, loadError, query.data, toast]);

  const retry = async () => {
    setRetrying(true);
    try {
      await query.refetch();
    } finally {
      setRetrying(false);
    }
  };

  const positions = (query.data ?? []).filter((p) => isFuturesSymbol(p.symbol));
  const badge = (
    <Chip data-testid="positions-count" label={query.data ? positions.length : "…"} color="primary" size="small" aria-label={`${positions.length} open positions`} />
  );

  let body: ReactNode;
  if (query.data === undefined && (error || (loadError && !hydrated))) {
    body = (
      <Paper variant="outlined" sx={{ p: 4, textAlign: "center" }} data-testid="positions-error">
        <Typography variant="h3" component="p" gutterBottom>
          Failed to Load Positions
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 2 }}>
          {error ? errorText(error, "Unable to load positions") : loadError}
        </Typography>
        {hydrated ? (
          <Button variant="contained" onClick={retry} disabled={retrying}>
            {retrying ? "Retrying..." : "Retry"}
          </Button>
        ) : (
          <Button variant="contained" href="/positions">
            Retry
          </Button>
        )}
      </Paper>
    );
  } else if (query.data === undefined || retrying) {
    body = (
      <Box sx={{ py: 8, display: "flex", flexDirection: "column", alignItems: "center", gap: 2 }} data-testid="positions-loading">
        <CircularProgress />
        <Typography color="text.secondary">Loading positions...</Typography>
      </Box>
    );
  } else if (positions.length === 0) {
    body = (
      <Paper variant="outlined" sx={{ p: 4, textAlign: "center" }} data-testid="positions-empty">
        <Typography variant="h3" component="p" gutterBottom>
          No Open Positions
        </Typography>
        <Typography color="text.secondary">Positions opened by signals or manual orders appear here, with their take-profit, stop-loss, break-even and trailing-stop protection.</Typography>
      </Paper>
    );
  } else {
    body = <PositionsTable positions={positions} />;
  }

  return (
    <Screen title="Futures Positions" badge={badge}>
      {body}
    </Screen>
  );
}
