// close-position: one reduce-only market order that closes (part of) an open position, for a
// rule the monitor triggered or for a person's Close button. Under the symbol lock (the lock
// bookOrder takes first too) it sends min(requested, remaining − closes already pending), so
// closes racing each other never add up to more than the position. The trade carries the
// client order id it was written with (a UUID, issue 15): a retried job finds its trade by
// job id and that order by its id instead of sending a second.
// A rule close that sends nothing (position already closing, emergency stop, refused order)
// releases its request, so the rule may fire again under a new job key.
// Protection never silently ends (issue 21, defect 6): a refused close or a job failed for
// good backs its trigger off (5 s, 15 s, 60 s ... every 5 min: RULE_BACKOFF_MS) and it is
// requested again; the MAX_RULE_FAILURES-th failure in a row of a kind raises ONE error line
// saying so and when it retries (docs/decisions/008-position-rules.md).
// Sizes are the ACTIVE exchange's (exchange/trading-product.ts: whole Coinbase
// contracts live). A size refusal is a SizeRefusalError (a code: ours, or the exchange's,
// never a reading of its message). It re-sizes: a take-profit share too small to send is left
// for the last level (its levels recorded as skipped, not a failure); a close of everything is
// sent again with the product re-read, under the same back-off and alarm (defect 7: an
// exchange holding less than the app is neither a loop every 30 s nor a disabled stop;
// docs/decisions/025-contracts-and-rounding.md).
import type { z } from "zod";
import {
  MAX_RULE_FAILURES,
  RULE_BACKOFF_MS,
  type RuleState,
  type RuleTrigger,
  closingProduct,
  findRequestByJob,
  holderName,
  parseRuleState,
  recordSkipped,
  releaseRequest,
  ruleBackoffMs,
  sizeClose,
} from "../../app/core/rules/index.ts";
import { SizeRefusalError } from "../../app/core/exchange/errors.ts";
import { tradingProductsFor } from "#exchange/trading-product.ts";
import type { ExchangeAdapter, PlaceOrderRequest } from "../../app/core/exchange/types.ts";
import type { ClosePositionPayload } from "../../app/core/schemas/job-payloads.ts";
import { recordActivity } from "../../db/queries/activity-logs.ts";
import { appendEvent } from "../../db/queries/events.ts";
import {
  getPosition,
  getPositionForUpdate,
  lockSymbol,
  pendingCloseQuantity,
  updatePosition,
} from "../../db/queries/positions.ts";
import { getTradeByJob, insertTrade, newClientOrderId } from "../../db/queries/trades.ts";
import { type Db, newId } from "../../db/queries/util.ts";
import { PermanentFailure, adapterFor, executeTrade } from "../execution.ts";
import { resolveSymbol } from "../../app/core/products.ts";
import type { TaskContext } from "./index.ts";

export type CloseOutcome =
  | "executed"
  | "pending"
  | "failed"
  | "cancelled"
  | "completed"
  | "unknown"
  | "nothing-to-close";

export async function closePosition(
  ctx: TaskContext,
  payload: z.infer<typeof ClosePositionPayload>,
): Promise<CloseOutcome> {
  const existing = await getTradeByJob(ctx.db, ctx.jobId);
  if (existing) return settle(ctx, payload, await executeTrade(ctx, existing.id)); // a retry: the same order

  const peek = await getPosition(ctx.db, payload.positionId);
  if (!peek) throw new PermanentFailure(`Position ${payload.positionId} not found`);
  // Sized as the exchange that HOLDS the position trades it (decision 039), not the active one.
  const holder = await adapterFor(ctx.exchange, peek.exchange);
  const products = tradingProductsFor(ctx.db, holder);
  const traded = await products.product(peek.symbol);
  if (!traded) throw new PermanentFailure(`Unknown symbol ${peek.symbol}`);
  const product = closingProduct(traded, resolveSymbol(peek.symbol), peek.exchange, payload.quantity);

  const written = await ctx.db.transaction().execute(async (trx) => {
    await lockSymbol(trx, peek.symbol);
    const position = await getPositionForUpdate(trx, payload.positionId);
    if (position?.status !== "open") return { skipped: "the position is already closed" } as const;
    const pending = await pendingCloseQuantity(trx, position.id);
    const size = sizeClose({
      requested: payload.quantity,
      remaining: position.remainingQuantity,
      pending,
      product,
      symbol: position.symbol,
      base: traded.base,
      exchangeLabel: holderName(peek.exchange),
    });
    // A share smaller than one contract while whole contracts remain: a size, not a failure.
    if (!size.ok) return { skipped: size.reason, ...(size.kind === "share" ? { undersized: true } : {}) } as const;
    const quantity = size.quantity;
    const tradeId = newId();
    await insertTrade(trx, {
      id: tradeId,
      symbol: position.symbol,
      side: position.side === "long" ? "sell" : "buy",
      orderType: "market",
      quantity,
      price: null,
      source: payload.source,
      clientOrderId: newClientOrderId(),
      exchange: position.exchange,
      signalId: null,
      positionId: position.id,
      jobId: ctx.jobId,
      leverage: position.leverage,
      marginType: position.marginType,
      reduceOnly: true,
    });
    await appendEvent(trx, "trade_update", {
      id: tradeId,
      symbol: position.symbol,
      side: position.side === "long" ? "sell" : "buy",
      status: "pending",
      reason: payload.reason,
    });
    return { tradeId, quantity, symbol: position.symbol } as const;
  });

  if ("skipped" in written) {
    await ctx.db.transaction().execute(async (trx) => {
      await recordActivity(trx, {
        type: "trade",
        level: "info",
        message: `${payload.reason}: nothing sent for ${peek.symbol}: ${written.skipped}`,
        data: { positionId: peek.id, symbol: peek.symbol, source: payload.source, jobId: ctx.jobId },
      });
    });
    if (payload.source === "rule") {
      await releaseRuleRequest(ctx.db, peek.symbol, peek.id, ctx.jobId, {
        failed: false,
        skipLevels: "undersized" in written,
      });
    }
    return "nothing-to-close";
  }
  const watched = watchRefusals(ctx.exchange);
  const status = await executeTrade({ ...ctx, exchange: watched.exchange }, written.tradeId);
  const refusal = watched.refusal();
  if (status === "failed" && isSizeRefusal(refusal)) {
    products.forget(peek.symbol); // the contract size may have changed: read it again
    if (payload.source === "rule") {
      // A partial take-profit leaves its share to the last level (not a failure); a close of
      // everything is sent again, re-sized with the product re-read, after its back-off.
      const everything = payload.quantity === "all";
      await releaseRuleRequest(ctx.db, peek.symbol, peek.id, ctx.jobId, {
        failed: everything,
        skipLevels: !everything,
        note: (retryInMs) => ({
          message: `${payload.reason}: ${written.quantity} ${peek.symbol} refused for its size (${refusal.message}): ${everything ? `re-sized and tried again in ${duration(retryInMs ?? 0)}` : "its share is left for the last level"}`,
          data: {
            positionId: peek.id,
            symbol: peek.symbol,
            jobId: ctx.jobId,
            quantity: written.quantity,
            code: refusal.code,
          },
        }),
      });
    }
    return status;
  }
  return settle(ctx, payload, status, peek.symbol);
}

async function settle(
  ctx: TaskContext,
  payload: z.infer<typeof ClosePositionPayload>,
  status: CloseOutcome,
  symbol?: string,
): Promise<CloseOutcome> {
  if ((status === "failed" || status === "cancelled") && payload.source === "rule") {
    const position = await getPosition(ctx.db, payload.positionId);
    if (position) await releaseRuleRequest(ctx.db, symbol ?? position.symbol, position.id, ctx.jobId, { failed: true });
  }
  return status;
}

/**
 * A refusal of the order's SIZE (not of the account, the credentials or the market), known by
 * its class and code (app/core/exchange/errors.ts, coinbase/refusals.ts), whatever its message.
 */
export function isSizeRefusal(error: unknown): error is SizeRefusalError {
  return error instanceof SizeRefusalError;
}

/** The exchange with the error its placeOrder threw kept (executeTrade only records the message). */
function watchRefusals(exchange: ExchangeAdapter): { exchange: ExchangeAdapter; refusal: () => unknown } {
  let refusal: unknown = null;
  const wrapped = new Proxy(exchange, {
    get(target, property) {
      if (property === "placeOrder") {
        return async (request: PlaceOrderRequest) => {
          try {
            return await target.placeOrder(request);
          } catch (error) {
            refusal = error;
            throw error;
          }
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { exchange: wrapped, refusal: () => refusal };
}

/**
 * The rule request this job carried will not fill: the rule fires again (under a new job key);
 * `failed`, after its back-off, with one alarm on the MAX_RULE_FAILURES-th failure in a row.
 */
export async function releaseRuleRequest(
  db: Db,
  symbol: string,
  positionId: string,
  jobId: number,
  options: {
    failed: boolean;
    /** A take-profit too small to send: its levels are skipped (left for the last level). */
    skipLevels?: boolean;
    /** A warning line written with the release (before any alarm), told the back-off (ms, null when none). */
    note?: (retryInMs: number | null) => { message: string; data: Record<string, unknown> };
  },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await lockSymbol(trx, symbol);
    const position = await getPositionForUpdate(trx, positionId);
    if (position?.status !== "open") return false;
    const state = parseRuleState(position.ruleState);
    const found = findRequestByJob(state, jobId);
    if (!found) return false;
    let next = releaseRequest(state, found.name, { failed: options.failed, remaining: position.remainingQuantity });
    if (
      options.skipLevels &&
      found.request.trigger === "tp" &&
      found.request.quantity !== "all" &&
      found.request.levels.length > 0
    ) {
      next = recordSkipped(next, found.request.levels);
    }
    await updatePosition(trx, positionId, { ruleState: next });
    if (options.note) {
      const retryInMs = options.failed ? ruleBackoffMs(next.failures[found.request.trigger] ?? 1) : null;
      await recordActivity(trx, { type: "trade", level: "warning", ...options.note(retryInMs) });
    }
    await alarmIfRepeated(trx, symbol, positionId, state, next, found.name, found.request.trigger);
    return true;
  });
}

const KIND_TEXT = { tp: "Take-profit", sl: "Stop-loss", trail: "Trailing-stop" } as const;

const duration = (ms: number) =>
  ms % 60_000 === 0 && ms >= 120_000 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`;

/**
 * ONE error line when a kind of rule's closes have failed MAX_RULE_FAILURES times in a row for
 * a position (not one per retry): protection is paused, retrying after its back-off, never
 * given up. Nothing when the count did not just reach it.
 */
export async function alarmIfRepeated(
  db: Db,
  symbol: string,
  positionId: string,
  before: RuleState,
  after: RuleState,
  name: string,
  kind: RuleTrigger,
) {
  const was = before.failures[kind] ?? 0;
  const count = after.failures[kind] ?? 0;
  if (!(was < MAX_RULE_FAILURES && count >= MAX_RULE_FAILURES)) return;
  const backoff = ruleBackoffMs(count);
  const cap = RULE_BACKOFF_MS[RULE_BACKOFF_MS.length - 1]!;
  const retryAt = after.holdUntil?.[name] ?? Date.now() + backoff;
  await recordActivity(db, {
    type: "trade",
    level: "error",
    message: `${KIND_TEXT[kind]} closes for ${symbol} failed ${count} times in a row: protection paused, retrying in ${duration(backoff)} (then at most every ${duration(cap)} until one fills); check the exchange or close it by hand`,
    data: { positionId, symbol, kind, trigger: name, failures: count, retryAt: new Date(retryAt).toISOString() },
  });
}
