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
// Only the default paper profile is the app's account; other paper profiles are liquidated
// on the simulator alone. Live prices (source coinbase-cde) never act on the simulator.
import type { Kysely } from "kysely";
import { D, toFixed } from "../../app/core/decimal.ts";
import { DEFAULT_PAPER_PROFILE_KEY, type Liquidation, SIMULATOR_NAME, liquidateAccounts, orderRowToOrder } from "../../app/core/exchange/simulator/adapter.ts";
import type { ExchangeOrder } from "../../app/core/exchange/types.ts";
import { recordActivity } from "../../db/queries/activity-logs.ts";
import { appendEvent } from "../../db/queries/events.ts";
import { getOpenPosition } from "../../db/queries/positions.ts";
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

export interface PaperMarginResult {
  liquidations: Liquidation[];
  /** The app trades booked for liquidations (this tick's and any left over). */
  booked: string[];
}

const caughtUp = new WeakSet<object>();

/** What one tick of simulator prices does to the paper accounts' margin. */
export async function applyPaperMargin(db: Db, ticks: MarginTick[]): Promise<PaperMarginResult> {
  const symbols = [...new Set(ticks.filter((t) => t.source !== LIVE_SOURCE).map((t) => t.symbol))];
  const result: PaperMarginResult = { liquidations: [], booked: [] };
  if (symbols.length === 0) return result;
  result.liquidations = await liquidateAccounts(db, { symbols });
  const profileId = await defaultProfileId(db);
  if (!profileId) return result;
  for (const liquidation of result.liquidations) {
    if (liquidation.profileId !== profileId) continue;
    if (await bookLiquidation(db, liquidation.order, liquidation)) result.booked.push(liquidation.order.clientOrderId);
  }
  if (!caughtUp.has(db)) {
    caughtUp.add(db);
    result.booked.push(...(await bookMissedLiquidations(db, profileId)));
  }
  return result;
}

async function defaultProfileId(db: Db): Promise<string | null> {
  const row = await db.selectFrom("profiles").select("id").where("profile_id", "=", DEFAULT_PAPER_PROFILE_KEY).executeTakeFirst();
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
    const order = await db.selectFrom("sim_orders").selectAll().where("client_order_id", "=", row.client_order_id).executeTakeFirstOrThrow();
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
    await appendEvent(trx, "trade_update", { id: tradeId, symbol: order.symbol, side: order.side, status: "executed", reason: "liquidation", price: order.averagePrice, quantity: order.filledQuantity });
    await appendEvent(trx, "dashboard_update", { reason: "liquidation" });
  });
  return true;
}
