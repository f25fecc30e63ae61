// Executed fills for the P&L and performance statistics (app/core/pnl): every trade that
// executed (status executed or completed, with a price and a time), oldest first.
import { normalizeDecimal } from "../../app/core/decimal.ts";
import type { ExecutedFill } from "../../app/core/pnl/fifo.ts";
import type { Db } from "./util.ts";

export async function listExecutedFills(db: Db): Promise<ExecutedFill[]> {
  const rows = await db
    .selectFrom("trades")
    .select(["id", "symbol", "side", "executed_quantity", "executed_price", "fee", "executed_at", "leverage"])
    .where("status", "in", ["executed", "completed"])
    .where("executed_at", "is not", null)
    .where("executed_price", "is not", null)
    .orderBy("executed_at", "asc")
    .orderBy("id", "asc")
    .execute();
  return rows.map((row) => ({
    id: row.id,
    symbol: row.symbol,
    side: row.side === "sell" ? "sell" : "buy",
    quantity: normalizeDecimal(row.executed_quantity) ?? "0",
    price: normalizeDecimal(row.executed_price)!,
    fee: normalizeDecimal(row.fee) ?? "0",
    executedAt: Number(row.executed_at),
    leverage: row.leverage == null ? null : Number(row.leverage),
  }));
}
