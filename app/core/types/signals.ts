// Signals received from TradingView (docs/spec/api.md#shapes Signal); db/queries/signals.ts stores them.

/** `cancelled`: its order was cancelled before anything filled (issue 25: its own neutral state, not a failure). */
export type SignalStatus = "queued" | "executed" | "skipped" | "failed" | "cancelled";

export interface Signal {
  id: string;
  action: "buy" | "sell";
  symbol: string;
  orderType: "market" | "limit";
  price: string | null;
  quantity: string;
  payload: Record<string, unknown>;
  strategy: string | null;
  processed: boolean;
  status: SignalStatus;
  statusReason: string | null;
  signalTime: string | null;
  createdAt: string;
  processedAt: string | null;
  dedupeKey: string | null;
  /** The strategy whose secret the alert carried; null = the global secret ("default"). */
  strategyId: string | null;
}
