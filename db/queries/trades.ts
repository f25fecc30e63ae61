// Trades: one row per order we send (docs/spec/api.md#shapes Trade), mirroring the exchange's order.
// The row is written (pending, with its client order id) BEFORE the exchange is called,
// so a crash in between is found again by that id.
import { randomUUID } from "node:crypto";
import { normalizeDecimal } from "../../app/core/decimal.ts";
import { type SelectQueryBuilder, sql } from "kysely";
import type { DB, TradeRow } from "../schema.ts";
import { tradeOfStrategy } from "./strategies.ts";
import { type Db, isMysql, nowMs, toIso } from "./util.ts";

import type { TradeStatus, Trade } from "#app/core/types/trades.ts";

/** The domain types live in app/core (decision 042); callers may keep importing them from here. */
export type { TradeStatus, Trade } from "#app/core/types/trades.ts";

export function tradeRowToTrade(row: TradeRow): Trade {
  return {
    id: row.id,
    symbol: row.symbol,
    side: row.side === "sell" ? "sell" : "buy",
    orderType: row.order_type === "limit" ? "limit" : "market",
    quantity: normalizeDecimal(row.quantity)!,
    price: normalizeDecimal(row.price),
    executedPrice: normalizeDecimal(row.executed_price),
    executedQuantity: normalizeDecimal(row.executed_quantity) ?? "0",
    fee: normalizeDecimal(row.fee) ?? "0",
    status: row.status as TradeStatus,
    source: row.source,
    orderId: row.order_id,
    clientOrderId: row.client_order_id,
    exchange: row.exchange,
    signalId: row.signal_id,
    positionId: row.position_id,
    jobId: row.job_id == null ? null : Number(row.job_id),
    leverage: row.leverage == null ? null : Number(row.leverage),
    marginType: row.margin_type,
    reduceOnly: Boolean(Number(row.reduce_only)),
    errorMessage: row.error_message,
    realizedPnl: normalizeDecimal(row.realized_pnl),
    strategyId: row.strategy_id ?? null,
    createdAt: toIso(row.created_at)!,
    executedAt: toIso(row.executed_at),
    updatedAt: toIso(row.updated_at)!,
  };
}

export interface NewTrade extends Pick<Trade, "id" | "symbol" | "side" | "orderType" | "quantity" | "price"> {
  source: string;
  clientOrderId: string;
  exchange: string;
  signalId?: string | null;
  positionId?: string | null;
  jobId?: number | null;
  leverage?: number | null;
  marginType?: string | null;
  reduceOnly?: boolean;
  status?: TradeStatus;
  errorMessage?: string | null;
  strategyId?: string | null;
}

export async function insertTrade(db: Db, trade: NewTrade): Promise<void> {
  const now = nowMs();
  await db
    .insertInto("trades")
    .values({
      id: trade.id,
      symbol: trade.symbol,
      side: trade.side,
      order_type: trade.orderType,
      quantity: trade.quantity,
      price: trade.price,
      status: trade.status ?? "pending",
      source: trade.source,
      client_order_id: trade.clientOrderId,
      exchange: trade.exchange,
      signal_id: trade.signalId ?? null,
      position_id: trade.positionId ?? null,
      job_id: trade.jobId ?? null,
      leverage: trade.leverage ?? null,
      margin_type: trade.marginType ?? null,
      reduce_only: trade.reduceOnly ? 1 : 0,
      error_message: trade.errorMessage ?? null,
      strategy_id: trade.strategyId ?? null,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

/** The executed partial fills booked for an order: its rows `<clientOrderId>#p<n>`. */
export function listPartialFills(db: Db, clientOrderId: string) {
  return (
    db
      .selectFrom("trades")
      .select(["executed_quantity", "executed_price", "fee"])
      // The prefix `<id>#p` as a range: an index can serve it on both databases (SQLite's
      // LIKE is case-insensitive and cannot), and a "%" or "_" in an id is no wildcard.
      .where("status", "=", "executed")
      .where("client_order_id", ">=", `${clientOrderId}#p`)
      .where("client_order_id", "<", `${clientOrderId}#q`)
      .execute()
  );
}

export async function getTrade(db: Db, id: string, options: { forUpdate?: boolean } = {}): Promise<Trade | null> {
  let query = db.selectFrom("trades").selectAll().where("id", "=", id);
  if (options.forUpdate && isMysql(db)) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? tradeRowToTrade(row) : null;
}

/**
 * A new client order id: globally unique (issue 15), so a rebuilt database or a second install
 * trading the same account can never match someone else's order. Written once with the trade
 * row; every attempt of the job finds that row (getTradeByJob) and re-uses it.
 */
export function newClientOrderId(): string {
  return `pd-${randomUUID()}`;
}

/** The trade a job wrote (its retries re-use it, and its client order id). */
export async function getTradeByJob(db: Db, jobId: number): Promise<Trade | null> {
  const row = await db
    .selectFrom("trades")
    .selectAll()
    .where("job_id", "=", jobId)
    .orderBy("created_at")
    .executeTakeFirst();
  return row ? tradeRowToTrade(row) : null;
}

export async function getTradeByClientOrderId(db: Db, clientOrderId: string): Promise<Trade | null> {
  const row = await db.selectFrom("trades").selectAll().where("client_order_id", "=", clientOrderId).executeTakeFirst();
  return row ? tradeRowToTrade(row) : null;
}

export async function updateTrade(
  db: Db,
  id: string,
  changes: Partial<{
    status: TradeStatus;
    orderId: string | null;
    executedPrice: string | null;
    executedQuantity: string;
    fee: string;
    positionId: string | null;
    quantity: string;
    errorMessage: string | null;
    executedAt: number | null;
    realizedPnl: string | null;
    exchange: string;
    reduceOnly: boolean;
  }>,
): Promise<void> {
  const set: Record<string, unknown> = { updated_at: nowMs() };
  if (changes.status !== undefined) set.status = changes.status;
  if (changes.orderId !== undefined) set.order_id = changes.orderId;
  if (changes.executedPrice !== undefined) set.executed_price = changes.executedPrice;
  if (changes.executedQuantity !== undefined) set.executed_quantity = changes.executedQuantity;
  if (changes.fee !== undefined) set.fee = changes.fee;
  if (changes.positionId !== undefined) set.position_id = changes.positionId;
  if (changes.quantity !== undefined) set.quantity = changes.quantity;
  if (changes.errorMessage !== undefined) set.error_message = changes.errorMessage;
  if (changes.executedAt !== undefined) set.executed_at = changes.executedAt;
  if (changes.realizedPnl !== undefined) set.realized_pnl = changes.realizedPnl;
  if (changes.exchange !== undefined) set.exchange = changes.exchange;
  if (changes.reduceOnly !== undefined) set.reduce_only = changes.reduceOnly ? 1 : 0;
  await db.updateTable("trades").set(set).where("id", "=", id).execute();
}

/**
 * The filters of Trade History and GET /api/trades (docs/pnl.md: the header's totals use the
 * same ones as the rows). `status` "executed" means executed or completed (both are filled,
 * docs/spec/screens.md#states); `symbol` is exact, `search` a case-insensitive substring of the symbol.
 */
export interface TradeFilterQuery {
  status?: string;
  symbol?: string;
  search?: string;
  positionId?: string;
  signalId?: string;
  strategy?: string;
}

/** A page boundary: the last row of a page (newest first by created_at, then id). */
export interface TradeCursor {
  createdAt: number;
  id: string;
}

/** `<created_at ms>_<id>`: what X-Next-Cursor carries and `before=` takes back. */
export const tradeCursorText = (cursor: TradeCursor) => `${cursor.createdAt}_${cursor.id}`;

export function parseTradeCursor(text: string | null | undefined): TradeCursor | null {
  const match = /^(\d{1,16})_([A-Za-z0-9-]{1,64})$/.exec(text ?? "");
  return match ? { createdAt: Number(match[1]), id: match[2]! } : null;
}

function filtered<Q extends SelectQueryBuilder<DB, "trades", any>>(query: Q, options: TradeFilterQuery): Q {
  let q = query as SelectQueryBuilder<DB, "trades", any>;
  const strategy = options.strategy;
  if (strategy) q = q.where((eb) => tradeOfStrategy(eb, strategy));
  if (options.status === "executed") q = q.where("trades.status", "in", ["executed", "completed"]);
  else if (options.status) q = q.where("trades.status", "=", options.status);
  if (options.symbol) q = q.where("trades.symbol", "=", options.symbol);
  const search = options.search?.trim();
  if (search) {
    // lower() on both sides: SQLite's LIKE folds ASCII only and MariaDB's depends on the collation.
    const pattern = `%${search.toLowerCase().replace(/[!%_]/g, "!$&")}%`;
    q = q.where(sql<boolean>`lower(${sql.ref("trades.symbol")}) like ${pattern} escape '!'`);
  }
  if (options.positionId) q = q.where("trades.position_id", "=", options.positionId);
  if (options.signalId) q = q.where("trades.signal_id", "=", options.signalId);
  return q as Q;
}

export async function listTrades(db: Db, options: TradeFilterQuery & { limit?: number } = {}): Promise<Trade[]> {
  return (await pageTrades(db, options)).trades;
}

/**
 * One page of trades, newest first (created_at, then id), and the cursor of the next, older
 * page (null when this page holds the oldest match). Keyset paging: a trade written between
 * two page requests is newer than the first page and never shifts a page, so each row comes
 * once.
 */
export async function pageTrades(
  db: Db,
  options: TradeFilterQuery & { limit?: number; before?: TradeCursor | null } = {},
): Promise<{ trades: Trade[]; nextCursor: string | null }> {
  const limit = Math.min(Math.max(options.limit ?? 10, 1), 1000);
  let query = filtered(db.selectFrom("trades").selectAll(), options);
  const before = options.before;
  if (before) {
    query = query.where((eb) =>
      eb.or([
        eb("trades.created_at", "<", before.createdAt),
        eb.and([eb("trades.created_at", "=", before.createdAt), eb("trades.id", "<", before.id)]),
      ]),
    );
  }
  const rows = await query
    .orderBy("trades.created_at", "desc")
    .orderBy("trades.id", "desc")
    .limit(limit + 1)
    .execute();
  const more = rows.length > limit;
  const page = (more ? rows.slice(0, limit) : rows).map(tradeRowToTrade);
  const last = page[page.length - 1];
  return {
    trades: page,
    nextCursor: more && last ? tradeCursorText({ createdAt: Date.parse(last.createdAt), id: last.id }) : null,
  };
}

/** Trade History's counts for a filter: every matching trade, filled (executed or completed) and failed. */
export async function countTrades(
  db: Db,
  options: TradeFilterQuery,
): Promise<{ total: number; completed: number; failed: number }> {
  const rows = await filtered(
    db.selectFrom("trades").select((eb) => ["trades.status", eb.fn.countAll<number>().as("n")]),
    options,
  )
    .groupBy("trades.status")
    .execute();
  const out = { total: 0, completed: 0, failed: 0 };
  for (const row of rows) {
    const n = Number(row.n);
    out.total += n;
    if (row.status === "executed" || row.status === "completed") out.completed += n;
    if (row.status === "failed") out.failed += n;
  }
  return out;
}

/** The realized P&L of every matching trade that closed something (id and figure, to be summed exactly). */
export async function listClosingTradePnl(
  db: Db,
  options: TradeFilterQuery,
): Promise<{ id: string; realizedPnl: string }[]> {
  const rows = await filtered(db.selectFrom("trades").select(["trades.id", "trades.realized_pnl"]), options)
    .where("trades.realized_pnl", "is not", null)
    .execute();
  return rows.map((r) => ({ id: r.id, realizedPnl: normalizeDecimal(r.realized_pnl)! }));
}
