// "Send test alert" (issue 12): an alert marked `"test": true` goes through the real public
// endpoint, the signal table, the job queue and the worker like any other, is sized the same
// way, and then is traded on the SIMULATOR whatever exchange is active, on its own paper
// account ("Test alerts", never the one the app's book follows): opened and closed again at
// once, so no position, no P&L and nothing on the exchange. Each hop is stamped on the signal's
// latency timeline; the outcome is the signal's status and reason.
import { D, toFixed } from "../../app/core/decimal.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import type { ExchangeOrder, OrderSide } from "../../app/core/exchange/types.ts";
import { recordActivity } from "../../db/queries/activity-logs.ts";
import { appendEvents } from "../../db/queries/events.ts";
import { stampSignal } from "../../db/queries/signal-timeline.ts";
import { type Signal, updateSignalStatus } from "../../db/queries/signals.ts";
import { newClientOrderId } from "../../db/queries/trades.ts";
import type { ExecutionContext } from "../execution.ts";

/** profiles.id of the paper account test alerts trade on. */
export const TEST_ALERTS_PROFILE_ID = "simulator-test-alerts";

export const isTestAlert = (payload: Record<string, unknown> | null | undefined) => payload?.test === true;

export async function executeTestAlert(
  ctx: ExecutionContext,
  signal: Signal,
  order: { side: OrderSide; quantity: string; leverage: number },
): Promise<"executed" | "failed"> {
  const simulator = new SimulatorAdapter(ctx.db, {
    profileId: TEST_ALERTS_PROFILE_ID,
    profileName: "Test alerts (paper)",
  });
  const describe = `${order.side.toUpperCase()} ${order.quantity} ${signal.symbol}`;
  let outcome: { status: "executed" | "failed"; reason: string };
  try {
    stampSignal(ctx.db, signal.id, "sent");
    const type = signal.orderType === "limit" && signal.price ? "limit" : "market";
    const placed: ExchangeOrder = await simulator.placeOrder({
      clientOrderId: newClientOrderId(),
      symbol: signal.symbol,
      side: order.side,
      type,
      quantity: order.quantity,
      price: type === "limit" ? signal.price : null,
      leverage: order.leverage,
    });
    stampSignal(ctx.db, signal.id, "acked");
    if (placed.status === "open") {
      await simulator.cancelOrder(placed.orderId);
      outcome = {
        status: "executed",
        reason: `Test alert: ${describe} limit @ ${signal.price} accepted by the simulator's test account (it would rest; cancelled at once). No position, no P&L`,
      };
    } else if (placed.status === "filled") {
      stampSignal(ctx.db, signal.id, "filled");
      // Flat again at once: the test account never carries a position.
      await simulator.placeOrder({
        clientOrderId: newClientOrderId(),
        symbol: signal.symbol,
        side: order.side === "buy" ? "sell" : "buy",
        type: "market",
        quantity: placed.filledQuantity,
        reduceOnly: true,
        leverage: order.leverage,
      });
      const price = placed.averagePrice ? toFixed(placed.averagePrice, D(placed.averagePrice).gte(100) ? 2 : 4) : "?";
      outcome = {
        status: "executed",
        reason: `Test alert: ${describe} filled at ${price} on the simulator's test account (closed again at once). No position, no P&L`,
      };
    } else {
      outcome = {
        status: "failed",
        reason: `Test alert: ${describe} ${placed.status} by the simulator: ${placed.rejectReason ?? "no reason given"}`,
      };
    }
  } catch (error) {
    outcome = {
      status: "failed",
      reason: `Test alert: ${describe} refused by the simulator: ${(error as Error).message}`,
    };
  }
  await ctx.db.transaction().execute(async (trx) => {
    await updateSignalStatus(trx, signal.id, outcome.status, outcome.reason);
    await recordActivity(trx, {
      type: "signal",
      level: outcome.status === "executed" ? "success" : "error",
      message: outcome.reason,
      data: { signalId: signal.id, test: true },
    });
    await appendEvents(trx, [
      { type: "dashboard_update", data: { reason: "test-alert", signalId: signal.id, status: outcome.status } },
    ]);
  });
  return outcome.status;
}
