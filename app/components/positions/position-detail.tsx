// The expanded detail of one position: ids, exchange, side and amount, the related signal,
// its trades and the metrics. Mounted only while the row is expanded, so it loads only then
// (GET /api/positions/{id}/details, every 10 s, docs/spec/screens.md#states and api.md).
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import CircularProgress from "@mui/material/CircularProgress";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import Typography from "@mui/material/Typography";
import { useEffect, useRef } from "react";
import type { PositionDetails } from "#app/services/positions.server.ts";
import { ApiError } from "#app/utils/api-client.ts";
import {
  formatDateTime,
  formatPnl,
  formatPrice,
  formatQuantity,
  shortId,
  formatVolume,
  shortOrderId,
} from "#app/core/format.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { LabelledValue } from "../labelled-value.tsx";
import { TradeStatusChip } from "../trade-status-chip.tsx";
import { useToast } from "../toaster.tsx";
import { tradeTypeText } from "./position-texts.ts";
import { PriceChart } from "../charts/price-chart.tsx";
import { useCan } from "../layout/permissions.tsx";

export const DETAILS_POLL_MS = 10_000;

// Zero intrinsic width (width 0, min-width 100 %): the detail's content never widens the
// positions table; its trades table scrolls inside instead.
const DETAIL_SX = { p: 2, width: 0, minWidth: "100%", boxSizing: "border-box" } as const;

/** What /api/positions/:id/details answers (the position itself aside). */
export type PositionDetailsResponse = Omit<PositionDetails, "position">;

/** The reason a details call failed: the server's words, a timeout, or 'Network error'. */
export function detailsErrorText(error: unknown): string {
  if (error instanceof ApiError) return error.serverMessage || "Network error";
  return "Network error";
}

export function PositionDetail({
  position,
}: {
  position: { id: string; symbol: string; side: "long" | "short"; quantity: string; entryTradeId: string | null };
}) {
  const query = useApiQuery<PositionDetailsResponse>(`/api/positions/${position.id}/details`, {
    refetchIntervalMs: DETAILS_POLL_MS,
  });
  const toast = useToast();
  const toasted = useRef<Error | null>(null);
  useEffect(() => {
    if (query.error && query.error !== toasted.current) {
      toasted.current = query.error;
      toast({
        title: "Failed to Load Position Details",
        description: detailsErrorText(query.error),
        variant: "destructive",
      });
    }
  }, [query.error, toast]);

  const data = query.data;
  // Whoever may trade edits the position in place (decision 048): the same server-rendered form as the row's Edit link.
  const canEdit = useCan("positions.close");
  const header = (
    <>
      {canEdit ? (
        <Typography variant="body2" sx={{ mb: 1 }}>
          <a
            href={`/positions?edit=${encodeURIComponent(position.id)}`}
            className="pd-c-primary"
            data-testid="detail-edit-link"
          >
            Edit stop loss, take-profits, break-even, trailing, or close part
          </a>
        </Typography>
      ) : null}
      <Box sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr 1fr", md: "repeat(5, 1fr)" }, mb: 2 }}>
        <LabelledValue numeric label="Position ID" testId="detail-position-id">
          {shortId(position.id)}
        </LabelledValue>
        <LabelledValue numeric label="Exchange" testId="detail-exchange">
          {data?.exchange.label ?? "—"}
        </LabelledValue>
        <LabelledValue numeric label="Entry Trade" testId="detail-entry-trade">
          {shortId(position.entryTradeId)}
        </LabelledValue>
        <LabelledValue numeric label="Side / Amount" testId="detail-side">
          {position.side.toUpperCase()} {formatQuantity(position.quantity)} {position.symbol}
        </LabelledValue>
        <LabelledValue numeric label="Related Signal" testId="detail-signal">
          {data?.relatedSignal
            ? `${shortId(data.relatedSignal.id)} · ${data.relatedSignal.action.toUpperCase()} · ${formatDateTime(data.relatedSignal.createdAt)}`
            : data
              ? "None (manual)"
              : "—"}
        </LabelledValue>
      </Box>
    </>
  );

  if (!data) {
    return (
      <Box data-testid="position-detail" sx={DETAIL_SX}>
        {header}
        {query.error ? (
          <Alert severity="error" data-testid="position-detail-error">
            Failed to load the details: {detailsErrorText(query.error)}. Collapse and expand the row to try again.
          </Alert>
        ) : (
          <Box sx={{ display: "flex", alignItems: "center", gap: 1 }}>
            <CircularProgress size={18} />
            <Typography variant="body2" color="text.secondary">
              Loading details...
            </Typography>
          </Box>
        )}
      </Box>
    );
  }

  return (
    <Box data-testid="position-detail" sx={DETAIL_SX}>
      {header}
      {data.chart ? (
        <Box sx={{ mb: 2 }}>
          {/* The Positions screen lists open positions: their marks offer Edit (decision 048). */}
          <PriceChart data={data.chart} edit={canEdit ? { id: position.id } : null} />
        </Box>
      ) : null}
      <Typography variant="subtitle2" component="h3" sx={{ mb: 1 }}>
        Trades
      </Typography>
      <Box sx={{ overflowX: "auto", mb: 2 }}>
        <Table size="small" data-testid="position-trades">
          <TableHead>
            <TableRow>
              <TableCell>Order ID</TableCell>
              <TableCell>Type</TableCell>
              <TableCell align="right">Price</TableCell>
              <TableCell align="right">Amount</TableCell>
              <TableCell>Created At</TableCell>
              <TableCell>Last Updated At</TableCell>
              <TableCell>Status</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {data.trades.length === 0 ? (
              <TableRow>
                <TableCell colSpan={7}>
                  <Typography variant="body2" color="text.secondary">
                    No trades recorded for this position
                  </Typography>
                </TableCell>
              </TableRow>
            ) : (
              data.trades.map((t) => (
                <TableRow key={t.id} data-testid="position-trade-row">
                  <TableCell sx={{ fontFamily: "monospace" }}>{shortOrderId(t.orderId ?? t.clientOrderId)}</TableCell>
                  <TableCell>{tradeTypeText(position.side, t.side)}</TableCell>
                  <TableCell align="right">{formatPrice(t.executedPrice ?? t.price)}</TableCell>
                  <TableCell align="right">
                    {formatQuantity(t.executedQuantity !== "0" ? t.executedQuantity : t.quantity)}
                  </TableCell>
                  <TableCell>{formatDateTime(t.createdAt)}</TableCell>
                  <TableCell>{formatDateTime(t.updatedAt)}</TableCell>
                  <TableCell>
                    <TradeStatusChip status={t.status} reason={t.errorMessage} />
                  </TableCell>
                </TableRow>
              ))
            )}
          </TableBody>
        </Table>
      </Box>
      <Box sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr 1fr", md: "repeat(3, 1fr)" } }}>
        <LabelledValue numeric label="Total Volume" testId="detail-volume">
          {formatVolume(data.metrics.totalVolume)} USDC
        </LabelledValue>
        <LabelledValue numeric label="Estimated Fees" testId="detail-fees">
          {formatPrice(data.metrics.estimatedFees)} USDC
        </LabelledValue>
        <LabelledValue numeric label="Unrealized P&L" testId="detail-unrealized">
          {formatPnl(data.metrics.unrealizedPnL)} USDC
        </LabelledValue>
      </Box>
    </Box>
  );
}
