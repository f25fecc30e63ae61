// Paper margin on every price tick (docs/decisions/024-paper-margin.md): what the simulator
// does as an exchange between orders, and the app's book following it in the same tick.
//
// - Liquidation: the simulator closes each position whose mark reached its liquidation price
//   (liquidateAccounts: maintenance margin per product, isolated on its own margin, cross on
//   the account) with a filled order liq-<uuid>. The app books that fill like an exchange-side
//   fill it did not send (the pattern of worker/tasks/resolve-drift.ts): a reduce-only trade
//   of source "liquidation" with the order's client order id, through bookOrder (position
//   closed, FIFO realized P&L, fee), then an activity-log error "Position liquidated: …" and
//   live trade_update + dashboard_update events. A liquidation the app has not booked yet (the
//   worker died between the two) is booked on the next start: the trade's client order id is
//   the order's, so it is never booked twice.
//
// - Funding: at each funding boundary (SIM_FUNDING_INTERVAL_SECONDS, default every hour on
//   the hour) the simulator charges every position open at the boundary notional at the mark
//   x SIM_FUNDING_RATE (default 0.0001; longs pay shorts when positive; 0 disables) on its
//   balance (applyFunding: one sim_funding row per profile, symbol and interval, unique). The
//   app books each payment once (funding_payments, unique by the sim_funding id, written under
//   the symbol lock) onto its open position if that position was open at the boundary (the
//   one charged): positions.funding and positions.realized_pnl, which the P&L totals include
//   (docs/pnl.md); an activity line and live events. Funding charged before the last
//   statistics reset is never booked (it went with the positions the reset deleted).
//   The first tick after a boundary does it; later ticks of the same interval skip it
//   without a query. Live Coinbase charges its own funding: not modelled here.
//
// Only the default paper profile is the app's account; other paper profiles are liquidated
// on the simulator alone. Live prices (source coinbase-cde) never act on the simulator.
import type { Kysely } from "kysely";
import { D, toFixed } from "../../app/core/decimal.ts";
import { DEFAULT_PAPER_PROFILE_KEY } from "#exchange/simulator/account.ts";
import { SIMULATOR_NAME } from "#exchange/simulator/adapter.ts";
import {
  type FundingPayment,
  applyFunding,
  fundingBoundary,
  fundingRowToPayment,
} from "#exchange/simulator/funding.ts";
import { type Liquidation, liquidateAccounts } from "#exchange/simulator/liquidation.ts";
import { orderRowToOrder } from "#exchange/simulator/rows.ts";
import { EnvSchema } from "../../app/core/env.ts";
import type { ExchangeOrder } from "../../app/core/exchange/types.ts";
import { recordActivity } from "../../db/queries/activity-logs.ts";
import { appendEvent } from "../../db/queries/events.ts";
import { fundingResetAt } from "../../db/queries/funding.ts";
import { getOpenPosition, lockSymbol } from "../../db/queries/positions.ts";
import { getTrade, getTradeByClientOrderId, insertTrade } from "../../db/queries/trades.ts";
import { newId } from "../../db/queries/util.ts";
import type { DB } from "../../db/schema.ts";
import { bookOrder } from "../execution.ts";

type Db = Kysely<DB>;

/** A tick's price of one symbol (worker/monitor/price-loop.ts). */
export interface MarginTick {
  symbol: string;
  price: string;
  source?: string;
}

/** Live Coinbase prices (app/core/price-source.ts LIVE_PRICE_SOURCE): the simulator does not run on them. */
const LIVE_SOURCE = "coinbase-cde";

export const LIQUIDATION_SOURCE = "liquidation";
export const LIQUIDATION_PREFIX = "liq-";

export interface PaperMarginOptions {
  now?: number;
  /** Default SIM_FUNDING_RATE from the environment ("0.0001"). */
  fundingRate?: string;
  /** Default SIM_FUNDING_INTERVAL_SECONDS from the environment (3600) x 1000. */
  fundingIntervalMs?: number;
}

export interface PaperMarginResult {
  liquidations: Liquidation[];
  /** The app trades booked for liquidations (this tick's and any left over). */
  booked: string[];
  /** The simulator's funding payments made on this tick. */
  funding: FundingPayment[];
  /** The funding payments the app booked on this tick (ids of sim_funding). */
  fundingBooked: string[];
}

const caughtUp = new WeakSet<object>();
/** Per database: the funding boundary already settled by this process. */
const fundedBoundary = new WeakMap<object, number>();

/** The funding settings from the environment (app/core/env.ts), read per call (tests change them). */
export function fundingSettings(env: Record<string, string | undefined> = process.env): {
  rate: string;
  intervalMs: number;
} {
  const blank = (v: string | undefined) => (v === undefined || v === "" ? undefined : v);
  const rate = EnvSchema.shape.SIM_FUNDING_RATE.parse(blank(env.SIM_FUNDING_RATE));
  const seconds = EnvSchema.shape.SIM_FUNDING_INTERVAL_SECONDS.parse(blank(env.SIM_FUNDING_INTERVAL_SECONDS));
  return { rate, intervalMs: seconds * 1000 };
}

/** What one tick of simulator prices does to the paper accounts: liquidations, then funding. */
export async function applyPaperMargin(
  db: Db,
  ticks: MarginTick[],
  options: PaperMarginOptions = {},
): Promise<PaperMarginResult> {
  const symbols = [...new Set(ticks.filter((t) => t.source !== LIVE_SOURCE).map((t) => t.symbol))];
  const result: PaperMarginResult = { liquidations: [], booked: [], funding: [], fundingBooked: [] };
  if (symbols.length === 0) return result;
  result.liquidations = await liquidateAccounts(db, { symbols });
  const profileId = await defaultProfileId(db);
  for (const liquidation of result.liquidations) {
    if (liquidation.profileId !== profileId) continue;
    if (await bookLiquidation(db, liquidation.order, liquidation)) result.booked.push(liquidation.order.clientOrderId);
  }
  const first = !caughtUp.has(db);
  if (first && profileId) result.booked.push(...(await bookMissedLiquidations(db, profileId)));
  caughtUp.add(db);

  const env = options.fundingRate === undefined || options.fundingIntervalMs === undefined ? fundingSettings() : null;
  const rate = options.fundingRate ?? env!.rate;
  const intervalMs = options.fundingIntervalMs ?? env!.intervalMs;
  const now = options.now ?? Date.now();
  const boundary = fundingBoundary(now, intervalMs);
  if (!D(rate).eq(0) && fundedBoundary.get(db) !== boundary) {
    result.funding = await applyFunding(db, { rate, intervalMs, now });
    fundedBoundary.set(db, boundary);
    if (profileId && (result.funding.length > 0 || first)) result.fundingBooked = await bookFunding(db, profileId, now);
  }
  return result;
}

/**
 * Books onto the app's positions every funding payment of the app's paper account not booked
 * yet (this boundary's, and any a stopped worker left), each once: under the symbol lock, the
 * funding_payments row (unique by the sim_funding id) and the position's funding and realized
 * P&L change together.
 */
export async function bookFunding(
  db: Db,
  profileId: string,
  now = Date.now(),
  sinceMs = 7 * 86_400_000,
): Promise<string[]> {
  // Funding charged before the last statistics reset went with the positions it deleted:
  // never booked again (re-checked under the symbol lock, bookFundingPayment).
  const resetAt = await fundingResetAt(db);
  const rows = await db
    .selectFrom("sim_funding as f")
    .leftJoin("funding_payments as p", (join) =>
      join.onRef("p.exchange_ref", "=", "f.id").on("p.exchange", "=", SIMULATOR_NAME),
    )
    .selectAll("f")
    .where("f.profile_id", "=", profileId)
    .where("f.created_at", ">=", now - sinceMs)
    .where("f.created_at", ">", resetAt)
    .where("p.id", "is", null)
    .orderBy("f.created_at")
    .orderBy("f.symbol")
    .execute();
  const booked: string[] = [];
  for (const row of rows) {
    const payment = fundingRowToPayment(row);
    if (await bookFundingPayment(db, payment)) booked.push(payment.id);
  }
  return booked;
}

async function bookFundingPayment(db: Db, payment: FundingPayment): Promise<boolean> {
  // Whose position it is (its entry on the simulator), read before the transaction. Funding
  // belongs to the position it was charged to: one open at the boundary, so its entry order
  // was written before it (a position opened later never takes an earlier interval's funding).
  const candidate = await getOpenPosition(db, payment.symbol);
  const entry = candidate?.entryTradeId ? await getTrade(db, candidate.entryTradeId) : null;
  const onSimulator = candidate !== null && (!entry || entry.exchange === SIMULATOR_NAME);
  const openedBy = entry ? Date.parse(entry.createdAt) : candidate?.createdAt ? Date.parse(candidate.createdAt) : 0;
  const openAtBoundary = openedBy <= payment.intervalStart;
  return db.transaction().execute(async (trx) => {
    await lockSymbol(trx, payment.symbol);
    const done = await trx
      .selectFrom("funding_payments")
      .select("id")
      .where("exchange", "=", SIMULATOR_NAME)
      .where("exchange_ref", "=", payment.id)
      .executeTakeFirst();
    if (done) return false;
    // A reset that committed since the rows were read (it takes every symbol lock).
    if (payment.createdAt <= (await fundingResetAt(trx))) return false;
    const open = await getOpenPosition(trx, payment.symbol, { forUpdate: true });
    const position =
      open && onSimulator && openAtBoundary && open.id === candidate!.id && open.side === payment.side ? open : null;
    const now = Date.now();
    await trx
      .insertInto("funding_payments")
      .values({
        id: newId(),
        exchange: SIMULATOR_NAME,
        exchange_ref: payment.id,
        position_id: position?.id ?? null,
        symbol: payment.symbol,
        side: payment.side,
        quantity: payment.quantity,
        mark_price: payment.markPrice,
        rate: payment.rate,
        amount: payment.amount,
        interval_start: payment.intervalStart,
        created_at: payment.createdAt,
      })
      .execute();
    if (position) {
      await trx
        .updateTable("positions")
        .set({
          funding: D(position.funding).plus(payment.amount).toString(),
          realized_pnl: D(position.realizedPnl).plus(payment.amount).toString(),
          updated_at: now,
        })
        .where("id", "=", position.id)
        .execute();
    }
    const paid = D(payment.amount).lt(0);
    const at = new Date(payment.intervalStart).toISOString().replace(".000Z", "Z");
    await recordActivity(trx, {
      type: "trade",
      level: "info",
      message: `Funding ${paid ? "paid" : "received"}: ${payment.side.toUpperCase()} ${payment.quantity} ${payment.symbol} ${paid ? "paid" : "received"} ${toFixed(D(payment.amount).abs(), 2)} USDC (rate ${payment.rate} x ${toFixed(D(payment.quantity).times(payment.markPrice), 2)} at mark ${payment.markPrice}, interval ${at})${position ? "" : "; no open position of the app on this symbol"}`,
      data: {
        fundingId: payment.id,
        positionId: position?.id ?? null,
        symbol: payment.symbol,
        amount: payment.amount,
        rate: payment.rate,
        markPrice: payment.markPrice,
        intervalStart: payment.intervalStart,
      },
    });
    await appendEvent(trx, "trade_update", {
      positionId: position?.id ?? null,
      symbol: payment.symbol,
      reason: "funding",
      amount: payment.amount,
    });
    await appendEvent(trx, "dashboard_update", { reason: "funding" });
    return true;
  });
}

const profileIds = new WeakMap<object, string>();

/** The app's paper account (profiles.id of the default paper profile; it never changes once created). */
async function defaultProfileId(db: Db): Promise<string | null> {
  const known = profileIds.get(db);
  if (known) return known;
  const row = await db
    .selectFrom("profiles")
    .select("id")
    .where("profile_id", "=", DEFAULT_PAPER_PROFILE_KEY)
    .executeTakeFirst();
  if (row) profileIds.set(db, row.id);
  return row?.id ?? null;
}

/** Liquidations of the app's paper account that have no trade yet (the worker stopped in between). */
export async function bookMissedLiquidations(db: Db, profileId: string, sinceMs = 7 * 86_400_000): Promise<string[]> {
  const rows = await db
    .selectFrom("sim_orders")
    .select("client_order_id")
    .where("profile_id", "=", profileId)
    .where("status", "=", "filled")
    .where("client_order_id", "like", `${LIQUIDATION_PREFIX}%`)
    .where("updated_at", ">=", Date.now() - sinceMs)
    .orderBy("created_at")
    .execute();
  const booked: string[] = [];
  for (const row of rows) {
    if (await getTradeByClientOrderId(db, row.client_order_id)) continue;
    const order = await db
      .selectFrom("sim_orders")
      .selectAll()
      .where("client_order_id", "=", row.client_order_id)
      .executeTakeFirstOrThrow();
    if (await bookLiquidation(db, orderRowToOrder(order), null)) booked.push(row.client_order_id);
  }
  return booked;
}

/**
 * The app's side of one liquidation: the reduce-only trade booked through bookOrder, the
 * activity-log error and the live events. False when there is nothing of the app's to book
 * (already booked, or the app's position on that symbol is not on the simulator).
 */
async function bookLiquidation(db: Db, order: ExchangeOrder, liquidation: Liquidation | null): Promise<boolean> {
  if (await getTradeByClientOrderId(db, order.clientOrderId)) return false;
  const position = await getOpenPosition(db, order.symbol);
  if (position?.entryTradeId) {
    // The app's position on this symbol must be the simulator's (not a sandbox/live one).
    const entry = await getTrade(db, position.entryTradeId);
    if (entry && entry.exchange !== SIMULATOR_NAME) return false;
  }
  const tradeId = newId();
  try {
    await insertTrade(db, {
      id: tradeId,
      symbol: order.symbol,
      side: order.side,
      orderType: "market",
      quantity: order.quantity,
      price: null,
      source: LIQUIDATION_SOURCE,
      clientOrderId: order.clientOrderId,
      exchange: SIMULATOR_NAME,
      leverage: order.leverage,
      marginType: order.marginType,
      reduceOnly: true,
    });
  } catch (error) {
    if (await getTradeByClientOrderId(db, order.clientOrderId)) return false; // another worker booked it
    throw error;
  }
  const trade = (await getTrade(db, tradeId))!;
  await bookOrder(db, trade, order, SIMULATOR_NAME);
  const booked = (await getTrade(db, tradeId))!;

  const side = order.side === "sell" ? "LONG" : "SHORT";
  const how =
    liquidation === null
      ? `at ${order.averagePrice}`
      : D(liquidation.liquidationPrice).eq(liquidation.markPrice) && liquidation.marginType !== "isolated"
        ? `at the mark ${liquidation.markPrice} with the cross account`
        : `at its liquidation price ${liquidation.liquidationPrice} (mark ${liquidation.markPrice})`;
  const margin = `${order.marginType} ${order.leverage}x`;
  const pnl = booked.realizedPnl !== null ? `, realised P&L ${toFixed(booked.realizedPnl, 2)} (net of fees)` : "";
  await db.transaction().execute(async (trx) => {
    await recordActivity(trx, {
      type: "trade",
      level: "error",
      message: `Position liquidated: ${side} ${order.filledQuantity} ${order.symbol} (${margin}) closed by the simulator ${how}: its margin fell to the maintenance margin; fee ${order.fee}${pnl}`,
      data: {
        tradeId,
        orderId: order.orderId,
        clientOrderId: order.clientOrderId,
        positionId: booked.positionId ?? position?.id ?? null,
        symbol: order.symbol,
        quantity: order.filledQuantity,
        price: order.averagePrice,
        markPrice: liquidation?.markPrice ?? null,
        fee: order.fee,
        marginType: order.marginType,
        leverage: order.leverage,
      },
    });
    await appendEvent(trx, "trade_update", {
      id: tradeId,
      symbol: order.symbol,
      side: order.side,
      status: "executed",
      reason: "liquidation",
      price: order.averagePrice,
      quantity: order.filledQuantity,
    });
    await appendEvent(trx, "dashboard_update", { reason: "liquidation" });
  });
  return true;
}
