// Trades as the app shows and books them (docs/spec/api.md#shapes Trade); db/queries/trades.ts reads and writes them.

/** unknown: the order may be on the exchange, its outcome could not be learnt after every retry (reconciled by the worker). */
export type TradeStatus = "pending" | "executed" | "completed" | "failed" | "cancelled" | "unknown";

export interface Trade {
  id: string;
  symbol: string;
  side: "buy" | "sell";
  orderType: "market" | "limit";
  quantity: string;
  price: string | null;
  executedPrice: string | null;
  executedQuantity: string;
  fee: string;
  status: TradeStatus;
  source: string;
  orderId: string | null;
  clientOrderId: string;
  exchange: string;
  signalId: string | null;
  positionId: string | null;
  jobId: number | null;
  leverage: number | null;
  marginType: string | null;
  reduceOnly: boolean;
  errorMessage: string | null;
  /** P&L this trade realised by closing FIFO lots, net of fees (docs/pnl.md); null when it closed nothing. */
  realizedPnl: string | null;
  /** The strategy of the signal that made it (docs/decisions/027-strategies.md); absent on older reads. */
  strategyId?: string | null;
  createdAt: string;
  executedAt: string | null;
  updatedAt: string;
}
