// How a signal is named on screen and in its log line (issue 25): a target-position alert
// (decision 023) is sized by its target, so its `quantity` (TradingView's order size, often the
// placeholder 1) is ignored and never shown as if it were the order; the target is shown instead.
import { storedPositionTarget } from "./schemas/webhook-signal.ts";

interface SignalLike {
  action: string;
  symbol: string;
  quantity: string;
  price?: string | null;
  payload?: Record<string, unknown> | null;
}

/** "target long 2", "target flat", or null for an alert that is not a target alert. */
export function signalTargetText(payload: Record<string, unknown> | null | undefined): string | null {
  const target = storedPositionTarget(payload);
  if (!target) return null;
  return target.side === "flat" ? "target flat" : `target ${target.side} ${target.size}`;
}

/** "BUY 0.5 ETH-PERP", or for a target alert "BUY ETH-PERP (target long 2)". */
export function signalLabel(signal: SignalLike): string {
  const target = signalTargetText(signal.payload);
  const head = target
    ? `${signal.action.toUpperCase()} ${signal.symbol} (${target})`
    : `${signal.action.toUpperCase()} ${signal.quantity} ${signal.symbol}`;
  return `${head}${signal.price ? ` @ ${signal.price}` : ""}`;
}

/** The compact line the dashboard's signal row shows: the target instead of the ignored quantity. */
export function signalCaption(signal: SignalLike): Record<string, string | undefined> {
  const target = storedPositionTarget(signal.payload);
  const base = { action: signal.action, symbol: signal.symbol, price: signal.price ?? undefined };
  if (!target) return { ...base, qty: signal.quantity };
  return { ...base, target: target.side === "flat" ? "flat" : `${target.side} ${target.size}` };
}
