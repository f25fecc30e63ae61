// The simulator's stored rows (db/queries/simulator.ts) as the exchange contract and the
// matching rules read them: decimals normalised (MySQL pads them, SQLite may return numbers).
import { D, parseDecimal } from "#app/core/decimal.ts";
import { ExchangeError } from "#app/core/exchange/errors.ts";
import type { ExchangeOrder, ExchangeOrderStatus, MarginType, OrderSide, OrderType } from "#app/core/exchange/types.ts";
import type { AccountPosition } from "#app/core/orders/liquidation.ts";
import { getSimOrder } from "#db/queries/simulator.ts";
import type { Db } from "#db/queries/util.ts";
import type { SimOrderRow, SimPositionRow } from "#db/schema.ts";
import type { PositionState } from "./matching.ts";

export const norm = (value: string | number | null | undefined): string | null =>
  value === null || value === undefined || value === "" ? null : D(value).toString();

/** A decimal option >= 0 (a fee rate, the slippage, a balance), `fallback` when not given. */
export function rateOption(value: string | undefined, fallback: string, what: string): string {
  const parsed = parseDecimal(value ?? fallback);
  if (parsed === null || D(parsed).lt(0)) throw new Error(`Simulator ${what} must be a decimal >= 0, got ${value}`);
  return parsed;
}

export function orderRowToOrder(row: SimOrderRow): ExchangeOrder {
  return {
    orderId: row.id,
    clientOrderId: row.client_order_id,
    symbol: row.symbol,
    side: row.side as OrderSide,
    type: row.order_type as OrderType,
    status: row.status as ExchangeOrderStatus,
    quantity: norm(row.quantity)!,
    price: norm(row.price),
    filledQuantity: norm(row.filled_quantity) ?? "0",
    averagePrice: norm(row.average_price),
    fee: norm(row.fee) ?? "0",
    leverage: Number(row.leverage),
    marginType: row.margin_type as MarginType,
    rejectReason: row.reject_reason,
    createdAt: new Date(Number(row.created_at)).toISOString(),
    updatedAt: new Date(Number(row.updated_at)).toISOString(),
  };
}

export function positionRowToState(row: SimPositionRow | undefined): PositionState | null {
  if (!row) return null;
  return {
    side: row.side as PositionState["side"],
    quantity: norm(row.quantity)!,
    entryPrice: norm(row.entry_price)!,
    margin: norm(row.margin) ?? "0",
    leverage: Number(row.leverage),
    marginType: row.margin_type as MarginType,
    realizedPnl: norm(row.realized_pnl) ?? "0",
  };
}

/** A sim_positions row as the liquidation rule reads it (its held margin, its mark). */
export function accountPositionOf(row: SimPositionRow, mark: string | null): AccountPosition {
  return {
    symbol: row.symbol,
    side: row.side as "long" | "short",
    entryPrice: norm(row.entry_price)!,
    quantity: norm(row.quantity)!,
    leverage: Number(row.leverage),
    marginType: row.margin_type,
    margin: norm(row.margin) ?? "0",
    mark,
  };
}
/** The rows of positions that are open (not flat, quantity > 0). */
export const openRows = (rows: SimPositionRow[]) => rows.filter((row) => row.side !== "flat" && D(row.quantity).gt(0));

/** The order as it stands (read back inside the transaction that wrote it). */
export async function readOrder(db: Db, id: string): Promise<ExchangeOrder> {
  const row = await getSimOrder(db, id);
  if (!row) throw new ExchangeError(`Order ${id} vanished inside its own transaction`);
  return orderRowToOrder(row);
}
