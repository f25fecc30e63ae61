// Recent orders and open positions on the dashboard, so a signal can be followed to its
// order and position without leaving the page.
import type { PositionSummary, RecentOrder } from "#app/core/dashboard-view.ts";
import { D } from "#app/core/decimal.ts";
import { formatPnl, formatPrice, formatQuantity } from "#app/core/format.ts";
import Table from "@mui/material/Table";
import Typography from "@mui/material/Typography";
import { StatusLabel, TradeStatusLabel } from "../trade-status-chip.tsx";
import { ColumnHeads } from "../ui/column-heads.tsx";
import { PanelCard } from "../ui/panel-card.tsx";
import { S } from "./orders-panel.css.ts";

// MUI's Table with plain rows and the static row classes (app/styles/rows.css.ts), as in Trade
// History: no styled component per cell when the dashboard is server-rendered (decision 043).
const ORDER_COLUMNS = ["Symbol", "Side", "Quantity", "Price", "Source", "Status"];

export function RecentOrders({ trades }: { trades: RecentOrder[] }) {
  return (
    <PanelCard data-testid="recent-orders" title="Recent Orders" flush contentClassName={S.scroll}>
      {trades.length === 0 ? (
        <Typography color="text.secondary">No orders yet</Typography>
      ) : (
        <Table size="small">
          <ColumnHeads columns={ORDER_COLUMNS} right={["Quantity", "Price"]} />
          <tbody>
            {trades.map((t) => (
              <tr key={t.id} data-testid="order-row" className="pd-tr">
                <td className="pd-td">{t.symbol}</td>
                <td className={t.side === "buy" ? "pd-td pd-c-primary" : "pd-td pd-c-error"}>{t.side.toUpperCase()}</td>
                <td className="pd-td pd-right">
                  {formatQuantity(t.executedQuantity !== "0" ? t.executedQuantity : t.quantity)}
                </td>
                <td className="pd-td pd-right">{formatPrice(t.executedPrice ?? t.price)}</td>
                <td className="pd-td">{t.source}</td>
                <td className="pd-td">
                  <TradeStatusLabel status={t.status} reason={t.errorMessage} />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </PanelCard>
  );
}

export type { PositionSummary };

export function OpenPositions({ positions }: { positions: PositionSummary[] }) {
  return (
    <PanelCard data-testid="open-positions" title="Open Positions" flush>
      {positions.length === 0 ? (
        <Typography color="text.secondary">No open positions</Typography>
      ) : (
        positions.map((p) => (
          <div key={p.id} data-testid="position-row" className={S.position}>
            <p className={`pd-body1 ${S.symbol}`}>{p.symbol}</p>
            <StatusLabel label={p.side.toUpperCase()} color={p.side === "long" ? "primary" : "error"} />
            <p className="pd-body2">{formatQuantity(p.remainingQuantity)}</p>
            <p className="pd-body2 pd-muted">
              {formatPrice(p.entryPrice)} → {formatPrice(p.currentPrice)}
            </p>
            <p
              className={`pd-body2 ${S.pnl} ${p.unrealizedPnl && D(p.unrealizedPnl).lt(0) ? "pd-c-error" : "pd-c-success"}`}
            >
              {formatPnl(p.unrealizedPnl)}
            </p>
          </div>
        ))
      )}
    </PanelCard>
  );
}
