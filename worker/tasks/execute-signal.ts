// execute-signal: a stored signal becomes one order (or a recorded reason why not).
import { marginBalance } from "../../app/core/exchange/types.ts";
import { D } from "../../app/core/decimal.ts";
import { sizeSignalOrder } from "../../app/core/orders/sizing.ts";
import { resolveSymbol } from "../../app/core/products.ts";
import type { ExecuteSignalPayload } from "../../app/core/schemas/job-payloads.ts";
import { recordActivity } from "../../db/queries/activity-logs.ts";
import { appendEvent } from "../../db/queries/events.ts";
import { getOpenPosition } from "../../db/queries/positions.ts";
import { getSignal, updateSignalStatus } from "../../db/queries/signals.ts";
import { getTradeByClientOrderId, insertTrade } from "../../db/queries/trades.ts";
import { getEmergencyStop, getTradingConfig } from "../../db/queries/trading-state.ts";
import { newId } from "../../db/queries/util.ts";
import { type ExecutionContext, PermanentFailure, executeTrade } from "../execution.ts";
import type { z } from "zod";

/** Entry signals older than this are stored but not executed (DESIGN.md). */
export const MAX_SIGNAL_LAG_MS = 30_000;

export async function executeSignal(ctx: ExecutionContext & { jobId: number }, payload: z.infer<typeof ExecuteSignalPayload>) {
  const signal = await getSignal(ctx.db, payload.signalId);
  if (!signal) throw new PermanentFailure(`Signal ${payload.signalId} not found`);
  const clientOrderId = `job-${ctx.jobId}`;
  const existing = await getTradeByClientOrderId(ctx.db, clientOrderId);
  if (existing) return executeTrade(ctx, existing.id); // a retry: same order, never a second one
  if (signal.status !== "queued") return signal.status;

  const skip = async (reason: string, level: "warning" | "error" = "warning") => {
    await ctx.db.transaction().execute(async (trx) => {
      await updateSignalStatus(trx, signal.id, level === "error" ? "failed" : "skipped", reason);
      await recordActivity(trx, {
        type: "signal",
        level,
        message: `Signal ${signal.action.toUpperCase()} ${signal.quantity} ${signal.symbol} not executed: ${reason}`,
        data: { signalId: signal.id },
      });
      await appendEvent(trx, "dashboard_update", { reason: "signal" });
    });
    return level === "error" ? ("failed" as const) : ("skipped" as const);
  };

  const [config, stop] = await Promise.all([getTradingConfig(ctx.db), getEmergencyStop(ctx.db)]);
  if (stop.active) return skip("Emergency stop is active");
  if (!config.autoTradingEnabled) return skip("Auto trading is disabled");
  const product = resolveSymbol(signal.symbol);
  if (!product) return skip(`Unknown symbol ${signal.symbol}`, "error");

  // An entry that arrives late is not chased; a reduction of an open position still runs.
  const open = await getOpenPosition(ctx.db, signal.symbol);
  const reduces = open && (open.side === "long") !== (signal.action === "buy");
  const age = Date.now() - Date.parse(signal.signalTime ?? signal.createdAt);
  if (!reduces && age > MAX_SIGNAL_LAG_MS) {
    return skip(`Signal is ${Math.round(age / 1000)} s old (limit ${MAX_SIGNAL_LAG_MS / 1000} s): entry not chased`);
  }

  const leverageField = Number((signal.payload as { leverage?: unknown }).leverage);
  const leverage = config.applyLeverageToSignals && Number.isInteger(leverageField) && leverageField >= 1 && leverageField <= 10 ? leverageField : 1;
  const needsMarket = config.applyAmountControlToSignals && (config.signalAmountType === "usd" || config.signalAmountType === "percentage");
  const price = needsMarket ? (await ctx.exchange.getTicker(signal.symbol)).price : signal.price;
  const available = needsMarket && config.signalAmountType === "percentage"
    ? marginBalance(await ctx.exchange.getBalances()).available
    : null;
  const sized = sizeSignalOrder({ signalQuantity: signal.quantity, config, product, price, available, leverage });
  if (!sized.ok) return skip(sized.error, "error");
  if (signal.orderType === "limit" && (!signal.price || D(signal.price).lte(0))) return skip("Limit signal without a price", "error");

  const tradeId = newId();
  await ctx.db.transaction().execute(async (trx) => {
    await insertTrade(trx, {
      id: tradeId,
      symbol: signal.symbol,
      side: signal.action,
      orderType: signal.orderType,
      quantity: sized.quantity,
      price: signal.orderType === "limit" ? signal.price : null,
      source: "signal",
      clientOrderId,
      exchange: ctx.exchange.name,
      signalId: signal.id,
      jobId: ctx.jobId,
      leverage,
      marginType: "cross",
    });
    await appendEvent(trx, "trade_update", { id: tradeId, symbol: signal.symbol, side: signal.action, status: "pending" });
  });
  return executeTrade(ctx, tradeId);
}
