// Recent orders and open positions on the dashboard, so a signal can be followed to its
// order and position without leaving the page.
import Box from "@mui/material/Box";
import Card from "@mui/material/Card";
import CardContent from "@mui/material/CardContent";
import CardHeader from "@mui/material/CardHeader";
import Chip from "@mui/material/Chip";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import Tooltip from "@mui/material/Tooltip";
import Typography from "@mui/material/Typography";
import type { Trade } from "#db/queries/trades.ts";
import { formatPnl, formatPrice, formatQuantity } from "#app/utils/format.ts";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { LeanStatusChip } from "../ui/lean.tsx";

/** SPEC.md §4: completed and executed green, pending secondary, failed destructive, others outline. */
export function TradeStatusChip({ status, reason }: { status: string; reason?: string | null }) {
  const chip =
    status === "executed" || status === "completed" ? (
      <Chip size="small" color="success" label={status} />
    ) : status === "pending" ? (
      <Chip size="small" color="secondary" label={status} />
    ) : status === "failed" ? (
      <Chip size="small" color="error" label={status} />
    ) : (
      <Chip size="small" variant="outlined" label={status} />
    );
  return reason ? <Tooltip title={reason}>{chip}</Tooltip> : chip;
}

// The rows are plain elements with the lean classes (components/ui/lean.tsx), as in Trade
// History: no styled component per cell when the dashboard is server-rendered. The page
// renders their stylesheet (./dashboard-styles.tsx).
export function RecentOrders({ trades }: { trades: Trade[] }) {
  const hydrated = useHydrated();
  return (
    <Card variant="outlined" data-testid="recent-orders">
      <CardHeader title="Recent Orders" slotProps={{ title: { variant: "h3", component: "h2" } }} />
      <CardContent sx={{ pt: 0, overflowX: "auto" }}>
        {trades.length === 0 ? (
          <Typography color="text.secondary">No orders yet</Typography>
        ) : (
          <Table size="small">
            <TableHead>
              <TableRow>
                <TableCell>Symbol</TableCell>
                <TableCell>Side</TableCell>
                <TableCell align="right">Quantity</TableCell>
                <TableCell align="right">Price</TableCell>
                <TableCell>Source</TableCell>
                <TableCell>Status</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {trades.map((t) => (
                <tr key={t.id} data-testid="order-row" className="pd-tr">
                  <td className="pd-td">{t.symbol}</td>
                  <td className={t.side === "buy" ? "pd-td pd-c-primary" : "pd-td pd-c-error"}>{t.side.toUpperCase()}</td>
                  <td className="pd-td pd-right">{formatQuantity(t.executedQuantity !== "0" ? t.executedQuantity : t.quantity)}</td>
                  <td className="pd-td pd-right">{formatPrice(t.executedPrice ?? t.price)}</td>
                  <td className="pd-td">{t.source}</td>
                  <td className="pd-td">
                    <LeanStatusChip status={t.status} reason={t.errorMessage} hydrated={hydrated} />
                  </td>
                </tr>
              ))}
            </TableBody>
          </Table>
        )}
      </CardContent>
    </Card>
  );
}

export interface PositionSummary {
  id: string;
  symbol: string;
  side: "long" | "short";
  remainingQuantity: string;
  entryPrice: string;
  currentPrice: string | null;
  unrealizedPnl: string | null;
}

export function OpenPositions({ positions }: { positions: PositionSummary[] }) {
  return (
    <Card variant="outlined" data-testid="open-positions">
      <CardHeader title="Open Positions" slotProps={{ title: { variant: "h3", component: "h2" } }} />
      <CardContent sx={{ pt: 0 }}>
        {positions.length === 0 ? (
          <Typography color="text.secondary">No open positions</Typography>
        ) : (
          positions.map((p) => (
            <Box key={p.id} data-testid="position-row" sx={{ display: "flex", gap: 2, py: 0.75, borderBottom: 1, borderColor: "divider", alignItems: "center" }}>
              <Typography sx={{ fontWeight: 600, minWidth: 90 }}>{p.symbol}</Typography>
              <Chip size="small" label={p.side.toUpperCase()} color={p.side === "long" ? "primary" : "error"} variant="outlined" />
              <Typography variant="body2">{formatQuantity(p.remainingQuantity)}</Typography>
              <Typography variant="body2" color="text.secondary">
                {formatPrice(p.entryPrice)} → {formatPrice(p.currentPrice)}
              </Typography>
              <Typography variant="body2" sx={{ ml: "auto", color: p.unrealizedPnl && Number(p.unrealizedPnl) < 0 ? "error.main" : "success.main" }}>
                {formatPnl(p.unrealizedPnl)}
              </Typography>
            </Box>
          ))
        )}
      </CardContent>
    </Card>
  );
}
