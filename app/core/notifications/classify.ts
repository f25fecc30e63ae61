// Which activity-log lines are notification events (decision 030): the notifier tails
// `activity_logs` by id and asks this pure function about each line. The lines are written in
// the same transaction as the state change they describe (a fill, a failure, a drift ...), so a
// line that exists is a change that happened. Matching uses the line's type, level and data
// keys first and the start of its message only where the data alone cannot tell.
import type { NotificationEvent } from "./events.ts";

export interface LogLine {
  id: number;
  type: string;
  level: string;
  message: string;
  data: Record<string, unknown>;
  createdAt: number;
}

export interface Detected {
  event: NotificationEvent;
  title: string;
  body: string;
  /** A fill: the notifier reads the trade to tell whether it closed a position (with its P&L). */
  tradeId?: string;
  /** The position this fill closed when it also opened another (a flip, issue 25): its close is notified too. */
  closedPositionId?: string;
}

const str = (v: unknown) => (typeof v === "string" ? v : v == null ? "" : String(v));

export function classifyLogLine(line: LogLine): Detected | null {
  const d = line.data ?? {};
  const m = line.message;
  if (line.type === "trade") {
    if (
      line.level === "success" &&
      d.tradeId &&
      d.orderId !== undefined &&
      d.price !== undefined &&
      d.source !== "reconcile"
    ) {
      return {
        event: "order_filled",
        title: `Order filled: ${str(d.side).toUpperCase()} ${str(d.quantity)} ${str(d.symbol)} @ ${str(d.price)}`,
        body: m,
        tradeId: str(d.tradeId),
        ...(d.closedPositionId ? { closedPositionId: str(d.closedPositionId) } : {}),
      };
    }
    if (
      line.level === "error" &&
      d.tradeId &&
      (m.startsWith("Order failed") || m.startsWith("Order cancelled by the exchange"))
    ) {
      return {
        event: "order_failed",
        title: `Order failed: ${str(d.side).toUpperCase()} ${str(d.quantity)} ${str(d.symbol)}`,
        body: m,
      };
    }
    if (d.trigger && d.closeQuantity !== undefined && d.positionId) {
      const trigger = str(d.trigger);
      const what =
        trigger === "sl"
          ? "Stop-loss"
          : trigger.startsWith("trail")
            ? "Trailing stop"
            : trigger.startsWith("tp")
              ? `Take-profit ${trigger.slice(2)}`.trim()
              : `Rule ${trigger}`;
      return { event: "rule_hit", title: `${what} hit on ${str(d.symbol)}`, body: m };
    }
    return null;
  }
  if (line.type === "signal") {
    // Every alert accounted for (issue 25, decision 046): an alert the worker did not execute
    // ("Signal BUY 1 ETH-PERP not executed: <reason>": failed or refused at error level, e.g.
    // below the minimum size, an unknown symbol, a symbol the strategy may not trade; skipped at
    // warning level: too old, emergency stop, another strategy owns the symbol, an order in
    // flight), and one the webhook stored without an order ("Signal received: ... . <reason>",
    // warning: emergency stop, auto trading off, strategy disabled). A webhook refusal (403)
    // is notified by the web process in the signal's own transaction (data.notified).
    if (d.notified === true || !d.signalId) return null;
    const notExecuted = / not executed: /.exec(m);
    if (m.startsWith("Signal ") && notExecuted) {
      const what = m.slice("Signal ".length, notExecuted.index);
      const reason = m.slice(notExecuted.index + notExecuted[0].length);
      if (line.level === "error")
        return { event: "alert_failed", title: `Alert failed: ${what}`, body: `${what} was not executed: ${reason}` };
      if (line.level === "warning")
        return { event: "alert_skipped", title: `Alert skipped: ${what}`, body: `${what} was not executed: ${reason}` };
    }
    if (m.startsWith("Signal received") && (line.level === "warning" || line.level === "error")) {
      const what = `${str(d.action).toUpperCase()} ${str(d.quantity)} ${str(d.symbol)}`;
      const failed = line.level === "error";
      return {
        event: failed ? "alert_failed" : "alert_skipped",
        title: `Alert ${failed ? "refused" : "skipped"}: ${what}`,
        body: m,
      };
    }
    return null;
  }
  if (line.type === "system") {
    if (m.startsWith("Emergency stop activated by "))
      return { event: "emergency_stop", title: "Emergency stop ON", body: m };
    if (m.startsWith("Emergency stop reset by "))
      return { event: "emergency_stop", title: "Emergency stop OFF", body: m };
    if (line.level === "warning" && d.driftId && m.startsWith("Drift on "))
      return { event: "drift", title: `Reconciliation drift on ${str(d.symbol)}`, body: m };
    return null;
  }
  if (line.type === "webhook") {
    if (line.level === "error" && d.strategyKey && m.startsWith("Missed heartbeat"))
      return { event: "missed_alert", title: "Missed alert (heartbeat)", body: m };
    if (line.level === "warning" && m.startsWith("Webhook rejected"))
      return { event: "webhook_rejected", title: "Webhook rejected", body: m };
  }
  return null;
}

/** How many rejections a "Webhook rejected" line stands for (its minute summary says how many followed). */
export function rejectedCount(line: LogLine): number {
  const count = Number(line.data?.count);
  return Number.isInteger(count) && count > 1 ? count - 1 : 1;
}
