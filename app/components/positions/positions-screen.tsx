// Futures Positions (docs/spec/screens.md, screens.md#states, api.md, api.md#errors, figures.md#defaults-and-limits): the open perpetual / futures positions with
// their protection, polled every 5 s (3 retries, back-off from 1 s up to 30 s) and refreshed
// by live trade_update / dashboard_update messages. The list is server-rendered, so it shows
// without JavaScript; Close asks for confirmation with JavaScript and posts the page's form
// (intent=close) without it.
import KeyboardArrowDown from "@mui/icons-material/KeyboardArrowDown";
import KeyboardArrowRight from "@mui/icons-material/KeyboardArrowRight";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import CircularProgress from "@mui/material/CircularProgress";
import Paper from "@mui/material/Paper";
import Table from "@mui/material/Table";
import Typography from "@mui/material/Typography";
import { Fragment, type FormEvent, type ReactNode, useEffect, useRef, useState } from "react";
import { D } from "#app/core/decimal.ts";
import { isFuturesSymbol } from "#app/core/products.ts";
import type { PositionView } from "#app/services/positions.server.ts";
import { apiRequest, errorText } from "#app/utils/api-client.ts";
import { formatPercent, formatPnl, formatPrice, formatQuantity } from "#app/core/format.ts";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { useApiQuery, useInvalidate } from "#app/utils/use-api-query.tsx";
import { Screen } from "../screen.tsx";
import { useToast } from "../toaster.tsx";
import { type DriftItem, DriftAlarms } from "./drift-alarms.tsx";
import { FlattenButton, type OpenOrder, OpenOrders } from "./open-orders.tsx";
import { cls } from "../ui/cls.ts";
import { StatusLabel } from "../trade-status-chip.tsx";
import { useCan } from "../layout/permissions.tsx";
import { S } from "./positions-screen.css.ts";
import { outlinedSmallError } from "../ui/plain-button.css.ts";
import { useExpanded } from "../ui/use-expanded.ts";
import { CARD_TOP, S as CARDS } from "../ui/phone-cards.css.ts";
import { PositionDetail } from "./position-detail.tsx";
import {
  breakEvenText,
  positionStatusText,
  stopLossText,
  takeProfitProgress,
  takeProfitText,
  trailingText,
} from "./position-texts.ts";

export const POSITIONS_POLL_MS = 5_000;
const MB2 = { mb: 2 } as const;
/** docs/spec/api.md: positions retry 3 times, back-off from 1 s up to 30 s. */
export const positionsRetryDelay = (attempt: number) => Math.min(1000 * 2 ** attempt, 30_000);

export const COLUMNS = [
  "Position",
  "Entry / Current",
  "Max Drawdown",
  "TP",
  "SL",
  "BE",
  "Trailing",
  "Portfolio",
  "P/L",
  "ROI",
  "Status",
  "Actions",
] as const;

/** JSON turns the server's PositionView into this (dates are already strings). */
export type PositionItem = PositionView;

const signClass = (value: string | null | undefined) =>
  value == null ? undefined : D(value).gt(0) ? "pd-c-success" : D(value).lt(0) ? "pd-c-error" : undefined;

// MUI's Table, Chips, Buttons and icons; the rows' cells and text are plain elements with the
// static row classes (app/styles/rows.css.ts) instead of a TableCell and Typography each
// (decision 043). The captions keep the primary text color.
function Caption({ children }: { children: ReactNode }) {
  return <div className="pd-caption">{children}</div>;
}

function StateChip({ label }: { label: string }) {
  const color = label === "Triggered" || label === "Tracking" ? "success" : label === "Active" ? "primary" : undefined;
  return <StatusLabel label={label} color={color} />;
}

function ClosePositionButton({ symbol, testId = `close-${symbol}` }: { symbol: string; testId?: string }) {
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
      // SPEC's text, then the server's reason (it used to reach only the console).
      toast({
        title: "Error Closing Position",
        description: `Failed to close position for ${symbol}: ${errorText(error, "unknown error")}`,
        variant: "destructive",
      });
    } finally {
      setBusy(false);
      invalidate("/api/positions", "/api/trades", "/api/dashboard/stats");
    }
  };
  return (
    // A plain form: without JavaScript it posts intent=close to this page's action.
    <form
      method="post"
      action="/positions"
      onSubmit={hydrated ? onSubmit : undefined}
      onClick={(e) => e.stopPropagation()}
      onKeyDown={(e) => e.stopPropagation()}
    >
      <input type="hidden" name="intent" value="close" />
      <input type="hidden" name="symbol" value={symbol} />
      {/* A plain button with MUI's small outlined error Button's look as a static class: one per
          position, ~0.5 ms of emotion each as an MUI Button (decision 043). */}
      <button type="submit" className={outlinedSmallError} disabled={busy} data-testid={testId}>
        {busy ? "Closing..." : "Close"}
      </button>
    </form>
  );
}

/**
 * The position's own chart page (decision 032) and, for whoever may trade, its edit form
 * (/positions?edit=<id>, decision 048): plain links, so they work without JavaScript; never toggle the row.
 */
function ChartLink({ p }: { p: PositionItem }) {
  const canEdit = useCan("positions.close");
  return (
    <>
      <a
        href={`/positions/${p.id}/chart`}
        className="pd-c-primary"
        data-testid="position-chart-link"
        onClick={(event) => event.stopPropagation()}
      >
        Price chart
      </a>
      {canEdit ? (
        <>
          {" · "}
          <a
            href={`/positions?edit=${encodeURIComponent(p.id)}`}
            className="pd-c-primary"
            data-testid="position-edit-link"
            onClick={(event) => event.stopPropagation()}
          >
            Edit
          </a>
        </>
      ) : null}
    </>
  );
}

function PositionRow({ p, expanded, onToggle }: { p: PositionItem; expanded: boolean; onToggle: () => void }) {
  const canClose = useCan("positions.close");
  const controls = p.advancedControls;
  const be = breakEvenText(controls, p.breakEvenTriggered);
  const trailing = trailingText(controls, p.trailingStopActive);
  const tpProgress = takeProfitProgress(controls, p.ruleState);
  const drawdown = D(p.maxDrawdown || "0");
  return (
    <tr
      className={cls("pd-tr pd-hover pd-pointer", expanded && "pd-open")}
      data-testid="position-row"
      data-symbol={p.symbol}
      aria-expanded={expanded}
      onClick={onToggle}
    >
      <td className={cls("pd-td", S.stickyLeft)}>
        <div className="pd-hstack">
          {expanded ? <KeyboardArrowDown fontSize="small" /> : <KeyboardArrowRight fontSize="small" />}
          <div>
            <p className="pd-body1 pd-bold pd-nowrap">{p.symbol}</p>
            <Caption>
              <span className={cls("pd-bold", p.side === "long" ? "pd-c-primary" : "pd-c-error")}>
                {p.side.toUpperCase()}
              </span>{" "}
              {formatQuantity(p.remainingQuantity)}
              {D(p.remainingQuantity).lt(p.quantity) ? ` of ${formatQuantity(p.quantity)}` : ""}
            </Caption>
            <Caption>
              {p.leverage}x {p.marginType}
            </Caption>
            <Caption>
              <span className="pd-nowrap">margin {formatPrice(p.margin)}</span>
            </Caption>
            <ChartLink p={p} />
          </div>
        </div>
      </td>
      <td className="pd-td pd-num" data-label="Entry / Current">
        <div>{formatPrice(p.entryPrice)}</div>
        <Caption>{formatPrice(p.currentPrice)}</Caption>
        <PriceNote p={p} />
        <Caption>
          <span title={LIQUIDATION_HINT} className="pd-nowrap">
            liq. {p.liquidationPrice ? formatPrice(p.liquidationPrice) : "—"}
          </span>
        </Caption>
      </td>
      <td className={cls("pd-td pd-num", drawdown.gt(0) && "pd-c-error")} data-label="Max Drawdown">
        {drawdown.gt(0) ? `-${formatPercent(p.maxDrawdown)}` : formatPercent("0")}
      </td>
      <td className="pd-td pd-nowrap" data-label="TP">
        <div>{takeProfitText(controls)}</div>
        {tpProgress ? <Caption>{tpProgress}</Caption> : null}
      </td>
      <td className="pd-td pd-nowrap" data-label="SL">
        <div>{stopLossText(controls)}</div>
        {p.stopPrice ? <Caption>@ {formatPrice(p.stopPrice)}</Caption> : null}
        <StopNote p={p} />
      </td>
      <td className="pd-td" data-label="BE">
        <StateChip label={be} />
      </td>
      <td className="pd-td" data-label="Trailing">
        <StateChip label={trailing} />
        {trailing === "Tracking" && p.trailingBestPrice ? (
          <Caption>best {formatPrice(p.trailingBestPrice)}</Caption>
        ) : null}
      </td>
      <td className="pd-td pd-num" data-label="Portfolio">
        {formatPercent(p.portfolioPercent)}
      </td>
      <td className="pd-td pd-num" data-label="P/L">
        <div className={cls("pd-nowrap", signClass(p.unrealizedPnl))}>{formatPnl(p.unrealizedPnl)}</div>
        {!D(p.realizedPnl || "0").eq(0) ? <Caption>realised {formatPnl(p.realizedPnl)}</Caption> : null}
        {!D(p.funding || "0").eq(0) ? <Caption>incl. funding {formatPnl(p.funding)}</Caption> : null}
      </td>
      <td className={cls("pd-td pd-num", signClass(p.roi))} data-label="ROI">
        {p.roi == null ? "—" : `${D(p.roi).gt(0) ? "+" : ""}${formatPercent(p.roi)}`}
      </td>
      <td className={`pd-td ${CARD_TOP}`}>
        <StatusLabel
          label={positionStatusText(p)}
          color={positionStatusText(p) === "PARTIAL" ? "warning" : "success"}
          testId="position-status"
        />
      </td>
      <td className={cls("pd-td", S.stickyRight)}>{canClose ? <ClosePositionButton symbol={p.symbol} /> : null}</td>
    </tr>
  );
}

/**
 * Issue 15: "price stale" when the rules may not act on the price (too old, or not the active
 * exchange's), with the reason on hover; else the random walk's label, so an invented price
 * is never taken for the market's.
 */
function PriceNote({ p }: { p: Pick<PositionItem, "priceStale" | "priceSource"> }) {
  if (p.priceStale) {
    return (
      <Caption>
        <span className="pd-c-warning pd-bold" title={`Protection paused: ${p.priceStale}`} data-testid="price-stale">
          price stale
        </span>
      </Caption>
    );
  }
  if (p.priceSource?.includes("random walk")) {
    return (
      <Caption>
        <span title={p.priceSource} data-testid="price-simulated">
          simulated (random walk)
        </span>
      </Caption>
    );
  }
  return null;
}

export const FUNDING_HINT =
  "Funding paid (−) or received (+) while the position was open; included in its realised P&L";
/** Issue 15: whether the stop also rests on the exchange (it survives the worker), the reason on hover; and why no order can close the position, when none can (decision 039). */
function StopNote({ p }: { p: Pick<PositionItem, "exchangeStop" | "exchangeStopNote" | "stopPrice" | "closeNote"> }) {
  if (!p.exchangeStopNote && !p.closeNote) return null;
  return (
    <>
      {p.exchangeStopNote ? (
        <Caption>
          <span
            title={p.exchangeStopNote}
            data-testid="exchange-stop"
            className={p.exchangeStop ? "pd-c-success" : undefined}
          >
            {p.exchangeStop ? `on exchange @ ${formatPrice(p.exchangeStop.stopPrice)}` : "worker only"}
          </span>
        </Caption>
      ) : null}
      {p.closeNote ? (
        <Caption>
          <span data-testid="close-note" className="pd-c-error">
            {`Cannot be closed by an order: ${p.closeNote}`}
          </span>
        </Caption>
      ) : null}
    </>
  );
}

export const LIQUIDATION_HINT =
  "Liquidation price: where the loss would use up the margin backing the position (the exchange's own figure on Coinbase)";

/**
 * The positions' table; below 600 px CSS lays the same rows out as cards (ui/phone-cards.css.ts):
 * the Position cell (symbol, side and size, leverage, margin, the chart and Edit links) with the
 * status (CARD_TOP) on the top line, every other cell a fact labelled by its `data-label`, and
 * Close at the bottom. One markup for both (issue 24: the cards were a second copy of every row).
 */
export function PositionsTable({ positions }: { positions: PositionItem[] }) {
  const { isExpanded, toggle } = useExpanded();
  return (
    <Paper variant="outlined" className={S.container}>
      <Table size="small" className={CARDS.table} data-testid="positions-table">
        <thead>
          <tr className="pd-tr">
            {COLUMNS.map((c, i) => (
              <th
                key={c}
                className={cls("pd-td", S.th, i === 0 && S.stickyLeft, i === COLUMNS.length - 1 && S.stickyRight)}
                scope="col"
              >
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {positions.map((p) => (
            <Fragment key={p.id}>
              <PositionRow p={p} expanded={isExpanded(p.id)} onToggle={() => toggle(p.id)} />
              {isExpanded(p.id) ? (
                <tr className="pd-tr" data-testid="position-detail-row">
                  <td className={cls("pd-td", S.detail)} colSpan={COLUMNS.length}>
                    <PositionDetail position={p} />
                  </td>
                </tr>
              ) : null}
            </Fragment>
          ))}
        </tbody>
      </Table>
    </Paper>
  );
}

export function PositionsScreen({
  initial,
  loadError,
  orders,
  drifts = null,
  strategy,
  toolbar,
}: {
  initial: PositionItem[] | null;
  loadError: string | null;
  orders: OpenOrder[] | null;
  drifts?: DriftItem[] | null;
  strategy?: string;
  toolbar?: ReactNode;
}) {
  const hydrated = useHydrated();
  const toast = useToast();
  // ?strategy= (decision 027): only that strategy's positions.
  const query = useApiQuery<PositionItem[]>(
    strategy ? `/api/positions?strategy=${encodeURIComponent(strategy)}` : "/api/positions",
    {
      initialData: initial ?? undefined,
      refetchIntervalMs: POSITIONS_POLL_MS,
      retryDelayMs: positionsRetryDelay,
    },
  );
  const [retrying, setRetrying] = useState(false);
  const error =
    query.error ?? (query.data === undefined && !hydrated ? (loadError ? new Error(loadError) : null) : null);

  const toasted = useRef<Error | string | null>(null);
  useEffect(() => {
    const current = query.error ?? (loadError && query.data === undefined ? loadError : null);
    if (current && current !== toasted.current) {
      toasted.current = current;
      const reason = typeof current === "string" ? current : errorText(current, "Unable to load positions");
      toast({
        title: "Failed to Load Positions",
        description: `${reason}. Press Retry to try again.`,
        variant: "destructive",
      });
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
    <Chip
      size="small"
      data-testid="positions-count"
      label={query.data ? String(positions.length) : "…"}
      color="primary"
      aria-label={`${positions.length} open positions`}
    />
  );

  let body: ReactNode;
  if (query.data === undefined && (error || (loadError && !hydrated))) {
    body = (
      <Paper variant="outlined" className={S.state} data-testid="positions-error">
        <Typography variant="h3" gutterBottom>
          Failed to Load Positions
        </Typography>
        <Typography color="text.secondary" sx={MB2}>
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
      <div className={S.loading} data-testid="positions-loading">
        <CircularProgress />
        <Typography color="text.secondary">Loading positions...</Typography>
      </div>
    );
  } else if (positions.length === 0) {
    body = (
      <Paper variant="outlined" className={S.state} data-testid="positions-empty">
        <Typography variant="h3" gutterBottom>
          No Open Positions
        </Typography>
        <Typography color="text.secondary">
          Positions opened by signals or manual orders appear here, with their take-profit, stop-loss, break-even and
          trailing-stop protection.
        </Typography>
      </Paper>
    );
  } else {
    body = <PositionsTable positions={positions} />;
  }

  return (
    <Screen title="Futures Positions" badge={badge} actions={<FlattenButton />}>
      <DriftAlarms initial={drifts} />
      {toolbar}
      {body}
      <OpenOrders initial={orders} />
    </Screen>
  );
}
