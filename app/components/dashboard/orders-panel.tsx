// Recent orders and open positions on the dashboard, so a signal can be followed to its
// order and position without leaving the page.
import type { Trade } from "#app/core/types/trades.ts";
import { D } from "#app/core/decimal.ts";
import { formatPnl, formatPrice, formatQuantity } from "#app/core/format.ts";
import { TradeStatusChip } from "../trade-status-chip.tsx";
import { CARD, LeanCard, LeanChip, TABLE, T, cls } from "../ui/lean.tsx";
import { S } from "./orders-panel.css.ts";

// Plain elements with the lean classes (components/ui/lean.tsx), as in Trade History: no
// styled component per cell when the dashboard is server-rendered.
export function RecentOrders({ trades }: { trades: Trade[] }) {
  return (
    <LeanCard data-testid="recent-orders" title="Recent Orders" contentClassName={cls(CARD.flush, S.scroll)}>
      {trades.length === 0 ? (
        <p className={cls(T.body1, T.muted)}>No orders yet</p>
      ) : (
        <table className={TABLE.table}>
          <thead>
            <tr className="pd-tr">
              <th scope="col" className={cls("pd-td", TABLE.head)}>Symbol</th>
              <th scope="col" className={cls("pd-td", TABLE.head)}>Side</th>
              <th scope="col" className={cls("pd-td pd-right", TABLE.head)}>Quantity</th>
              <th scope="col" className={cls("pd-td pd-right", TABLE.head)}>Price</th>
              <th scope="col" className={cls("pd-td", TABLE.head)}>Source</th>
              <th scope="col" className={cls("pd-td", TABLE.head)}>Status</th>
            </tr>
          </thead>
          <tbody>
            {trades.map((t) => (
              <tr key={t.id} data-testid="order-row" className="pd-tr">
                <td className="pd-td">{t.symbol}</td>
                <td className={t.side === "buy" ? "pd-td pd-c-primary" : "pd-td pd-c-error"}>{t.side.toUpperCase()}</td>
                <td className="pd-td pd-right">{formatQuantity(t.executedQuantity !== "0" ? t.executedQuantity : t.quantity)}</td>
                <td className="pd-td pd-right">{formatPrice(t.executedPrice ?? t.price)}</td>
                <td className="pd-td">{t.source}</td>
                <td className="pd-td">
                  <TradeStatusChip status={t.status} reason={t.errorMessage} />
                </td>
              </tr>
          ))}
          </tbody>
        </table>
      )}
    </LeanCard>
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
    <LeanCard data-testid="open-positions" title="Open Positions" contentClassName={CARD.flush}>
      {positions.length === 0 ? (
        <p className={cls(T.body1, T.muted)}>No open positions</p>
      ) : (
        positions.map((p) => (
          <div key={p.id} data-testid="position-row" className={S.position}>
            <p className={cls(T.body1, S.symbol)}>{p.symbol}</p>
            <LeanChip label={p.side.toUpperCase()} color={p.side === "long" ? "primary" : "error"} variant="outlined" />
            <p className={T.body2}>{formatQuantity(p.remainingQuantity)}</p>
            <p className={cls(T.body2, T.muted)}>
              {formatPrice(p.entryPrice)} → {formatPrice(p.currentPrice)}
            </p>
            <p className={cls(T.body2, S.pnl, p.unrealizedPnl && D(p.unrealizedPnl).lt(0) ? "pd-c-error" : "pd-c-success")}>{formatPnl(p.unrealizedPnl)}</p>
          </div>
        ))
      )}
    </LeanCard>
  );
}
