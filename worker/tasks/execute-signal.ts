// execute-signal: a stored signal becomes one order (or a recorded reason why not).
import { marginBalance } from "../../app/core/exchange/types.ts";
import { D } from "../../app/core/decimal.ts";
import { sizeSignalOrder } from "../../app/core/orders/sizing.ts";
import { type ProductSpec, resolveSymbol } from "../../app/core/products.ts";
import { tradingProductsFor } from "../../app/core/exchange/trading-product.ts";
import { type PositionTarget, storedPositionTarget } from "../../app/core/schemas/webhook-signal.ts";
import { planTargetOrder } from "../../app/core/orders/target.ts";
import type { ExecuteSignalPayload } from "../../app/core/schemas/job-payloads.ts";
import { recordActivity } from "../../db/queries/activity-logs.ts";
import { appendEvent } from "../../db/queries/events.ts";
import { getOpenPosition, lockSymbol } from "../../db/queries/positions.ts";
import { type StoredStrategy, getStrategy } from "../../db/queries/strategies.ts";
import { strategyConfig } from "../../app/core/orders/strategy.ts";
import { checkStrategyEntry } from "../strategies.ts";
import { type Signal, getSignal, updateSignalStatus } from "../../db/queries/signals.ts";
import { getTradeByJob, insertTrade, newClientOrderId } from "../../db/queries/trades.ts";
import { getEmergencyStop, getTradingConfig } from "../../db/queries/trading-state.ts";
import { newId } from "../../db/queries/util.ts";
import { type ExecutionContext, PermanentFailure, executeTrade } from "../execution.ts";
import { executeTestAlert, isTestAlert } from "./test-alert.ts";
import type { z } from "zod";

/** Entry signals older than this are stored but not executed (DESIGN.md). */
export const MAX_SIGNAL_LAG_MS = 30_000;

export async function executeSignal(ctx: ExecutionContext & { jobId: number }, payload: z.infer<typeof ExecuteSignalPayload>) {
  const signal = await getSignal(ctx.db, payload.signalId);
  if (!signal) throw new PermanentFailure(`Signal ${payload.signalId} not found`);
  const existing = await getTradeByJob(ctx.db, ctx.jobId);
  if (existing) return executeTrade(ctx, existing.id); // a retry: same order, never a second one
  if (signal.status !== "queued") return signal.status;
  const clientOrderId = newClientOrderId();

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
  // A strategy's signal (decision 027): the strategy as it is now, not as the webhook saw it.
  let strategy: StoredStrategy | null = null;
  if (signal.strategyId) {
    strategy = await getStrategy(ctx.db, signal.strategyId);
    if (!strategy) return skip("Its strategy was deleted");
    if (!strategy.enabled) return skip(`Strategy ${strategy.name} is disabled`);
    if (strategy.allowedSymbols.length > 0 && !strategy.allowedSymbols.includes(signal.symbol)) {
      return skip(`${signal.symbol} is not allowed for strategy ${strategy.name}`, "error");
    }
  }
  const spec = resolveSymbol(signal.symbol);
  if (!spec) return skip(`Unknown symbol ${signal.symbol}`, "error");
  // Sized in the active exchange's units: whole Coinbase contracts live (decision 025).
  const product = (await tradingProductsFor(ctx.db, ctx.exchange).product(spec.symbol)) ?? spec;

  const target = storedPositionTarget(signal.payload);
  // A test alert in target mode: the order that target means from flat, on the test account.
  if (target && isTestAlert(signal.payload)) {
    if (target.side === "flat") return skip("Test alert: target flat, nothing to trade from a flat test account");
    return executeTestAlert(ctx, signal, { side: target.side === "long" ? "buy" : "sell", quantity: target.size, leverage: 1 });
  }
  if (target) return executeTarget(ctx, signal, target, product, clientOrderId, skip, strategy);

  // An entry that arrives late is not chased; a reduction of an open position still runs.
  const open = await getOpenPosition(ctx.db, signal.symbol);
  const reduces = open && (open.side === "long") !== (signal.action === "buy");
  const age = Date.now() - Date.parse(signal.signalTime ?? signal.createdAt);
  if (!reduces && age > MAX_SIGNAL_LAG_MS) {
    return skip(`Signal is ${Math.round(age / 1000)} s old (limit ${MAX_SIGNAL_LAG_MS / 1000} s): entry not chased`);
  }

  const leverageField = Number((signal.payload as { leverage?: unknown }).leverage);
  const leverage = strategy
    ? strategy.leverage
    : config.applyLeverageToSignals && Number.isInteger(leverageField) && leverageField >= 1 && leverageField <= 10 ? leverageField : 1;
  // A strategy sizes with its own amount control (the trading config's, always on).
  const sizing = strategy ? strategyConfig(config, strategy) : config;
  const needsMarket = sizing.applyAmountControlToSignals && (sizing.signalAmountType === "usd" || sizing.signalAmountType === "percentage");
  const price = needsMarket ? (await ctx.exchange.getTicker(signal.symbol)).price : signal.price;
  const available = needsMarket && sizing.signalAmountType === "percentage"
    ? marginBalance(await ctx.exchange.getBalances()).available
    : null;
  const sized = sizeSignalOrder({ signalQuantity: signal.quantity, config: sizing, product, price, available, leverage });
  if (!sized.ok) return skip(sized.error, "error");
  if (signal.orderType === "limit" && (!signal.price || D(signal.price).lte(0))) return skip("Limit signal without a price", "error");
  // A test alert (issue 12) is sized like any signal, then traded on the simulator's test account.
  if (isTestAlert(signal.payload)) return executeTestAlert(ctx, signal, { side: signal.action, quantity: sized.quantity, leverage });

  const tradeId = newId();
  // One owner per symbol and the strategy's limits, decided under the symbol's lock with the
  // trade's insert (decision 027). Default-strategy signals on unowned symbols skip it.
  const guarded = strategy !== null || open?.strategyId != null;
  const refused = await ctx.db.transaction().execute(async (trx) => {
    let quantity = sized.quantity;
    if (guarded) {
      await lockSymbol(trx, signal.symbol);
      const [current, pending] = await Promise.all([getOpenPosition(trx, signal.symbol), pendingOf(trx, signal.symbol)]);
      const check = await checkStrategyEntry(trx, { strategy, symbol: signal.symbol, side: signal.action, quantity, open: current, pending, product });
      if (!check.ok) return check.reason;
      quantity = check.quantity;
      if (check.note) await recordActivity(trx, { type: "signal", level: "info", message: check.note, data: { signalId: signal.id, strategyId: strategy?.id } });
    }
    await insertSignalTrade(trx, ctx, signal, { id: tradeId, clientOrderId, side: signal.action, quantity, leverage });
    return null;
  });
  if (refused) return skip(refused);
  return executeTrade(ctx, tradeId);
}

/**
 * A signal's order as a pending trade (and its live event), in the caller's transaction: the
 * signal gives the symbol, type, limit price and strategy; the caller the side, quantity and
 * leverage it decided.
 */
async function insertSignalTrade(
  trx: Parameters<typeof insertTrade>[0],
  ctx: ExecutionContext & { jobId: number },
  signal: Signal,
  order: { id: string; clientOrderId: string; side: "buy" | "sell"; quantity: string; leverage: number; reduceOnly?: boolean },
) {
  await insertTrade(trx, {
    ...order,
    symbol: signal.symbol,
    orderType: signal.orderType,
    price: signal.orderType === "limit" ? signal.price : null,
    source: "signal",
    exchange: ctx.exchange.name,
    signalId: signal.id,
    jobId: ctx.jobId,
    marginType: "cross",
    strategyId: signal.strategyId,
  });
  await appendEvent(trx, "trade_update", { id: order.id, symbol: signal.symbol, side: order.side, status: "pending" });
}

/** The symbol's orders in flight, with their strategy (the conflict rule counts them). */
async function pendingOf(db: Parameters<typeof getOpenPosition>[0], symbol: string) {
  const rows = await db
    .selectFrom("trades")
    .select(["side", "quantity", "strategy_id", "reduce_only"])
    .where("symbol", "=", symbol)
    .where("status", "=", "pending")
    .execute();
  return rows.map((t) => ({ side: t.side, quantity: String(t.quantity), strategyId: t.strategy_id ?? null, reduceOnly: Boolean(Number(t.reduce_only)) }));
}

/**
 * Target-position mode (issue 12): the alert says where the strategy's position is after it
 * (long 2, flat, short 1); the order is whatever brings the app's position there, counting
 * orders already on their way (pending trades of the symbol), decided under the symbol's
 * lock so two alerts in flight cannot both add the same difference. A duplicated alert
 * finds the position already at its target and sends nothing; a missed one is made up by the
 * next. An entry (the position grows or flips) that arrives late is not chased.
 */
async function executeTarget(
  ctx: ExecutionContext & { jobId: number },
  signal: Signal,
  target: PositionTarget,
  product: ProductSpec,
  clientOrderId: string,
  skip: (reason: string, level?: "warning" | "error") => Promise<"skipped" | "failed">,
  strategy: StoredStrategy | null = null,
) {
  const tradeId = newId();
  // A strategy's max position size caps the target itself (decision 027).
  if (strategy?.maxPositionSize && D(target.size).gt(strategy.maxPositionSize)) target = { ...target, size: strategy.maxPositionSize };
  const planned = await ctx.db.transaction().execute(async (trx) => {
    await lockSymbol(trx, signal.symbol);
    const [open, pending] = await Promise.all([getOpenPosition(trx, signal.symbol), pendingOf(trx, signal.symbol)]);
    const plan = planTargetOrder({
      target,
      position: open ? { side: open.side, quantity: open.remainingQuantity } : null,
      pending: pending.map((t) => ({ side: t.side === "sell" ? "sell" : "buy", quantity: String(t.quantity) })),
      product,
    });
    if (!plan.order) return plan;
    const age = Date.now() - Date.parse(signal.signalTime ?? signal.createdAt);
    if (plan.entry && age > MAX_SIGNAL_LAG_MS) return { ...plan, order: null, reason: `Signal is ${Math.round(age / 1000)} s old (limit ${MAX_SIGNAL_LAG_MS / 1000} s): entry not chased` };
    if (strategy || open?.strategyId) {
      const check = await checkStrategyEntry(trx, { strategy, symbol: signal.symbol, side: plan.order.side, quantity: plan.order.quantity, open, pending, product });
      if (!check.ok) return { ...plan, order: null, reason: check.reason };
    }
    await insertSignalTrade(trx, ctx, signal, {
      id: tradeId,
      clientOrderId,
      side: plan.order.side,
      quantity: plan.order.quantity,
      leverage: strategy?.leverage ?? 1,
      // Toward flat without crossing it: it may only reduce.
      reduceOnly: !plan.entry,
    });
    return plan;
  });
  if (!planned.order) return skip(planned.reason);
  return executeTrade(ctx, tradeId);
}
