// cancel-order (issue 11): a person cancels a resting order (Cancel, Cancel all, flatten).
// The exchange cancels it (the simulator releases its hold at once) and the trade is booked
// with the same bookOrder as every other outcome: `cancelled`, or what it became if it
// filled meanwhile (a partly filled order keeps its fill). Idempotent: a trade no longer
// pending is left as it is.
import type { z } from "zod";
import { InvalidOrderError, OrderNotFoundError } from "../../app/core/exchange/errors.ts";
import type { ExchangeOrder } from "../../app/core/exchange/types.ts";
import type { CancelOrderPayload } from "../../app/core/schemas/job-payloads.ts";
import { recordActivity } from "../../db/queries/activity-logs.ts";
import { getTrade } from "../../db/queries/trades.ts";
import { PermanentFailure, bookOrder } from "../execution.ts";
import type { TaskContext } from "./index.ts";

export async function cancelOrder(ctx: TaskContext, payload: z.infer<typeof CancelOrderPayload>): Promise<string> {
  const trade = await getTrade(ctx.db, payload.tradeId);
  if (!trade) throw new PermanentFailure(`Trade ${payload.tradeId} not found`);
  if (trade.status !== "pending") return trade.status;
  if (!trade.orderId) throw new PermanentFailure("The order has not reached the exchange yet: nothing to cancel");

  let order: ExchangeOrder;
  try {
    order = await ctx.exchange.cancelOrder(trade.orderId);
  } catch (error) {
    // Filled (or gone) before the cancel arrived: book what it is now.
    if (!(error instanceof InvalidOrderError) && !(error instanceof OrderNotFoundError)) throw error;
    order = await ctx.exchange.getOrder(trade.orderId);
  }
  const status = await bookOrder(ctx.db, trade, order, ctx.exchange.name);
  await recordActivity(ctx.db, {
    type: "trade",
    level: status === "cancelled" ? "info" : "warning",
    message:
      status === "cancelled"
        ? `Order cancelled by ${payload.requestedBy}: ${trade.side.toUpperCase()} ${trade.quantity} ${trade.symbol}${trade.price ? ` @ ${trade.price}` : ""}`
        : `Cancel of ${trade.side.toUpperCase()} ${trade.quantity} ${trade.symbol} came too late: the order is ${status}`,
    data: { tradeId: trade.id, orderId: trade.orderId, status, by: payload.requestedBy },
  });
  return status;
}
