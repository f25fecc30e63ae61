// execute-signal: a stored signal becomes one order (or a recorded reason why not).
import { marginBalance } from "../../app/core/exchange/types.ts";
import { D } from "../../app/core/decimal.ts";
import { sizeSignalOrder } from "../../app/core/orders/sizing.ts";
import { type ProductSpec, resolveSymbol } from "../../app/core/products.ts";
import { tradingProductsFor } from "#exchange/trading-product.ts";
import { type PositionTarget, storedPositionTarget } from "../../app/core/schemas/webhook-signal.ts";
import { planTargetOrder } from "../../app/core/orders/target.ts";
import { reducingProduct } from "../../app/core/rules/index.ts";
import { exitLine, exitPart } from "../../app/core/orders/exit-only.ts";
import { InvalidOrderError, OrderNotFoundError } from "../../app/core/exchange/errors.ts";
import type { ExchangeOrder } from "../../app/core/exchange/types.ts";
import type { ExecuteSignalPayload } from "../../app/core/schemas/job-payloads.ts";
import { recordActivity } from "../../db/queries/activity-logs.ts";
import { appendEvent } from "../../db/queries/events.ts";
import { getOpenPosition, lockSymbol } from "../../db/queries/positions.ts";
import { type StoredStrategy, getStrategy } from "../../db/queries/strategies.ts";
import { strategyConfig } from "../../app/core/orders/strategy.ts";
import { checkStrategyEntry } from "../strategies.ts";
import { type Signal, getSignal, updateSignalStatus } from "../../db/queries/signals.ts";
import { getTradeByJob, insertTrade, newClientOrderId, tradeRowToTrade } from "../../db/queries/trades.ts";
import { getEmergencyStop, getTradingConfig } from "../../db/queries/trading-state.ts";
import { newId } from "../../db/queries/util.ts";
import { type ExecutionContext, PermanentFailure, bookOrder, executeTrade } from "../execution.ts";
import { executeTestAlert, isTestAlert } from "./test-alert.ts";
import type { z } from "zod";

/** Entry signals older than this are stored but not executed (docs/spec/webhook.md, docs/decisions/005-signal-handling.md). */
export const MAX_SIGNAL_LAG_MS = 30_000;
/** Why an entry (or add, or the new side of a flip) is not sent while the emergency stop is on. */
const EMERGENCY_STOP_REASON = "Emergency stop is active";

export async function executeSignal(
  ctx: ExecutionContext & { jobId: number },
  payload: z.infer<typeof ExecuteSignalPayload>,
) {
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
  // The emergency stop blocks entries, never exits (docs/decisions/019): under it only the part
  // of a signal that reduces the open position is sent, reduce-only; a test alert never is.
  const exitsOnly = stop.active;
  if (exitsOnly && isTestAlert(signal.payload)) return skip(EMERGENCY_STOP_REASON);
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
  // Sized in the active exchange's units: whole Coinbase contracts live (decision 025); an
  // exit of a position the simulator holds in the simulator's own steps (decision 039).
  const traded = (await tradingProductsFor(ctx.db, ctx.exchange).product(spec.symbol)) ?? spec;
  const held = await getOpenPosition(ctx.db, spec.symbol);
  const product =
    signal.action === "buy" || signal.action === "sell"
      ? reducingProduct(
          traded,
          { ...traded, baseIncrement: spec.baseIncrement, baseMinSize: spec.baseMinSize },
          held,
          signal.action,
        )
      : traded;

  const target = storedPositionTarget(signal.payload);
  // A test alert in target mode: the order that target means from flat, on the test account.
  if (target && isTestAlert(signal.payload)) {
    if (target.side === "flat") return skip("Test alert: target flat, nothing to trade from a flat test account");
    return executeTestAlert(ctx, signal, {
      side: target.side === "long" ? "buy" : "sell",
      quantity: target.size,
      leverage: 1,
    });
  }
  if (target) return executeTarget(ctx, signal, target, product, clientOrderId, skip, strategy, exitsOnly);

  // An entry that arrives late is not chased; a reduction of an open position still runs.
  const open = await getOpenPosition(ctx.db, signal.symbol);
  const reduces = open && (open.side === "long") !== (signal.action === "buy");
  if (exitsOnly && !reduces) return skip(EMERGENCY_STOP_REASON);
  const age = Date.now() - Date.parse(signal.signalTime ?? signal.createdAt);
  if (!reduces && age > MAX_SIGNAL_LAG_MS) {
    return skip(`Signal is ${Math.round(age / 1000)} s old (limit ${MAX_SIGNAL_LAG_MS / 1000} s): entry not chased`);
  }

  const leverageField = Number((signal.payload as { leverage?: unknown }).leverage);
  const leverage = strategy
    ? strategy.leverage
    : config.applyLeverageToSignals && Number.isInteger(leverageField) && leverageField >= 1 && leverageField <= 10
      ? leverageField
      : 1;
  // A strategy sizes with its own amount control (the trading config's, always on).
  const sizing = strategy ? strategyConfig(config, strategy) : config;
  const needsMarket =
    sizing.applyAmountControlToSignals &&
    (sizing.signalAmountType === "usd" || sizing.signalAmountType === "percentage");
  const price = needsMarket ? (await ctx.exchange.getTicker(signal.symbol)).price : signal.price;
  const available =
    needsMarket && sizing.signalAmountType === "percentage"
      ? marginBalance(await ctx.exchange.getBalances()).available
      : null;
  const sized = sizeSignalOrder({
    signalQuantity: signal.quantity,
    config: sizing,
    product,
    price,
    available,
    leverage,
  });
  if (!sized.ok) return skip(sized.error, "error");
  if (signal.orderType === "limit" && (!signal.price || D(signal.price).lte(0)))
    return skip("Limit signal without a price", "error");
  // A test alert (issue 12) is sized like any signal, then traded on the simulator's test account.
  if (isTestAlert(signal.payload))
    return executeTestAlert(ctx, signal, { side: signal.action, quantity: sized.quantity, leverage });

  const tradeId = newId();
  // One owner per symbol and the strategy's limits, decided under the symbol's lock with the
  // trade's insert (decision 027). Default-strategy signals on unowned symbols skip it.
  const guarded = strategy !== null || open?.strategyId != null;
  const refused = await ctx.db.transaction().execute(async (trx) => {
    let quantity = sized.quantity;
    let exitOf: string | null = null;
    if (guarded || exitsOnly) {
      await lockSymbol(trx, signal.symbol);
      const [current, pending] = await Promise.all([
        getOpenPosition(trx, signal.symbol),
        pendingOf(trx, signal.symbol),
      ]);
      if (guarded) {
        const check = await checkStrategyEntry(trx, {
          strategy,
          symbol: signal.symbol,
          side: signal.action,
          quantity,
          open: current,
          pending,
          product,
        });
        if (!check.ok) return check.reason;
        quantity = check.quantity;
        if (check.note)
          await recordActivity(trx, {
            type: "signal",
            level: "info",
            message: check.note,
            data: { signalId: signal.id, strategyId: strategy?.id },
          });
      }
      if (exitsOnly) {
        // Only what reduces the position, reduce-only and bound to it: it can never flip.
        const exit = exitPart(current, signal.action, quantity);
        if (!current || !exit) return EMERGENCY_STOP_REASON;
        await recordActivity(trx, {
          type: "signal",
          level: "warning",
          message: exitLine({ side: signal.action, asked: quantity, symbol: signal.symbol, position: current, exit }),
          data: { signalId: signal.id, positionId: current.id, quantity: exit.quantity },
        });
        quantity = exit.quantity;
        exitOf = current.id;
      }
    }
    await insertSignalTrade(trx, ctx, signal, {
      id: tradeId,
      clientOrderId,
      side: signal.action,
      quantity,
      leverage,
      ...(exitOf ? { reduceOnly: true, positionId: exitOf } : {}),
    });
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
  order: {
    id: string;
    clientOrderId: string;
    side: "buy" | "sell";
    quantity: string;
    leverage: number;
    reduceOnly?: boolean;
    positionId?: string;
  },
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

/**
 * The symbol's orders in flight, with their strategy (the conflict rule counts them); `resting`:
 * the exchange has it (an order id), waiting for its price, as opposed to on its way.
 */
async function pendingOf(db: Parameters<typeof getOpenPosition>[0], symbol: string) {
  const rows = await db
    .selectFrom("trades")
    .select(["side", "quantity", "strategy_id", "reduce_only", "order_id"])
    .where("symbol", "=", symbol)
    .where("status", "=", "pending")
    .execute();
  return rows.map((t) => ({
    side: t.side,
    quantity: String(t.quantity),
    strategyId: t.strategy_id ?? null,
    reduceOnly: Boolean(Number(t.reduce_only)),
    resting: t.order_id !== null,
  }));
}

/**
 * The resting orders of the signal's strategy on its symbol (limit orders the exchange holds)
 * are cancelled before a target is sized (docs/decisions/023): the target is met by the filled
 * position, never by an order that may not fill. Each cancel is booked like any outcome (one
 * that filled meanwhile is booked filled, and then counts as position) and logged.
 */
async function cancelRestingOf(ctx: ExecutionContext, signal: Signal): Promise<void> {
  let query = ctx.db
    .selectFrom("trades")
    .selectAll()
    .where("symbol", "=", signal.symbol)
    .where("status", "=", "pending")
    .where("source", "=", "signal")
    .where("order_id", "is not", null);
  query = signal.strategyId
    ? query.where("strategy_id", "=", signal.strategyId)
    : query.where("strategy_id", "is", null);
  for (const trade of (await query.orderBy("created_at").execute()).map(tradeRowToTrade)) {
    let order: ExchangeOrder;
    try {
      order = await ctx.exchange.cancelOrder(trade.orderId!);
    } catch (error) {
      // Filled (or gone) before the cancel arrived: book what it is now.
      if (!(error instanceof InvalidOrderError) && !(error instanceof OrderNotFoundError)) throw error;
      order = await ctx.exchange.getOrder(trade.orderId!);
    }
    const status = await bookOrder(ctx.db, trade, order, ctx.exchange.name);
    const described = `${trade.side.toUpperCase()} ${trade.quantity} ${trade.symbol}${trade.price ? ` @ ${trade.price}` : ""}`;
    await recordActivity(ctx.db, {
      type: "signal",
      level: "info",
      message:
        status === "cancelled"
          ? `Resting order cancelled before the target position is sized: ${described} (the target counts the filled position, not orders that may not fill)`
          : `Resting order ${described} was ${status} before its cancel arrived: the target counts it as position`,
      data: { signalId: signal.id, tradeId: trade.id, orderId: trade.orderId, status },
    });
  }
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
  exitsOnly = false,
) {
  const tradeId = newId();
  // A strategy's max position size caps the target itself (decision 027).
  if (strategy?.maxPositionSize && D(target.size).gt(strategy.maxPositionSize))
    target = { ...target, size: strategy.maxPositionSize };
  await cancelRestingOf(ctx, signal);
  const planned = await ctx.db.transaction().execute(async (trx) => {
    await lockSymbol(trx, signal.symbol);
    const [open, pending] = await Promise.all([getOpenPosition(trx, signal.symbol), pendingOf(trx, signal.symbol)]);
    const plan = planTargetOrder({
      target,
      position: open ? { side: open.side, quantity: open.remainingQuantity } : null,
      // Orders on their way count; resting ones (another source's: the strategy's own were just
      // cancelled) do not: they may never fill (docs/decisions/023).
      pending: pending
        .filter((t) => !t.resting)
        .map((t) => ({ side: t.side === "sell" ? "sell" : "buy", quantity: String(t.quantity) })),
      product,
    });
    if (!plan.order) return plan;
    let order = plan.order;
    let entry = plan.entry;
    let exitNote: string | null = null;
    if (exitsOnly) {
      // The emergency stop (docs/decisions/019): toward flat only, a flip is close only.
      const exit = exitPart(open, order.side, order.quantity);
      if (!open || !exit) return { ...plan, order: null, reason: EMERGENCY_STOP_REASON };
      exitNote = exitLine({ side: order.side, asked: order.quantity, symbol: signal.symbol, position: open, exit });
      order = { side: order.side, quantity: exit.quantity };
      entry = false;
    }
    const age = Date.now() - Date.parse(signal.signalTime ?? signal.createdAt);
    if (entry && age > MAX_SIGNAL_LAG_MS)
      return {
        ...plan,
        order: null,
        reason: `Signal is ${Math.round(age / 1000)} s old (limit ${MAX_SIGNAL_LAG_MS / 1000} s): entry not chased`,
      };
    if (strategy || open?.strategyId) {
      const check = await checkStrategyEntry(trx, {
        strategy,
        symbol: signal.symbol,
        side: order.side,
        quantity: order.quantity,
        open,
        pending,
        product,
      });
      if (!check.ok) return { ...plan, order: null, reason: check.reason };
    }
    if (exitNote && open) {
      await recordActivity(trx, {
        type: "signal",
        level: "warning",
        message: exitNote,
        data: { signalId: signal.id, positionId: open.id, quantity: order.quantity },
      });
    }
    await insertSignalTrade(trx, ctx, signal, {
      id: tradeId,
      clientOrderId,
      side: order.side,
      quantity: order.quantity,
      leverage: strategy?.leverage ?? 1,
      // Toward flat without crossing it: it may only reduce.
      reduceOnly: !entry,
      ...(exitNote && open ? { positionId: open.id } : {}),
    });
    return plan;
  });
  if (!planned.order) return skip(planned.reason);
  return executeTrade(ctx, tradeId);
}
