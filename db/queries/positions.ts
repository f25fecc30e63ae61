// Our net positions (SPEC.md §3 Position): at most one open position per symbol.
import { sql } from "kysely";
import { normalizeDecimal } from "../../app/core/decimal.ts";
import type { AdvancedControls } from "../../app/core/orders/controls.ts";
import type { PositionRow } from "../schema.ts";
import { type Db, isMysql, nowMs, parseJson, toBool, toIso } from "./util.ts";

export type { AdvancedControls };

export interface Position {
  id: string;
  symbol: string;
  side: "long" | "short";
  quantity: string;
  remainingQuantity: string;
  entryPrice: string;
  currentPrice: string | null;
  entryTradeId: string | null;
  maxDrawdown: string;
  portfolioPercent: string;
  status: "open" | "closed";
  breakEvenTriggered: boolean;
  trailingStopActive: boolean;
  trailingBestPrice: string | null;
  stopPrice: string | null;
  advancedControls: AdvancedControls | null;
  ruleState: Record<string, unknown>;
  realizedPnl: string;
  fees: string;
  leverage: number;
  marginType: string;
  source: string;
  signalId: string | null;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
}

export function positionRowToPosition(row: PositionRow): Position {
  return {
    id: row.id,
    symbol: row.symbol,
    side: row.side === "short" ? "short" : "long",
    quantity: normalizeDecimal(row.quantity)!,
    remainingQuantity: normalizeDecimal(row.remaining_quantity)!,
    entryPrice: normalizeDecimal(row.entry_price)!,
    currentPrice: normalizeDecimal(row.current_price),
    entryTradeId: row.entry_trade_id,
    maxDrawdown: normalizeDecimal(row.max_drawdown) ?? "0",
    portfolioPercent: normalizeDecimal(row.portfolio_percent) ?? "0",
    status: row.status === "open" ? "open" : "closed",
    breakEvenTriggered: toBool(row.break_even_triggered),
    trailingStopActive: toBool(row.trailing_stop_active),
    trailingBestPrice: normalizeDecimal(row.trailing_best_price),
    stopPrice: normalizeDecimal(row.stop_price),
    advancedControls: parseJson<AdvancedControls | null>(row.advanced_controls, null),
    ruleState: parseJson<Record<string, unknown>>(row.rule_state, {}),
    realizedPnl: normalizeDecimal(row.realized_pnl) ?? "0",
    fees: normalizeDecimal(row.fees) ?? "0",
    leverage: Number(row.leverage),
    marginType: row.margin_type,
    source: row.source,
    signalId: row.signal_id,
    createdAt: toIso(row.created_at)!,
    updatedAt: toIso(row.updated_at)!,
    closedAt: toIso(row.closed_at),
  };
}

/**
 * Serialises every change to one symbol's positions until the transaction ends. Call it
 * first in the transaction, before reading positions.
 */
export async function lockSymbol(db: Db, symbol: string): Promise<void> {
  const bump = () =>
    db.updateTable("position_locks").set({ version: sql<number>`version + 1` }).where("symbol", "=", symbol).executeTakeFirst();
  if (Number((await bump()).numUpdatedRows ?? 0) > 0) return;
  await db.insertInto("position_locks").ignore().values({ symbol, version: 0 }).execute();
  await bump();
}

/** The open position for a symbol; on MySQL locked for the caller's transaction. */
export async function getOpenPosition(db: Db, symbol: string, options: { forUpdate?: boolean } = {}): Promise<Position | null> {
  let query = db.selectFrom("positions").selectAll().where("symbol", "=", symbol).where("status", "=", "open").orderBy("created_at", "desc");
  if (options.forUpdate && isMysql(db)) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? positionRowToPosition(row) : null;
}

export async function getPosition(db: Db, id: string): Promise<Position | null> {
  const row = await db.selectFrom("positions").selectAll().where("id", "=", id).executeTakeFirst();
  return row ? positionRowToPosition(row) : null;
}

export async function listOpenPositions(db: Db): Promise<Position[]> {
  const rows = await db.selectFrom("positions").selectAll().where("status", "=", "open").orderBy("created_at", "desc").execute();
  return rows.map(positionRowToPosition);
}

export interface NewPosition {
  id: string;
  symbol: string;
  side: "long" | "short";
  quantity: string;
  entryPrice: string;
  currentPrice: string | null;
  entryTradeId: string | null;
  advancedControls: AdvancedControls | null;
  leverage: number;
  marginType: string;
  source: string;
  signalId: string | null;
  fees: string;
}

export async function insertPosition(db: Db, position: NewPosition): Promise<void> {
  const now = nowMs();
  await db
    .insertInto("positions")
    .values({
      id: position.id,
      symbol: position.symbol,
      side: position.side,
      quantity: position.quantity,
      remaining_quantity: position.quantity,
      entry_price: position.entryPrice,
      current_price: position.currentPrice,
      entry_trade_id: position.entryTradeId,
      status: "open",
      advanced_controls: position.advancedControls ? JSON.stringify(position.advancedControls) : null,
      leverage: position.leverage,
      margin_type: position.marginType,
      source: position.source,
      signal_id: position.signalId,
      fees: position.fees,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

export async function updatePosition(
  db: Db,
  id: string,
  changes: Partial<{
    quantity: string;
    remainingQuantity: string;
    entryPrice: string;
    currentPrice: string | null;
    status: "open" | "closed";
    realizedPnl: string;
    fees: string;
    maxDrawdown: string;
    portfolioPercent: string;
    closedAt: number | null;
  }>,
): Promise<void> {
  const set: Record<string, unknown> = { updated_at: nowMs() };
  if (changes.quantity !== undefined) set.quantity = changes.quantity;
  if (changes.remainingQuantity !== undefined) set.remaining_quantity = changes.remainingQuantity;
  if (changes.entryPrice !== undefined) set.entry_price = changes.entryPrice;
  if (changes.currentPrice !== undefined) set.current_price = changes.currentPrice;
  if (changes.status !== undefined) set.status = changes.status;
  if (changes.realizedPnl !== undefined) set.realized_pnl = changes.realizedPnl;
  if (changes.fees !== undefined) set.fees = changes.fees;
  if (changes.maxDrawdown !== undefined) set.max_drawdown = changes.maxDrawdown;
  if (changes.portfolioPercent !== undefined) set.portfolio_percent = changes.portfolioPercent;
  if (changes.closedAt !== undefined) set.closed_at = changes.closedAt;
  await db.updateTable("positions").set(set).where("id", "=", id).execute();
}
