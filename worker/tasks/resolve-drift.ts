// resolve-drift (issue 11): a person resolves a drift alarm (worker/monitor/reconcile.ts).
// The exchange is asked again now; the app books the one fill that makes its position equal
// the exchange's (adopt), as a trade of source `reconcile` with no fee (the exchange already
// charged whatever it charged): at the exchange's entry price when the app had nothing, at
// the mark price otherwise. It goes through bookOrder like every fill, so the position, the
// FIFO ledger and the activity log stay one truth. `close` then closes that position at
// market on the exchange with the close-position task (client order id job-<this job>, so a
// retried job finds its order). Idempotent: the adopting trade has client order id
// drift-<drift id>, and a drift already ended is left as it is.
import type { z } from "zod";
import { D } from "../../app/core/decimal.ts";
import { getPrice } from "#exchange/simulator/price-feed.ts";
import { adoptingFill } from "../../app/core/reconcile/compare.ts";
import type { ResolveDriftPayload } from "../../app/core/schemas/job-payloads.ts";
import { recordActivity } from "../../db/queries/activity-logs.ts";
import { closeDrift, getDrift } from "../../db/queries/drifts.ts";
import { appendEvent } from "../../db/queries/events.ts";
import { getOpenPosition } from "../../db/queries/positions.ts";
import { getTrade, getTradeByClientOrderId, insertTrade } from "../../db/queries/trades.ts";
import { newId } from "../../db/queries/util.ts";
import { PermanentFailure, bookOrder } from "../execution.ts";
import { closePosition } from "./close-position.ts";
import type { TaskContext } from "./index.ts";

export async function resolveDrift(ctx: TaskContext, payload: z.infer<typeof ResolveDriftPayload>): Promise<string> {
  const drift = await getDrift(ctx.db, payload.driftId);
  if (!drift) throw new PermanentFailure(`Drift ${payload.driftId} not found`);
  if (drift.status !== "open" && !(payload.action === "close" && drift.resolvedBy === payload.requestedBy))
    return drift.status;
  if (drift.exchange !== ctx.exchange.name)
    throw new PermanentFailure(`The drift is on ${drift.exchange}; the active exchange is ${ctx.exchange.name}`);

  const clientOrderId = `drift-${drift.id}`;
  let note = "nothing to book: the app already matched the exchange";
  if (!(await getTradeByClientOrderId(ctx.db, clientOrderId))) {
    const onExchange = (await ctx.exchange.getPositions()).find((p) => p.symbol === drift.symbol) ?? null;
    const mine = await getOpenPosition(ctx.db, drift.symbol);
    const fill = adoptingFill({
      appSide: mine?.side ?? null,
      appQuantity: mine?.remainingQuantity ?? "0",
      exchangeSide: onExchange?.side ?? null,
      exchangeQuantity: onExchange?.quantity ?? "0",
    });
    if (fill) {
      const price =
        !mine && onExchange
          ? onExchange.entryPrice
          : (onExchange?.markPrice ?? (await getPrice(ctx.db, drift.symbol))?.price ?? mine?.currentPrice ?? null);
      if (!price || D(price).lte(0))
        throw new PermanentFailure(`No price for ${drift.symbol} to book the exchange's position at`);
      const tradeId = newId();
      await insertTrade(ctx.db, {
        id: tradeId,
        symbol: drift.symbol,
        side: fill.side,
        orderType: "market",
        quantity: fill.quantity,
        price: null,
        source: "reconcile",
        clientOrderId,
        exchange: ctx.exchange.name,
        leverage: onExchange?.leverage ?? mine?.leverage ?? 1,
        marginType: onExchange?.marginType ?? mine?.marginType ?? "cross",
      });
      const trade = (await getTrade(ctx.db, tradeId))!;
      const at = new Date().toISOString();
      await bookOrder(
        ctx.db,
        trade,
        {
          orderId: `reconcile-${drift.id}`,
          clientOrderId,
          symbol: drift.symbol,
          side: fill.side,
          type: "market",
          status: "filled",
          quantity: fill.quantity,
          price: null,
          filledQuantity: fill.quantity,
          averagePrice: price,
          fee: "0",
          leverage: trade.leverage ?? 1,
          marginType: trade.marginType === "isolated" ? "isolated" : "cross",
          rejectReason: null,
          createdAt: at,
          updatedAt: at,
        },
        ctx.exchange.name,
      );
      note = `booked ${fill.side.toUpperCase()} ${fill.quantity} ${drift.symbol} @ ${price}`;
    }
  }

  const verb = payload.action === "close" ? "adopted and closed" : "adopted";
  await ctx.db.transaction().execute(async (trx) => {
    if (
      await closeDrift(trx, drift.id, "resolved", `${verb} by ${payload.requestedBy}: ${note}`, payload.requestedBy)
    ) {
      await recordActivity(trx, {
        type: "system",
        level: "info",
        message: `Drift on ${drift.exchange} ${verb} by ${payload.requestedBy}: ${drift.symbol}, ${note}`,
        data: { driftId: drift.id, action: payload.action },
      });
      await appendEvent(trx, "trade_update", { drift: drift.id, symbol: drift.symbol, status: "resolved" });
    }
  });

  if (payload.action === "close") {
    const position = await getOpenPosition(ctx.db, drift.symbol);
    if (!position) return "resolved";
    await closePosition(ctx, {
      positionId: position.id,
      quantity: "all",
      reason: `Drift resolved by ${payload.requestedBy}: close`,
      source: "manual",
      requestedBy: payload.requestedBy,
    });
  }
  return "resolved";
}
