// The Trade History table (docs/spec/screens.md, screens.md#states, api.md#errors, figures.md#defaults-and-limits): one expandable row per trade with the
// columns Position, Entry, Max Drawdown, TP, SL, BE, Trailing, Portfolio, P/L, ROI, Status,
// Actions. A trade of a position shows that position's real state (issue 11): max drawdown,
// TP (levels and how many hit), SL (its stop price), BE, Trailing, and for a closing trade its
// ROI on the margin it freed; SPEC's fixed placeholders (Max drawdown 'N/A', SL 'None', BE and
// Trailing 'Inactive', ROI 'N/A') stay for trades without a position (failed, cancelled,
// resting). An expanded row loads GET /api/trades/{id}/details, only while expanded, every 10 s.
import ExpandLess from "@mui/icons-material/ExpandLess";
import ExpandMore from "@mui/icons-material/ExpandMore";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import CircularProgress from "@mui/material/CircularProgress";
import IconButton from "@mui/material/IconButton";
import Stack from "@mui/material/Stack";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import { HydratedTooltip } from "../ui/hydrated-tooltip.tsx";
import Typography from "@mui/material/Typography";
import { Fragment, type ReactNode, useEffect, useMemo, useRef } from "react";
import { D, toFixed } from "#app/core/decimal.ts";
import { errorText } from "#app/utils/api-client.ts";
import {
  formatDateTime,
  formatPercent,
  formatPnl,
  formatPrice,
  formatQuantity,
  shortId,
  shortOrderId,
} from "#app/core/format.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { useToast } from "../toaster.tsx";
import { LabelledValue } from "../labelled-value.tsx";
import { StatusLabel, TradeStatusChip, TradeStatusLabel } from "../trade-status-chip.tsx";
import { cls } from "../ui/cls.ts";
import { S } from "./trade-history-table.css.ts";
import { PriceChart, type PriceChartData } from "../charts/price-chart.tsx";
import { useExpanded } from "../ui/use-expanded.ts";
import { CARD_TOP, S as CARDS } from "../ui/phone-cards.css.ts";
import { SignalTimelineView } from "../signals/signal-timeline.tsx";
import type { TradePositionState } from "#app/services/trade-history.server.ts";
import { breakEvenText, takeProfitProgress, takeProfitText, trailingText } from "../positions/position-texts.ts";
import {
  DETAILS_POLL_MS,
  type Trade,
  type TradeDetails,
  detailsUrl,
  exchangeLabel,
  tradePnl,
  tradePrice,
  tradeQuantity,
  utcText,
} from "#app/core/trade-history.ts";

export const COLUMNS = [
  "Position",
  "Entry",
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

const SHORT_TIME: Intl.DateTimeFormatOptions = { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" };

function TimeText({ iso, short }: { iso: string | null | undefined; short?: boolean }) {
  const hydrated = useHydrated();
  // UTC on the server and before hydration (no mismatch), the browser's locale after.
  const text = !hydrated
    ? short
      ? utcText(iso).replace(/:\d\d UTC$/, " UTC")
      : utcText(iso)
    : short && iso
      ? new Date(iso).toLocaleString(undefined, SHORT_TIME)
      : formatDateTime(iso);
  return (
    <time dateTime={iso ?? undefined} title={iso ?? undefined}>
      {text}
    </time>
  );
}

// MUI's Table (size small, the screen's 8 px cell padding); its head and body cells are plain
// cells with the static row classes (app/styles/rows.css.ts: pd-td, pd-th, pd-nowrap, pd-right).
// Below 600 px CSS lays the same rows out as cards (ui/phone-cards.css.ts; issue 25: the table
// was 1,158 px wide at 390 px): the Position cell and, right of it, the status and the expand
// button (CARD_TOP) on the top line, every other cell a fact labelled by its `data-label`.
// One markup for both (issue 24: the cards were a second copy of every row).

/** A row: the trade, with its position's state when it has one (GET /api/trades). */
export type TradeRowData = Trade & { position?: TradePositionState | null };

export function TradeHistoryTable({ trades }: { trades: TradeRowData[] }) {
  const hydrated = useHydrated();
  const { isExpanded, toggle } = useExpanded();
  const views = useMemo(() => trades.map(tradeView), [trades]);
  return (
    <div className={S.container}>
      <Table
        size="small"
        className={cls(S.table, CARDS.table)}
        aria-label="Trade history"
        data-testid="trade-history-table"
      >
        <thead>
          <tr className="pd-tr">
            {COLUMNS.map((c) => (
              <th key={c} className={cls("pd-td pd-th pd-nowrap", c === "Actions" && "pd-right")} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {trades.length === 0 ? (
            <tr className="pd-tr">
              <td className={cls("pd-td", S.empty)} colSpan={COLUMNS.length} data-testid="trade-history-empty">
                <Typography>No trades found</Typography>
              </td>
            </tr>
          ) : (
            trades.map((trade, i) => (
              <Fragment key={trade.id}>
                <TradeRow
                  trade={trade}
                  v={views[i]}
                  open={isExpanded(trade.id)}
                  onToggle={() => toggle(trade.id)}
                  hydrated={hydrated}
                />
                {isExpanded(trade.id) ? (
                  <tr className="pd-tr" data-testid="trade-details-row" data-trade-id={trade.id}>
                    <td className={cls("pd-td", S.detail)} colSpan={COLUMNS.length}>
                      <TradeDetailsPanel id={trade.id} />
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            ))
          )}
        </tbody>
      </Table>
    </div>
  );
}

// The rows' cells and text are plain elements with the static row classes: 50 rows of MUI
// TableCell, Typography and Stack cost an emotion serialization each (decision 043); the chips,
// the expand button and its icon are MUI's. The placeholders and captions render in the
// primary text color.
const Placeholder = ({ children }: { children: ReactNode }) => <span className="pd-body2">{children}</span>;

const TP_TIP = "Take-profit levels belong to the position (see Positions)";

/** The row's expand button: MUI's small IconButton (no ripple: one less element per row). */
function ExpandButton({ label, open, onToggle }: { label: string; open: boolean; onToggle: () => void }) {
  return (
    <IconButton
      size="small"
      disableRipple
      aria-label={label}
      aria-expanded={open}
      data-testid="trade-expand"
      onClick={(event) => {
        event.stopPropagation();
        onToggle();
      }}
    >
      {open ? <ExpandLess fontSize="small" /> : <ExpandMore fontSize="small" />}
    </IconButton>
  );
}

/** ROI of a closing trade: its realized P&L on the margin of what it closed (entry × quantity / leverage), percent. */
function closingRoi(trade: Trade, position: TradePositionState): string | null {
  const pnl = tradePnl(trade);
  if (pnl === null) return null;
  const margin = D(position.entryPrice)
    .times(tradeQuantity(trade))
    .div(position.leverage > 0 ? position.leverage : 1);
  return margin.gt(0) ? D(pnl).div(margin).times(100).round(2).toString() : null;
}

/**
 * What a row shows of a trade, formatted once per trade and render (docs/decisions/043-one-ui-system.md).
 */
export function tradeView(trade: TradeRowData) {
  const price = tradePrice(trade);
  const pnl = tradePnl(trade);
  const position = trade.position ?? null;
  const controls = position?.advancedControls ?? null;
  const drawdown = position ? D(position.maxDrawdown || "0") : null;
  const roi = position ? closingRoi(trade, position) : null;
  const roiSign = roi === null ? 0 : D(roi).gt(0) ? 1 : D(roi).lt(0) ? -1 : 0;
  return {
    side: trade.side.toUpperCase(),
    sideColor: trade.side === "buy" ? "primary" : "error",
    quantity: formatQuantity(tradeQuantity(trade)),
    price: price ? formatPrice(price) : null,
    /** Null without a position (the placeholder N/A). */
    drawdown: drawdown ? (drawdown.gt(0) ? `-${formatPercent(drawdown.toString())}` : formatPercent("0")) : null,
    drawdownClass: drawdown?.gt(0) ? "pd-c-error" : null,
    /** Null without a position (the placeholder —). */
    takeProfit: position ? takeProfitText(controls) : null,
    tpProgress: position ? takeProfitProgress(controls, position.ruleState) : null,
    stop: position?.stopPrice ? `@ ${formatPrice(position.stopPrice)}` : "None",
    breakEven: position ? breakEvenText(controls, position.breakEvenTriggered) : "Inactive",
    trailing: position ? trailingText(controls, position.trailingStopActive) : "Inactive",
    pnl: pnl === null ? "—" : formatPnl(pnl),
    pnlClass: pnl === null ? "pd-muted" : D(pnl).gt(0) ? "pd-c-success" : D(pnl).lt(0) ? "pd-c-error" : "pd-text",
    /** Null when the trade has none (the placeholder N/A). */
    roi: roi !== null ? `${roiSign > 0 ? "+" : ""}${formatPercent(roi)}` : null,
    roiClass: roiSign > 0 ? "pd-c-success" : roiSign < 0 ? "pd-c-error" : null,
  };
}

export type TradeView = ReturnType<typeof tradeView>;

function TradeRow({
  trade,
  v,
  open,
  onToggle,
  hydrated,
}: {
  trade: TradeRowData;
  v: TradeView;
  open: boolean;
  onToggle: () => void;
  hydrated: boolean;
}) {
  return (
    <tr
      className={cls("pd-tr pd-hover pd-pointer", open && "pd-open")}
      data-testid="trade-row"
      data-trade-id={trade.id}
      data-status={trade.status}
      aria-expanded={open}
      onClick={onToggle}
    >
      <td className="pd-td pd-nowrap">
        <div className="pd-row">
          <p className="pd-body2 pd-bold" data-testid="trade-symbol">
            {trade.symbol}
          </p>
          <StatusLabel label={v.side} color={v.sideColor} />
        </div>
        <div className="pd-caption">{`${v.quantity} · ${trade.orderType} · ${trade.source}`}</div>
        <div className="pd-caption">
          <TimeText iso={trade.createdAt} short />
        </div>
      </td>
      <td className="pd-td pd-num" data-label="Entry">
        {v.price ?? <Placeholder>Market</Placeholder>}
      </td>
      <td className={cls("pd-td pd-num", v.drawdownClass)} data-label="Max Drawdown" data-testid="trade-drawdown">
        {v.drawdown ?? <Placeholder>N/A</Placeholder>}
      </td>
      <td className="pd-td pd-nowrap" data-label="TP" data-testid="trade-tp">
        {v.takeProfit !== null ? (
          <>
            <div className="pd-body2">{v.takeProfit}</div>
            {v.tpProgress ? <div className="pd-caption">{v.tpProgress}</div> : null}
          </>
        ) : (
          <HydratedTooltip title={TP_TIP}>
            <span>
              <Placeholder>—</Placeholder>
            </span>
          </HydratedTooltip>
        )}
      </td>
      <td className="pd-td pd-nowrap" data-label="SL" data-testid="trade-sl">
        <Placeholder>{v.stop}</Placeholder>
      </td>
      <td className="pd-td" data-label="BE" data-testid="trade-be">
        <Placeholder>{v.breakEven}</Placeholder>
      </td>
      <td className="pd-td" data-label="Trailing" data-testid="trade-trailing">
        <Placeholder>{v.trailing}</Placeholder>
      </td>
      <td className="pd-td" data-label="Portfolio">
        100%
      </td>
      <td className={`pd-td pd-num ${v.pnlClass}`} data-label="P/L" data-testid="trade-pnl">
        {v.pnl}
      </td>
      <td className={cls("pd-td pd-num", v.roiClass)} data-label="ROI" data-testid="trade-roi">
        {v.roi ?? <Placeholder>N/A</Placeholder>}
      </td>
      <td className={`pd-td ${CARD_TOP}`}>
        <TradeStatusLabel status={trade.status} reason={trade.errorMessage} testId="trade-status" />
      </td>
      <td className={`pd-td pd-right ${CARD_TOP}`}>
        {/* The details load with JavaScript only, so the button comes with hydration: 50 IconButtons
            less in every server render (decision 043). */}
        {hydrated ? (
          <ExpandButton
            label={open ? `Hide details of trade ${shortId(trade.id)}` : `Show details of trade ${shortId(trade.id)}`}
            open={open}
            onToggle={onToggle}
          />
        ) : null}
      </td>
    </tr>
  );
}

const money = (v: string, decimals: number) => `${toFixed(v, decimals)} USD`;

/** The expanded row: mounted only while expanded, so the details load only then. */
export function TradeDetailsPanel({ id }: { id: string }) {
  const toast = useToast();
  const { data, error, isLoading } = useApiQuery<TradeDetails & { chart?: PriceChartData | null }>(detailsUrl(id), {
    refetchIntervalMs: DETAILS_POLL_MS,
  });
  // One toast per failure (the poll keeps trying; a later success clears the message).
  const failing = useRef(false);
  useEffect(() => {
    if (error && !failing.current) {
      failing.current = true;
      toast({
        title: "Failed to Load Trade Details",
        description: errorText(error, "Network error"),
        variant: "destructive",
      });
    }
    if (!error) failing.current = false;
  }, [error, toast]);

  if (error) {
    return (
      <Alert severity="error" data-testid="trade-details-error">
        Failed to load trade details. Collapse the row and expand it again to retry.
      </Alert>
    );
  }
  if (!data && isLoading) {
    return (
      <Stack direction="row" spacing={1.5} sx={{ alignItems: "center", py: 1 }} data-testid="trade-details-loading">
        <CircularProgress size={18} />
        <Typography variant="body2" color="text.secondary">
          Loading trade details...
        </Typography>
      </Stack>
    );
  }
  if (!data?.trade) {
    return (
      <Typography variant="body2" color="text.secondary" data-testid="trade-details-none">
        No detailed data available for this trade
      </Typography>
    );
  }
  const { trade, relatedSignal, relatedTrades, metrics, timeline } = data;
  return (
    <Box data-testid="trade-details">
      <Box sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr 1fr", md: "repeat(4, minmax(0, 1fr))" } }}>
        <LabelledValue label="Trade ID" testId="detail-trade-id">
          <HydratedTooltip title={trade.id}>
            <Box component="span" sx={{ fontFamily: "monospace" }}>
              {shortId(trade.id)}
            </Box>
          </HydratedTooltip>
        </LabelledValue>
        <LabelledValue label="Exchange" testId="detail-exchange">
          {exchangeLabel(trade.exchange)}
        </LabelledValue>
        <LabelledValue label="Order ID" testId="detail-order-id">
          <Box component="span" sx={{ fontFamily: "monospace" }} title={trade.orderId ?? undefined}>
            {shortOrderId(trade.orderId)}
          </Box>
        </LabelledValue>
        <LabelledValue label="Source" testId="detail-source">
          {trade.source}
        </LabelledValue>
        <LabelledValue label="Side and amount">{`${trade.side.toUpperCase()} ${formatQuantity(trade.quantity)} ${trade.symbol}${trade.leverage ? ` · ${trade.leverage}x ${trade.marginType ?? ""}` : ""}`}</LabelledValue>
        <LabelledValue label="Created">
          <TimeText iso={trade.createdAt} />
        </LabelledValue>
        <LabelledValue label="Executed">{trade.executedAt ? <TimeText iso={trade.executedAt} /> : "—"}</LabelledValue>
        <LabelledValue label="Related signal" testId="detail-signal">
          {relatedSignal ? (
            <>
              <Box component="span" sx={{ fontFamily: "monospace" }}>
                {shortId(relatedSignal.id)}
              </Box>
              {` · ${relatedSignal.action.toUpperCase()} · `}
              <TimeText iso={relatedSignal.createdAt} />
            </>
          ) : (
            "None (not from a signal)"
          )}
        </LabelledValue>
        <LabelledValue label="Total value" testId="detail-total-value">
          {money(metrics.totalValue, 2)}
        </LabelledValue>
        <LabelledValue label="Estimated fees" testId="detail-fees">
          {money(metrics.estimatedFees, 4)}
        </LabelledValue>
        <LabelledValue label="Executed quantity" testId="detail-executed-quantity">
          {formatQuantity(metrics.executedQuantity)}
        </LabelledValue>
        {trade.errorMessage ? <LabelledValue label="Error">{trade.errorMessage}</LabelledValue> : null}
      </Box>
      {data.chart ? (
        <Box sx={{ mt: 2 }}>
          <PriceChart data={data.chart} title={trade.positionId ? "Position price chart" : "Price around the fill"} />
        </Box>
      ) : null}
      {timeline ? (
        <Box sx={{ mt: 2, maxWidth: 560 }} data-testid="trade-signal-timeline">
          <Typography variant="subtitle2" component="h3" sx={{ mb: 0.5 }}>
            Signal latency timeline
          </Typography>
          <SignalTimelineView timeline={timeline} />
        </Box>
      ) : null}
      <Typography variant="subtitle2" component="h3" sx={{ mt: 2, mb: 0.5 }}>
        Related trades
      </Typography>
      {relatedTrades.length === 0 ? (
        <Typography variant="body2" color="text.secondary" data-testid="related-trades-none">
          No related trades
        </Typography>
      ) : (
        <Table size="small" aria-label="Related trades" data-testid="related-trades">
          <TableHead>
            <TableRow>
              <TableCell>Trade</TableCell>
              <TableCell>Side</TableCell>
              <TableCell align="right">Quantity</TableCell>
              <TableCell align="right">Price</TableCell>
              <TableCell>Source</TableCell>
              <TableCell>Status</TableCell>
              <TableCell>Created</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {relatedTrades.map((t) => (
              <TableRow key={t.id} data-testid="related-trade">
                <TableCell sx={{ fontFamily: "monospace" }}>{shortId(t.id)}</TableCell>
                <TableCell sx={{ color: t.side === "buy" ? "primary.main" : "error.main" }}>
                  {t.side.toUpperCase()}
                </TableCell>
                <TableCell align="right">{formatQuantity(tradeQuantity(t))}</TableCell>
                <TableCell align="right">{formatPrice(tradePrice(t))}</TableCell>
                <TableCell>{t.source}</TableCell>
                <TableCell>
                  <TradeStatusChip status={t.status} testId="trade-status" />
                </TableCell>
                <TableCell>
                  <TimeText iso={t.createdAt} />
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
    </Box>
  );
}
