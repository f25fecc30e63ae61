// The rules monitor: on every price tick, every open position is evaluated by the rules
// engine (app/core/rules) from ONE query, in memory. Then:
// - the tick state (current price, maxDrawdown, trailing best / armed, stop, portfolio %) is
//   written in one batched statement for the positions whose state changed; the current price
//   of every other open position only once a minute (markIntervalMs: screens read the market
//   price), so a tick where nothing changed writes nothing;
// - a position with something to decide (a close to request, a level to skip, a trailing stop
//   that arms, a requested close whose job died) is handled in its own transaction under its
//   symbol lock: re-read, re-evaluated on fresh state, and each close becomes a close-position
//   job whose job key is unique per trigger (rule:<positionId>:tp1, :sl, :trail, then :2 ...),
//   recorded in the position's rule state in the same transaction. So one trigger never makes
//   two closes, whatever the number of workers, ticks or restarts.
// The emergency stop never holds protection (issue 11): it blocks new entries only, so
// stop-loss, take-profit, break-even and trailing closes are requested as usual, at the
// current price: a trigger missed while something blocked it is re-evaluated, not replayed.
import type { Kysely } from "kysely";
import { D, toFixed } from "../../app/core/decimal.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { getPrices } from "#exchange/simulator/price-feed.ts";
import type { ExchangeAdapter } from "../../app/core/exchange/types.ts";
import type { ProductSpec } from "../../app/core/products.ts";
import { type TradingProductResolver, createTradingProductResolver } from "#exchange/trading-product.ts";
import {
  type Evaluation,
  dec,
  evaluate,
  parseRuleState,
  recordRequest,
  recordSkipped,
  releaseRequest,
  ruleHeld,
} from "../../app/core/rules/index.ts";
import { CLOSE_JOB_PRIORITY, type ClosePositionJob } from "../../app/core/schemas/job-payloads.ts";
import { recordActivity } from "../../db/queries/activity-logs.ts";
import { appendEvent } from "../../db/queries/events.ts";
import { enqueueJob } from "../../db/queries/jobs.ts";
import {
  type MonitoredPosition,
  type RuleSnapshotRow,
  getPositionForUpdate,
  listMonitoredPositions,
  lockSymbol,
  markOpenPositions,
  updatePosition,
  writeRuleSnapshots,
} from "../../db/queries/positions.ts";
import { alarmIfRepeated } from "../tasks/close-position.ts";
import type { DB } from "../../db/schema.ts";

export interface MonitorOptions {
  /** Where the account's collateral comes from (available + hold of the quote currency). Default: the simulator. */
  exchange?: Pick<ExchangeAdapter, "getBalances">;
  /** The quote currency (default USDC). */
  currency?: string;
  /**
   * How often (ms) the current price of EVERY open position is written (default 60,000; 0:
   * every tick). Between those writes only the positions whose rule state changed get it
   * (in the batched snapshot): the screens and the position details show the market price
   * (market_prices, written by the price loop on every tick) over the stored one, so a tick
   * where nothing changes writes nothing. docs/decisions/012-statistics-cache-and-monitor.md.
   */
  markIntervalMs?: number;
  /**
   * The products as the ACTIVE exchange trades them (whole Coinbase contracts live): what the
   * take-profit shares are rounded to (docs/decisions/025-contracts-and-rounding.md). Default:
   * the exchange's (when it can give products), else the simulator's, per its setting.
   */
  products?: TradingProductResolver;
}

export const MARK_INTERVAL_MS = 60_000;
/** When each database's open positions last had their current price written (per process). */
const lastMarkedAt = new WeakMap<Kysely<DB>, number>();

export interface MonitorResult {
  evaluated: number;
  /** Positions whose tick state was written in the batch. */
  updated: number;
  /** Positions handled under their symbol lock. */
  decided: number;
  /** Close-position jobs created. */
  closes: number;
  /** Requests released because their job was cancelled or failed. */
  released: number;
  equity: string | null;
}

const DEAD_JOB = new Set(["failed", "cancelled"]);

/** The status of each of these jobs that exists, by id. */
async function jobStatuses(db: Kysely<DB>, ids: number[]): Promise<Map<number, string>> {
  const rows = await db.selectFrom("jobs").select(["id", "status"]).where("id", "in", ids).execute();
  return new Map(rows.map((r) => [Number(r.id), r.status]));
}

/** Cheap test before parsing: does the stored rule state hold any requested close? */
const hasRequests = (p: MonitoredPosition) => {
  const requested = (p.ruleState as { requested?: unknown } | null)?.requested;
  return Boolean(requested && typeof requested === "object" && Object.keys(requested).length > 0);
};

/** A price with the product's tick decimals ("3015.00" for ETH-PERP). */
export function formatTickPrice(price: string, product: Pick<ProductSpec, "quoteIncrement">): string {
  const decimals = product.quoteIncrement.includes(".") ? product.quoteIncrement.split(".")[1]!.length : 0;
  return toFixed(price, decimals);
}

/**
 * Account equity: collateral (available + hold in the quote currency) plus the unrealized
 * P&L of every open position at the given prices. Null when the balances cannot be read.
 */
export async function accountEquity(
  positions: Pick<MonitoredPosition, "symbol" | "side" | "entryPrice" | "remainingQuantity" | "currentPrice">[],
  prices: Map<string, string>,
  exchange: Pick<ExchangeAdapter, "getBalances">,
  currency = "USDC",
): Promise<string | null> {
  let collateral;
  try {
    const balance = (await exchange.getBalances()).find((b) => b.currency === currency);
    if (!balance) return null;
    collateral = D(balance.available).plus(balance.hold);
  } catch {
    return null;
  }
  for (const p of positions) {
    const price = prices.get(p.symbol) ?? p.currentPrice;
    if (!price) continue;
    const move = p.side === "long" ? dec(price).minus(dec(p.entryPrice)) : dec(p.entryPrice).minus(dec(price));
    collateral = collateral.plus(move.times(dec(p.remainingQuantity)));
  }
  return collateral.toString();
}

/** The exchange's products when it can give them (name + getProduct), else the simulator's. */
function defaultProducts(db: Kysely<DB>, exchange: object): TradingProductResolver {
  const candidate = exchange as Partial<Pick<ExchangeAdapter, "name" | "getProduct">>;
  const usable = typeof candidate.getProduct === "function" && typeof candidate.name === "string";
  return createTradingProductResolver(
    db,
    usable ? { exchange: exchange as Pick<ExchangeAdapter, "name" | "getProduct"> } : {},
  );
}

const toMap = (prices: Map<string, string> | Record<string, string>) =>
  prices instanceof Map ? prices : new Map(Object.entries(prices));

export function createRulesMonitor(db: Kysely<DB>, options: MonitorOptions = {}) {
  const exchange = options.exchange ?? new SimulatorAdapter(db);
  const currency = options.currency ?? "USDC";
  const products = options.products ?? defaultProducts(db, exchange);
  return {
    /** One tick. `prices`: the tick's prices by symbol (default: the stored market prices). */
    tick: (prices?: Map<string, string> | Record<string, string>) =>
      monitorPositions(db, prices, { exchange, currency, markIntervalMs: options.markIntervalMs, products }),
    products,
  };
}

export async function monitorPositions(
  db: Kysely<DB>,
  pricesInput?: Map<string, string> | Record<string, string>,
  options: MonitorOptions = {},
): Promise<MonitorResult> {
  const prices = pricesInput
    ? toMap(pricesInput)
    : new Map([...(await getPrices(db))].map(([symbol, p]) => [symbol, p.price]));
  const result: MonitorResult = { evaluated: 0, updated: 0, decided: 0, closes: 0, released: 0, equity: null };
  const positions = await listMonitoredPositions(db);
  if (positions.length === 0) return result;
  const held = new Set(positions.map((p) => p.symbol));

  const exchange = options.exchange ?? new SimulatorAdapter(db);
  const products = options.products ?? defaultProducts(db, exchange);
  const equity = await accountEquity(positions, prices, exchange, options.currency);
  result.equity = equity;

  // Requested closes whose job died (cancelled by the emergency stop, failed for good).
  const requestsOf = (p: MonitoredPosition) =>
    hasRequests(p) ? Object.values(parseRuleState(p.ruleState).requested) : [];
  const requestedJobs = positions.flatMap((p) => requestsOf(p).map((r) => r.jobId));
  const deadJobs = new Set<number>();
  if (requestedJobs.length > 0) {
    const known = await jobStatuses(db, requestedJobs);
    for (const id of requestedJobs) if (!known.has(id) || DEAD_JOB.has(known.get(id)!)) deadJobs.add(id);
  }

  const now = Date.now();
  const snapshots: RuleSnapshotRow[] = [];
  const decide: { position: MonitoredPosition; price: string; product: ProductSpec }[] = [];
  // Each held symbol's product as the active exchange trades it, once per tick.
  const productOf = new Map<string, ProductSpec | null>();
  for (const symbol of held)
    if (prices.has(symbol)) productOf.set(symbol, await products.product(symbol).catch(() => null));
  for (const position of positions) {
    const price = prices.get(position.symbol);
    const product = productOf.get(position.symbol) ?? null;
    if (!price || !product) continue;
    result.evaluated++;
    const evaluation = evaluate(position, price, product, { equity, portfolioPercent: position.portfolioPercent });
    const hasDeadJob = deadJobs.size > 0 && requestsOf(position).some((r) => deadJobs.has(r.jobId));
    // A trigger backing off after a failed close (app/core/rules/state.ts) is not decided on every tick: no write until its wait ends.
    const held = evaluation.actions.length > 0 && position.ruleState ? parseRuleState(position.ruleState) : null;
    const due = held
      ? evaluation.actions.filter((a) => !ruleHeld(held, a.name, now, position.remainingQuantity))
      : evaluation.actions;
    const mustDecide = due.length > 0 || evaluation.skippedLevels.length > 0 || evaluation.trailingArmed || hasDeadJob;
    if (mustDecide) decide.push({ position, price, product });
    else if (evaluation.stateChanged || evaluation.state.stopPrice !== position.stopPrice)
      snapshots.push({ id: position.id, ...evaluation.state });
  }
  // The tick's state in one transaction (one commit): every position's price when it is
  // due (markIntervalMs), then what changed. Nothing due and nothing changed: no write.
  const markEvery = options.markIntervalMs ?? MARK_INTERVAL_MS;
  const markDue = markEvery <= 0 || now - (lastMarkedAt.get(db) ?? Number.NEGATIVE_INFINITY) >= markEvery;
  if (markDue || snapshots.length > 0) {
    result.updated = await db.transaction().execute(async (trx) => {
      if (markDue) await markOpenPositions(trx, new Map([...prices].filter(([symbol]) => held.has(symbol))));
      return writeRuleSnapshots(trx, snapshots);
    });
    if (markDue) lastMarkedAt.set(db, now);
  }

  for (const item of decide) {
    const outcome = await decideUnderLock(db, item.position.id, item.position.symbol, item.price, item.product, equity);
    result.decided++;
    result.closes += outcome.closes;
    result.released += outcome.released;
  }
  return result;
}

function describeLevels(levels: number[]): string {
  return levels.map((i) => String(i + 1)).join(", ");
}

/** One position, under its symbol lock: re-read, release dead requests, re-evaluate, request. */
async function decideUnderLock(
  db: Kysely<DB>,
  positionId: string,
  symbol: string,
  price: string,
  product: ProductSpec,
  equity: string | null,
): Promise<{ closes: number; released: number }> {
  return db.transaction().execute(async (trx) => {
    await lockSymbol(trx, symbol);
    const fresh = await getPositionForUpdate(trx, positionId);
    if (fresh?.status !== "open") return { closes: 0, released: 0 };
    let state = parseRuleState(fresh.ruleState);
    let released = 0;

    const requested = Object.entries(state.requested);
    if (requested.length > 0) {
      const status = await jobStatuses(
        trx,
        requested.map(([, r]) => r.jobId),
      );
      for (const [name, request] of requested) {
        const jobStatus = status.get(request.jobId);
        if (jobStatus !== undefined && !DEAD_JOB.has(jobStatus)) continue;
        const before = state;
        state = releaseRequest(state, name, { failed: jobStatus === "failed", remaining: fresh.remainingQuantity });
        released++;
        await alarmIfRepeated(trx, symbol, positionId, before, state, name, request.trigger);
        await recordActivity(trx, {
          type: "trade",
          level: "warning",
          message: `Rule close ${name} for ${symbol} was not sent (job #${request.jobId} ${jobStatus ?? "missing"}): it may trigger again`,
          data: { positionId, symbol, jobId: request.jobId, trigger: name },
        });
      }
    }

    const evaluation: Evaluation = evaluate({ ...fresh, ruleState: state }, price, product, {
      equity,
      portfolioPercent: fresh.portfolioPercent,
    });
    const shownPrice = formatTickPrice(price, product);
    if (evaluation.skippedLevels.length > 0) {
      state = recordSkipped(state, evaluation.skippedLevels);
      await recordActivity(trx, {
        type: "trade",
        level: "info",
        message: `Take profit ${describeLevels(evaluation.skippedLevels)} reached for ${symbol} at ${shownPrice}: its share of ${fresh.quantity} cannot be split off in whole ${product.baseIncrement} ${product.base} steps (minimum ${product.baseMinSize}), left for the last level`,
        data: { positionId, symbol, levels: evaluation.skippedLevels.map((i) => i + 1), price },
      });
    }
    if (evaluation.trailingArmed) {
      const trailing = fresh.advancedControls?.trailingStop;
      await recordActivity(trx, {
        type: "trade",
        level: "info",
        message: `Trailing stop armed for ${symbol} at ${shownPrice}: closes on a ${toFixed(D(trailing?.execute ?? 0).times(100), 1)}% retrace from the best price`,
        data: { positionId, symbol, price, activation: trailing?.activation, execute: trailing?.execute },
      });
    }

    let closes = 0;
    for (const action of evaluation.actions) {
      if (ruleHeld(state, action.name, Date.now(), fresh.remainingQuantity)) continue; // its last close failed: backing off (state.ts), not every tick
      const payload: ClosePositionJob = {
        positionId,
        quantity: action.quantity,
        reason: action.reason,
        source: "rule",
        trigger: action.name,
      };
      const job = await enqueueJob(trx, {
        task: "close-position",
        payload,
        jobKey: action.jobKey,
        priority: CLOSE_JOB_PRIORITY,
      });
      if (!job.created) continue; // this trigger already has its job
      state = recordRequest(state, action, job.id);
      closes++;
      await recordActivity(trx, {
        type: "trade",
        level: action.trigger === "sl" ? "warning" : "info",
        message: `${action.reason}: closing ${action.closeQuantity} ${symbol} at ${shownPrice}`,
        data: {
          positionId,
          symbol,
          trigger: action.name,
          levels: action.levels.map((i) => i + 1),
          quantity: action.quantity,
          closeQuantity: action.closeQuantity,
          price,
          jobId: job.id,
        },
      });
      await appendEvent(trx, "trade_update", {
        positionId,
        symbol,
        action: "close",
        trigger: action.name,
        message: action.reason,
      });
    }

    await updatePosition(trx, positionId, {
      ruleState: state,
      currentPrice: evaluation.state.currentPrice,
      maxDrawdown: evaluation.state.maxDrawdown,
      trailingStopActive: evaluation.state.trailingStopActive,
      trailingBestPrice: evaluation.state.trailingBestPrice,
      stopPrice: evaluation.state.stopPrice,
      ...(evaluation.state.portfolioPercent !== null ? { portfolioPercent: evaluation.state.portfolioPercent } : {}),
    });
    if (closes > 0 || evaluation.trailingArmed)
      await appendEvent(trx, "dashboard_update", { reason: "rules", positionId, symbol });
    return { closes, released };
  });
}
