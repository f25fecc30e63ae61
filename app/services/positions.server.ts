// Positions: the list the Futures Positions screen and GET /api/positions show, closing a
// position through the job path, applying the trading rules to open positions, the position
// details, the portfolio summary and the statistics reset. Page actions and API routes call
// these alike. Every write that touches a position takes its symbol lock first (the lock
// order bookOrder and the worker use).
import { marginBalance } from "#app/core/exchange/types.ts";
import type { Kysely } from "kysely";
import { pokeWorkers } from "./worker-wake.server.ts";
import type { Toast } from "#app/core/schemas/toast.ts";
import { D } from "#app/core/decimal.ts";
import { getPrices } from "#exchange/simulator/price-feed.ts";
import { judgePrice, sourceLabel } from "#app/core/price-source.ts";
import { listExchangeStops } from "#db/queries/exchange-stops.ts";
import { controlsFor } from "#app/core/orders/controls.ts";
import { positionMargin } from "#app/core/orders/liquidation.ts";
import { realizedPnl } from "#app/core/orders/net-position.ts";
import { isFuturesSymbol, resolveSymbol } from "#app/core/products.ts";
import {
  applyControls,
  closingProduct,
  holderName,
  sizeClose,
  stopPriceFor,
  takerFeeRate,
} from "#app/core/rules/index.ts";
import { tradingProductsFor } from "#exchange/trading-product.ts";
import { CLOSE_JOB_PRIORITY, type ClosePositionJob } from "#app/core/schemas/job-payloads.ts";
import { recordActivity } from "#db/queries/activity-logs.ts";
import { appendEvent } from "#db/queries/events.ts";
import { enqueueJob } from "#db/queries/jobs.ts";
import {
  type Position,
  getOpenPosition,
  getPosition,
  getPositionForUpdate,
  listOpenPositions,
  lockSymbol,
  pendingCloseQuantity,
  updatePosition,
} from "#db/queries/positions.ts";
import { getSignal } from "#db/queries/signals.ts";
import { type Trade, listTrades } from "#db/queries/trades.ts";
import { getTradingConfig } from "#db/queries/trading-state.ts";
import type { DB } from "#db/schema.ts";
import { getExchange } from "#exchange/factory.ts";
import { getClosedTradesPnl } from "./statistics.server.ts";
import { cancelAllOrders, listOpenOrders, waitForJobs } from "./orders.server.ts";
import { getStrategy, positionInStrategy } from "#db/queries/strategies.ts";
import { strategyConfig } from "#app/core/orders/strategy.ts";
import { recordAudit } from "#db/queries/audit.ts";
import { type PriceChartData, positionChart } from "./price-chart.server.ts";
import { deleteAllEquitySnapshots } from "#db/queries/equity-snapshots.ts";
import { markFundingReset } from "#db/queries/funding.ts";
import { unrealizedTotal } from "#app/core/pnl/unrealized.ts";
import type { PartialClose, PositionEdit, PositionEditView } from "#app/core/schemas/position-edit.ts";
import { editControls, lockedTakeProfits, onTick, takeProfitPrice } from "#app/core/rules/edit.ts";

type Db = Kysely<DB>;

// ---------------------------------------------------------------------------------------
// The list

export interface PositionView extends Position {
  /** Initial margin of what remains: entry notional / leverage (app/core/orders/liquidation.ts). */
  margin: string;
  /** Simulator: by its margin model; Coinbase: the exchange's figure; null when unknown. */
  liquidationPrice: string | null;
  /** (current − entry) × remaining for a long, the reverse for a short; null without a price. */
  unrealizedPnl: string | null;
  /** Unrealized P&L on the margin (entry notional of what remains / leverage), percent, 2 decimals. */
  roi: string | null;
  /** Why the rules may not act on this symbol's price now (stale, or from another source); null when they may. */
  priceStale?: string | null;
  /** Where the shown price comes from ("simulated prices (random walk, offline simulator)" ...). */
  priceSource?: string | null;
  /**
   * Protection that survives the worker (issue 15): the stop resting on the exchange for this
   * position, or why there is none ("the simulator keeps no resting orders" ...).
   */
  exchangeStop?: { stopPrice: string; orderId: string } | null;
  exchangeStopNote?: string | null;
  /** Why no order can close it on the exchange that holds it (a remainder under one contract), with the way out; null when it can. */
  closeNote?: string | null;
}

export function toPositionView(p: Position, liquidation: string | null = null): PositionView {
  const unrealizedPnl = p.currentPrice ? realizedPnl(p.side, p.entryPrice, p.currentPrice, p.remainingQuantity) : null;
  const notional = D(p.entryPrice).times(p.remainingQuantity);
  return {
    ...p,
    margin: positionMargin({
      side: p.side,
      entryPrice: p.entryPrice,
      quantity: p.remainingQuantity,
      leverage: p.leverage,
      marginType: p.marginType,
    }),
    liquidationPrice: liquidation,
    unrealizedPnl,
    roi:
      unrealizedPnl && notional.gt(0)
        ? D(unrealizedPnl).div(notional).times(100).times(p.leverage).round(2).toString()
        : null,
  };
}

/**
 * Open positions on perpetual / futures symbols (docs/spec/screens.md), newest first, at the latest
 * market price (market_prices, written by the price loop on every tick; the rules monitor
 * writes positions.current_price only every few seconds), else the stored current price.
 */
export async function listPositionViews(
  db: Db,
  options: { maxAgeMs?: number; strategy?: string } = {},
): Promise<PositionView[]> {
  const [positions, prices] = await Promise.all([listOpenPositions(db), getPrices(db)]);
  const open = positions.filter((p) => isFuturesSymbol(p.symbol) && positionInStrategy(p, options.strategy));
  if (open.length === 0) return [];
  const liquidation = await liquidationPrices(db, open);
  // Issue 15: the same test the worker's rules apply before acting on a price.
  const adapter = await getExchange(db)
    .current()
    .catch(() => null);
  const exchangeName = adapter?.name ?? "coinbase";
  const stops = adapter?.placeStopOrder
    ? new Map((await listExchangeStops(db, exchangeName)).map((s) => [s.position_id, s]))
    : null;
  // A live position under the smallest order its exchange takes cannot be closed by an order
  // (the simulator takes any of its own steps): said on the position, with the way out (decision 039).
  const closeNotes = new Map<string, string | null>();
  for (const p of open)
    if (p.exchange !== "simulator") closeNotes.set(p.id, await closeSendsNothing(db, p, "0").catch(() => null));
  const now = Date.now();
  return open.map((p) => {
    const price = prices.get(p.symbol);
    const verdict = judgePrice(price, exchangeName, now, options.maxAgeMs);
    const record = p.exchange === exchangeName ? (stops?.get(p.id) ?? null) : null;
    const stop = record?.status === "resting" ? record : null;
    return {
      ...toPositionView({ ...p, currentPrice: price?.price ?? p.currentPrice }, liquidation.get(p.symbol) ?? null),
      priceStale: verdict.reason,
      priceSource: price ? sourceLabel(price.source) : null,
      exchangeStop: stop ? { stopPrice: stop.stop_price, orderId: stop.order_id } : null,
      exchangeStopNote: stop
        ? `Resting on ${adapter!.label} at ${stop.stop_price}: protects the position even if the worker stops`
        : record?.status === "placing"
          ? `Being placed on ${adapter!.label} at ${record.stop_price}: its answer is being confirmed before anything else is placed; protection runs in the worker meanwhile`
          : record?.status === "refused"
            ? `${adapter!.label} refused the resting stop (${record.last_error ?? "no reason given"}): placed again at ${new Date(Number(record.retry_at)).toISOString().slice(11, 19)} UTC; protection runs in the worker meanwhile`
            : !p.stopPrice
              ? null
              : !stops || p.exchange === "simulator"
                ? "The simulator keeps no resting orders: its stops run in the worker"
                : `No resting stop on ${adapter!.label} yet: protection runs in the worker`,
      closeNote: closeNotes.get(p.id) ?? null,
    };
  });
}

/** Coinbase's positions, kept 10 s per process: every page and poll would otherwise call it. */
const exchangeLiquidations = new WeakMap<object, { at: number; name: string; bySymbol: Map<string, string | null> }>();
const LIQUIDATION_TTL_MS = 10_000;

/**
 * Liquidation price per symbol: the simulator's from its margin model (maintenance margin;
 * cross positions draw on the free collateral and the other cross positions); a real
 * exchange's as it reports it. A failing call shows none.
 */
async function liquidationPrices(db: Db, positions: Position[]): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  try {
    const exchange = await getExchange(db).current();
    if (exchange.name === "simulator") {
      // The price the paper exchange liquidates at (its held margin, maintenance, the account's
      // other positions: app/core/orders/liquidation.ts), read fresh: it moves with every mark.
      for (const r of await exchange.getPositions()) out.set(r.symbol, r.liquidationPrice ?? null);
      return out;
    }
    let cached = exchangeLiquidations.get(db);
    if (!cached || cached.name !== exchange.name || Date.now() - cached.at > LIQUIDATION_TTL_MS) {
      const reported = await exchange.getPositions();
      cached = {
        at: Date.now(),
        name: exchange.name,
        bySymbol: new Map(reported.map((r) => [r.symbol, r.liquidationPrice ?? null])),
      };
      exchangeLiquidations.set(db, cached);
    }
    return cached.bySymbol;
  } catch {
    return out;
  }
}

// ---------------------------------------------------------------------------------------
// Close

export type CloseResult =
  | { ok: true; success: true; message: string; jobId: number; positionId: string }
  | { ok: false; status: 404 | 409; error: string };

/**
 * Queues a close-position job for the whole remaining quantity of the open position in
 * `symbol` (the worker sends a reduce-only market order). A close already queued for the
 * position is answered with its job instead of a second one.
 */
export async function requestClosePosition(
  db: Db,
  symbol: string,
  by: string,
  part?: PartialClose | null,
): Promise<CloseResult> {
  const wanted = symbol.trim().toUpperCase();
  const position = await getOpenPosition(db, wanted);
  if (!position) return { ok: false, status: 404, error: `No open position for ${wanted}` };
  // A partial close (decision 048): a quantity, or a percent of what remains; all of it is a Close.
  let requested = "all";
  if (part?.quantity) requested = part.quantity;
  else if (part?.percent) requested = D(position.remainingQuantity).times(part.percent).div(100).toString();
  if (requested !== "all" && D(requested).gte(position.remainingQuantity)) requested = "all";
  // No emergency-stop check: a close only reduces risk, and the stop must never freeze it.

  const live = await db
    .selectFrom("jobs")
    .select("id")
    .where("task", "=", "close-position")
    .where("status", "in", ["created", "retry", "active"])
    .where("payload", "like", `%"positionId":"${position.id}"%`)
    .where("payload", "like", `%"source":"manual"%`)
    .executeTakeFirst();
  if (live) {
    return {
      ok: true,
      success: true,
      message: `A close of ${wanted} is already in progress`,
      jobId: Number(live.id),
      positionId: position.id,
    };
  }
  // The worker's own rule (app/core/rules/close.ts sizeClose), asked first: a close that could
  // send nothing says why here, on the screen, instead of "queued" and a line in the log.
  const nothing = await closeSendsNothing(db, position, undefined, requested);
  if (nothing) return { ok: false, status: 409, error: `Nothing sent for ${wanted}: ${nothing}` };

  const whole = requested === "all";
  const jobId = await db.transaction().execute(async (trx) => {
    const payload: ClosePositionJob = {
      positionId: position.id,
      quantity: requested,
      reason: `${whole ? "Close" : "Partial close"} requested by ${by}`,
      source: "manual",
      requestedBy: by,
    };
    const job = await enqueueJob(trx, { task: "close-position", payload, priority: CLOSE_JOB_PRIORITY });
    await recordActivity(trx, {
      type: "trade",
      level: "info",
      message: whole
        ? `Close requested by ${by}: ${position.side} ${position.remainingQuantity} ${wanted} at market`
        : `Partial close requested by ${by}: ${requested} of ${position.side} ${position.remainingQuantity} ${wanted} at market`,
      data: {
        positionId: position.id,
        symbol: wanted,
        remainingQuantity: position.remainingQuantity,
        quantity: requested,
        jobId: job.id,
      },
    });
    if (!whole)
      await recordAudit(trx, {
        actor: by,
        action: "position.close_part",
        target: `${wanted} ${position.id}`,
        before: { remainingQuantity: position.remainingQuantity },
        after: { closeRequested: requested },
      });
    await appendEvent(trx, "trade_update", {
      positionId: position.id,
      symbol: wanted,
      action: "close",
      status: "pending",
    });
    return job.id;
  });
  pokeWorkers(db);
  return {
    ok: true,
    success: true,
    message: whole ? `Close order queued for ${wanted}` : `Close order queued for ${requested} ${wanted}`,
    jobId,
    positionId: position.id,
  };
}

/** Why a close of `requested` (default everything) would send nothing for the position (null: it can be sent), sized as the exchange that holds it trades. */
async function closeSendsNothing(
  db: Db,
  position: Position,
  pending?: string,
  requested = "all",
): Promise<string | null> {
  const holder = await getExchange(db).forExchange(position.exchange);
  const traded = await tradingProductsFor(db, holder).product(position.symbol);
  if (!traded) return null;
  const size = sizeClose({
    requested,
    remaining: position.remainingQuantity,
    pending: pending ?? (await pendingCloseQuantity(db, position.id)),
    product: closingProduct(traded, resolveSymbol(position.symbol), position.exchange, requested),
    symbol: position.symbol,
    base: traded.base,
    exchangeLabel: holderName(position.exchange),
  });
  return size.ok ? null : size.reason;
}

// ---------------------------------------------------------------------------------------
// Edit one position (issue 25, docs/decisions/048-edit-a-position.md)

export type EditPositionResult =
  | { ok: true; changed: boolean; position: PositionView; message: string }
  | { ok: false; status: 400 | 404; error: string; field?: string };

/**
 * Moves the stop, changes the take-profit levels, break-even and the trailing stop of one open
 * position, checked against its side, entry and the latest price (app/core/rules/edit.ts). ONE
 * transaction under the symbol lock: the position row (controls, stop price, rule state), the
 * audit entry, the activity line and a dashboard_update event; nothing is written when nothing
 * changed. The old stop stays in force until the new one is stored; the worker is woken so the
 * stop keeper moves the resting exchange stop in place (decision 038).
 */
export async function editPosition(db: Db, id: string, edit: PositionEdit, by: string): Promise<EditPositionResult> {
  const candidate = await getPosition(db, id);
  if (candidate?.status !== "open") return { ok: false, status: 404, error: "No open position with this id" };
  const result = await db.transaction().execute(async (trx): Promise<EditPositionResult> => {
    await lockSymbol(trx, candidate.symbol);
    const position = await getPositionForUpdate(trx, id);
    if (position?.status !== "open") return { ok: false, status: 404, error: "No open position with this id" };
    const price = (await getPrices(trx)).get(position.symbol)?.price ?? position.currentPrice;
    const tick = resolveSymbol(position.symbol)?.quoteIncrement ?? null;
    const edited = editControls({ ...position, currentPrice: price }, edit, {
      exitFeeRate: takerFeeRate(position.exchange),
      tick,
    });
    if (!edited.ok) return { ok: false, status: 400, error: edited.error, field: edited.field };
    if (!edited.changed)
      return {
        ok: true,
        changed: false,
        position: toPositionView(position),
        message: `Nothing changed on ${position.symbol}`,
      };
    const a = edited.applied;
    await updatePosition(trx, position.id, a);
    const summary = (p: { advancedControls: unknown; stopPrice: string | null; breakEvenTriggered: boolean }) => ({
      stopPrice: p.stopPrice,
      controls: p.advancedControls,
      breakEvenTriggered: p.breakEvenTriggered,
    });
    await recordAudit(trx, {
      actor: by,
      action: "position.edit",
      target: `${position.symbol} ${position.id}`,
      before: summary(position),
      after: summary(a),
    });
    const tps = (a.advancedControls?.takeProfits ?? []).filter((l) => l.enabled).length;
    const trail = a.advancedControls?.trailingStop;
    const message = `Position ${position.symbol} edited by ${by}: stop ${a.stopPrice ?? "none"}, ${tps} take-profit level${tps === 1 ? "" : "s"}, break-even ${a.advancedControls?.breakEven ? "on" : "off"}, trailing ${trail ? "on" : "off"}`;
    await recordActivity(trx, {
      type: "trade",
      level: "info",
      message,
      data: {
        positionId: position.id,
        symbol: position.symbol,
        strategyId: position.strategyId ?? null,
        by,
        stopPrice: a.stopPrice,
        before: position.stopPrice,
      },
    });
    await appendEvent(trx, "dashboard_update", {
      reason: "position_edited",
      positionId: position.id,
      symbol: position.symbol,
    });
    return {
      ok: true,
      changed: true,
      position: toPositionView({ ...position, ...a, ruleState: a.ruleState as unknown as Position["ruleState"] }),
      message,
    };
  });
  if (result.ok && result.changed) pokeWorkers(db);
  return result;
}

export async function positionEditView(db: Db, id: string): Promise<PositionEditView | null> {
  const position = await getPosition(db, id);
  if (position?.status !== "open") return null;
  const price = (await getPrices(db)).get(position.symbol)?.price ?? position.currentPrice;
  const c = position.advancedControls;
  const pct = (fraction: number) => D(fraction).times(100).toString();
  const locked = lockedTakeProfits(position.ruleState);
  const state = position.ruleState as { tpFilled?: number[]; tpSkipped?: number[] };
  const levels = (c?.takeProfits ?? []).map((l, i) => ({ l, i }));
  // Prices pre-filled on the product's tick, as a trader types them; posted back unchanged they are no change (decision 048).
  const tick = resolveSymbol(position.symbol)?.quoteIncrement ?? null;
  const stop = stopPriceFor(position);
  return {
    id: position.id,
    symbol: position.symbol,
    side: position.side,
    entryPrice: position.entryPrice,
    currentPrice: price,
    remainingQuantity: position.remainingQuantity,
    stopLoss: stop === null ? "" : onTick(stop, tick),
    breakEvenTriggered: position.breakEvenTriggered,
    lockedLevels: levels
      .filter(({ i }) => locked.has(i))
      .map(({ l, i }) => ({
        n: i + 1,
        price: onTick(takeProfitPrice(position.side, position.entryPrice, l), tick),
        close: pct(l.portfolio),
        state: state.tpFilled?.includes(i) ? "filled" : state.tpSkipped?.includes(i) ? "skipped" : "closing",
      })),
    levels: levels
      .filter(({ l, i }) => l.enabled && !locked.has(i))
      .map(({ l, i }) => ({
        n: i + 1,
        price: onTick(takeProfitPrice(position.side, position.entryPrice, l), tick),
        close: pct(l.portfolio),
      })),
    breakEven: Boolean(c?.breakEven),
    breakEvenOffset: c?.breakEvenOffset
      ? c.breakEvenOffset.unit === "percent"
        ? pct(c.breakEvenOffset.value)
        : String(c.breakEvenOffset.value)
      : "",
    breakEvenOffsetUnit: c?.breakEvenOffset?.unit ?? "ticks",
    trailing: Boolean(c?.trailingStop),
    trailingActivation: c?.trailingStop ? pct(c.trailingStop.activation) : "",
    trailingRetrace: c?.trailingStop ? pct(c.trailingStop.execute) : "",
  };
}

// ---------------------------------------------------------------------------------------
// Apply rules

/**
 * Copies the current trading config's controls onto every open position, by the position's
 * source (apply-to-signals / apply-to-manual switches). See app/core/rules/apply.ts for what
 * stays (levels taken, break-even, trailing state).
 */
export async function applyRulesToOpenPositions(
  db: Db,
  by: string,
): Promise<{ appliedCount: number; totalPositions: number }> {
  const config = await getTradingConfig(db);
  const open = await listOpenPositions(db);
  let appliedCount = 0;
  for (const candidate of open) {
    const applied = await db.transaction().execute(async (trx) => {
      await lockSymbol(trx, candidate.symbol);
      const position = await getPositionForUpdate(trx, candidate.id);
      if (position?.status !== "open") return false;
      // A strategy's position gets its strategy's overrides over the config (decision 027).
      const strategy = position.strategyId ? await getStrategy(trx, position.strategyId) : null;
      const controls = strategy
        ? controlsFor(strategyConfig(config, strategy), "signal")
        : controlsFor(config, position.source === "manual" ? "manual" : "signal");
      // The break-even stop is re-priced with the new offset; the entry fee estimated at the taker rate (decision 046).
      const tick = resolveSymbol(position.symbol)?.quoteIncrement ?? null;
      await updatePosition(
        trx,
        position.id,
        applyControls(position, controls, { exitFeeRate: takerFeeRate(position.exchange), tick }),
      );
      return true;
    });
    if (applied) appliedCount++;
  }
  await db.transaction().execute(async (trx) => {
    await recordActivity(trx, {
      type: "system",
      level: "info",
      message: `Trading rules applied to ${appliedCount} of ${open.length} open position${open.length === 1 ? "" : "s"} by ${by}`,
      data: { appliedCount, totalPositions: open.length },
    });
    await appendEvent(trx, "dashboard_update", { reason: "rules_applied" });
  });
  return { appliedCount, totalPositions: open.length };
}

// ---------------------------------------------------------------------------------------
// Details

export interface PositionDetails {
  position: PositionView;
  trades: Trade[];
  relatedSignal: { id: string; action: "buy" | "sell"; symbol: string; createdAt: string } | null;
  exchange: { name: string; label: string };
  /** Candles over its life, its rule levels and its fills (decision 032). */
  chart: PriceChartData;
  metrics: {
    /** Σ executed quantity × executed price of the position's trades (quote currency). */
    totalVolume: string;
    /** Fees paid on its trades plus the taker fee a market close of what remains would pay now. */
    estimatedFees: string;
    feesPaid: string;
    unrealizedPnL: string | null;
    markPrice: string | null;
  };
}

export async function getPositionDetails(db: Db, id: string): Promise<PositionDetails | null> {
  const position = await getPosition(db, id);
  if (!position) return null;
  const [trades, signal, prices] = await Promise.all([
    listTrades(db, { positionId: id, limit: 1000 }),
    position.signalId ? getSignal(db, position.signalId) : Promise.resolve(null),
    getPrices(db),
  ]);
  trades.reverse(); // oldest first: entry, then the closes
  const chart = await positionChart(db, position, trades);
  const exchange = getExchange(db);
  const executed = trades.filter((t) => t.status === "executed" || t.status === "completed");
  const totalVolume = executed.reduce((acc, t) => acc.plus(D(t.executedQuantity).times(t.executedPrice ?? 0)), D(0));
  const feesPaid = executed.reduce((acc, t) => acc.plus(t.fee), D(0));
  const markPrice = prices.get(position.symbol)?.price ?? position.currentPrice;
  const open = position.status === "open" && D(position.remainingQuantity).gt(0);
  const feeRate = (exchange as { feeRate?: string }).feeRate ?? "0.0006";
  const exitFee = open && markPrice ? D(position.remainingQuantity).times(markPrice).times(feeRate) : D(0);
  return {
    // The mark the list uses too (the latest feed price), so a row and its details agree.
    position: toPositionView({ ...position, currentPrice: markPrice }),
    trades,
    relatedSignal: signal
      ? { id: signal.id, action: signal.action, symbol: signal.symbol, createdAt: signal.createdAt }
      : null,
    exchange: { name: exchange.name, label: exchange.label },
    chart,
    metrics: {
      totalVolume: totalVolume.toString(),
      estimatedFees: feesPaid.plus(exitFee).round(8).toString(),
      feesPaid: feesPaid.toString(),
      unrealizedPnL:
        open && markPrice
          ? realizedPnl(position.side, position.entryPrice, markPrice, position.remainingQuantity)
          : open
            ? null
            : "0",
      markPrice,
    },
  };
}

// ---------------------------------------------------------------------------------------
// Portfolio summary (docs/decisions/006-portfolio-summary.md)

export interface PortfolioSummary {
  exchange: string;
  currency: string;
  /** walletBalance + unrealizedPnL. */
  equity: string;
  /** Collateral: available + marginUsed (realized P&L and fees already in it). */
  walletBalance: string;
  /** Free collateral: what new orders can use. */
  available: string;
  /** Held by the exchange: margin of open positions and of resting orders. */
  marginUsed: string;
  /** marginUsed / equity × 100, 2 decimals; null when equity is not positive. */
  marginUsagePercent: string | null;
  /** Σ over open positions at the latest prices. */
  unrealizedPnL: string;
  /** All-time closed-trades P&L (FIFO, net of fees), as GET /api/closed-trades-pnl. */
  realizedPnL: string;
  openPositions: number;
  updatedAt: string;
}

/** The unrealized P&L of every open position now at the latest prices: the portfolio summary's figure, the Performance charts' "now". */
export async function getUnrealizedNow(db: Db): Promise<string> {
  const [positions, prices] = await Promise.all([listOpenPositions(db), getPrices(db)]);
  return unrealizedTotal(positions, prices);
}

export async function getPortfolioSummary(db: Db): Promise<PortfolioSummary> {
  const exchange = getExchange(db);
  const [balances, positions, prices, closed] = await Promise.all([
    exchange.getBalances(),
    listOpenPositions(db),
    getPrices(db),
    getClosedTradesPnl(db),
  ]);
  const balance = marginBalance(balances);
  const currency = balance.currency;
  const unrealized = D(unrealizedTotal(positions, prices));
  const wallet = D(balance.available).plus(balance.hold);
  const equity = wallet.plus(unrealized);
  return {
    exchange: exchange.name,
    currency,
    equity: equity.toString(),
    walletBalance: wallet.toString(),
    available: D(balance.available).toString(),
    marginUsed: D(balance.hold).toString(),
    marginUsagePercent: equity.gt(0) ? D(balance.hold).div(equity).times(100).round(2).toString() : null,
    unrealizedPnL: unrealized.toString(),
    realizedPnL: closed.totalPnL,
    openPositions: positions.length,
    updatedAt: new Date().toISOString(),
  };
}

// ---------------------------------------------------------------------------------------
// Reset statistics

export interface ResetResult {
  success: true;
  message: string;
  deleted: { trades: number; signals: number; positions: number; logs: number; jobs: number };
}

/**
 * Deletes trades, signals, positions and activity logs — and the finished or queued jobs
 * that pointed at them — in ONE transaction, every symbol lock taken first so no fill is
 * booked half-way through. Jobs a worker is running now are left to finish (they find their
 * rows gone and end). The exchange account (paper balances, orders, its positions) is not
 * touched: an exchange does not forget. Refused (409) while a position is open or an order
 * is pending: flatten first.
 */
export async function resetStatistics(
  db: Db,
  by: string,
): Promise<ResetResult | { success: false; status: 409; error: string }> {
  const deleted = await db.transaction().execute(async (trx) => {
    await trx
      .updateTable("position_locks")
      .set((eb) => ({ version: eb("version", "+", 1) }))
      .execute();
    // Refused while anything is open (issue 11): the positions and orders would go on at the
    // exchange with no record here, unprotected.
    const open = Number(
      (
        await trx
          .selectFrom("positions")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("status", "=", "open")
          .executeTakeFirst()
      )?.n ?? 0,
    );
    const resting = Number(
      (
        await trx
          .selectFrom("trades")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("status", "=", "pending")
          .executeTakeFirst()
      )?.n ?? 0,
    );
    if (open > 0 || resting > 0) return { open, resting };
    const count = (r: { numDeletedRows?: bigint }) => Number(r.numDeletedRows ?? 0);
    const trades = count(await trx.deleteFrom("trades").executeTakeFirst());
    const jobs = count(await trx.deleteFrom("jobs").where("status", "!=", "active").executeTakeFirst());
    const positions = count(await trx.deleteFrom("positions").executeTakeFirst());
    // The funding booked on them goes with them (the P&L totals add it: docs/pnl.md), and
    // what the paper exchange charged until now is never booked again, onto a later position
    // or a total (the worker books only funding charged after this moment).
    await trx.deleteFrom("funding_payments").execute();
    await markFundingReset(trx, Date.now());
    // The equity snapshots too: the charts' realized P&L starts again at 0 with the ledger
    // (decision 031), and a snapshot's realized figure would no longer be the ledger's.
    await deleteAllEquitySnapshots(trx);
    const signals = count(await trx.deleteFrom("signals").executeTakeFirst());
    // Earlier resets' audit lines stay: a reset cannot erase the record of resets (issue 11).
    const logs = count(
      await trx
        .deleteFrom("activity_logs")
        .where((eb) => eb.not(eb.and([eb("type", "=", "system"), eb("message", "like", "Statistics reset by %")])))
        .executeTakeFirst(),
    );
    // Nothing rests (checked above): any hold left on the paper account is released.
    const openSimOrders = Number(
      (
        await trx
          .selectFrom("sim_orders")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("status", "=", "open")
          .executeTakeFirst()
      )?.n ?? 0,
    );
    if (openSimOrders === 0) {
      for (const b of await trx
        .selectFrom("balances")
        .select(["profile_id", "currency", "available", "hold"])
        .execute()) {
        if (D(b.hold).eq(0)) continue;
        await trx
          .updateTable("balances")
          .set({ available: D(b.available).plus(b.hold).toString(), hold: "0" })
          .where("profile_id", "=", b.profile_id)
          .where("currency", "=", b.currency)
          .execute();
      }
    }
    const summary = { trades, signals, positions, logs, jobs };
    await recordAudit(trx, {
      actor: by,
      action: "statistics.reset",
      target: "statistics",
      after: { deleted: summary },
    });
    await recordActivity(trx, {
      type: "system",
      level: "warning",
      message: `Statistics reset by ${by}: ${trades} trades, ${signals} signals, ${positions} positions and ${logs} log entries deleted`,
      data: summary,
    });
    await appendEvent(trx, "dashboard_update", { reason: "reset_stats" });
    await appendEvent(trx, "trade_update", { reason: "reset_stats" });
    return summary;
  });
  if ("open" in deleted) {
    const what = [
      deleted.open ? `${deleted.open} open position${deleted.open === 1 ? "" : "s"}` : null,
      deleted.resting ? `${deleted.resting} pending order${deleted.resting === 1 ? "" : "s"}` : null,
    ].filter(Boolean);
    return {
      success: false,
      status: 409,
      error: `Close the positions and cancel the orders first (Flatten all): ${what.join(" and ")}`,
    };
  }
  return {
    success: true,
    message: `Statistics reset: ${deleted.trades} trades, ${deleted.signals} signals, ${deleted.positions} positions and ${deleted.logs} log entries deleted`,
    deleted,
  };
}

// ---------------------------------------------------------------------------------------
// Flatten all (issue 11)

export interface FlattenResult {
  /** Positions whose close was requested. */
  closed: number;
  /** Resting orders that ended cancelled. */
  cancelled: number;
  /** True when the exchange reports no position and no resting order is left. */
  flat: boolean;
  /** What is left when not flat ("ETH-PERP long 0.5 on the exchange", "1 resting order"). */
  remaining: string[];
  /** False when the worker had not finished within the wait (the closes still run). */
  done: boolean;
}

/**
 * Cancels every resting order and closes every open position at market (reduce-only, so it
 * works under the emergency stop), waits for the worker, then asks the exchange whether the
 * account is flat and says so, or says what is left. One activity-log line with the outcome.
 */
export async function flattenAll(db: Db, by: string): Promise<FlattenResult> {
  const cancelling = await cancelAllOrders(db, by);
  const positions = await listOpenPositions(db);
  const jobIds: number[] = [];
  for (const position of positions) {
    const close = await requestClosePosition(db, position.symbol, by);
    if (close.ok) jobIds.push(close.jobId);
  }
  const done = (await waitForJobs(db, jobIds)) && cancelling.done;

  const remaining: string[] = [];
  const stillOpen = await listOpenPositions(db);
  for (const p of stillOpen) remaining.push(`${p.symbol} ${p.side} ${p.remainingQuantity} in the app`);
  try {
    for (const p of await getExchange(db).getPositions()) {
      if (D(p.quantity).gt(0)) remaining.push(`${p.symbol} ${p.side} ${p.quantity} on the exchange`);
    }
  } catch (error) {
    remaining.push(`the exchange could not be asked: ${(error as Error).message}`);
  }
  const resting = (await listOpenOrders(db)).length;
  if (resting > 0) remaining.push(`${resting} resting order${resting === 1 ? "" : "s"}`);
  const flat = remaining.length === 0;
  await recordActivity(db, {
    type: "trade",
    level: flat ? "success" : "warning",
    message: flat
      ? `Flatten all by ${by}: ${positions.length} position${positions.length === 1 ? "" : "s"} closed, ${cancelling.cancelled} order${cancelling.cancelled === 1 ? "" : "s"} cancelled; the account is flat`
      : `Flatten all by ${by}: not flat yet: ${remaining.join("; ")}`,
    data: { by, closed: positions.length, cancelled: cancelling.cancelled, flat, remaining },
  });
  await appendEvent(db, "dashboard_update", { reason: "flatten" });
  return { closed: positions.length, cancelled: cancelling.cancelled, flat, remaining, done };
}

/** Flatten all's toast (the Positions page and the dashboard); `before` leads its description. */
export function flattenToast(result: FlattenResult, before = ""): Toast {
  const summary = `${before}${result.closed} position${result.closed === 1 ? "" : "s"} closed, ${result.cancelled} order${result.cancelled === 1 ? "" : "s"} cancelled`;
  return result.flat
    ? { title: "Account Flat", description: `${summary}; the exchange reports no open position` }
    : {
        title: "Not Flat Yet",
        description: `${summary}; still open: ${result.remaining.join("; ")}`,
        variant: "destructive",
      };
}
