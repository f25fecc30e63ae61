// One P&L truth (issue 11): trades.realized_pnl and positions.realized_pnl were booked by
// average cost before fees; from now on they hold what the statistics ledger computes, FIFO
// net of fees (docs/pnl.md). This recomputes them for the fills already booked, so old and
// new rows, the headers summing them and the statistics agree.
import type { Kysely } from "kysely";
import { D } from "../../app/core/decimal.ts";
import { type ExecutedFill, matchFifo } from "../../app/core/pnl/fifo.ts";

interface Row {
  id: string;
  symbol: string;
  side: string;
  executed_quantity: string | number | null;
  executed_price: string | number | null;
  fee: string | number | null;
  executed_at: number | string | null;
  leverage: number | string | null;
  position_id: string | null;
}

const dec = (value: string | number | null): string => (value === null ? "0" : D(String(value)).toString());

export async function up(db: Kysely<any>): Promise<void> {
  const rows = (await db
    .selectFrom("trades")
    .select(["id", "symbol", "side", "executed_quantity", "executed_price", "fee", "executed_at", "leverage", "position_id"])
    .where("status", "in", ["executed", "completed"])
    .where("executed_at", "is not", null)
    .where("executed_price", "is not", null)
    .orderBy("executed_at", "asc")
    .orderBy("id", "asc")
    .execute()) as Row[];
  if (rows.length === 0) return;
  const fills: ExecutedFill[] = rows.map((r) => ({
    id: r.id,
    symbol: r.symbol,
    side: r.side === "sell" ? "sell" : "buy",
    quantity: dec(r.executed_quantity),
    price: dec(r.executed_price),
    fee: dec(r.fee),
    executedAt: Number(r.executed_at),
    leverage: r.leverage === null ? null : Number(r.leverage),
  }));
  const positionOf = new Map(rows.map((r) => [r.id, r.position_id]));
  const byTrade = new Map<string, ReturnType<typeof D>>();
  const byPosition = new Map<string, ReturnType<typeof D>>();
  for (const match of matchFifo(fills).matches) {
    byTrade.set(match.exitTradeId, (byTrade.get(match.exitTradeId) ?? D(0)).plus(match.netPnl));
    const position = positionOf.get(match.entryTradeId);
    if (position) byPosition.set(position, (byPosition.get(position) ?? D(0)).plus(match.netPnl));
  }
  await db.transaction().execute(async (trx) => {
    for (const row of rows) {
      const pnl = byTrade.get(row.id);
      await trx.updateTable("trades").set({ realized_pnl: pnl ? pnl.toString() : null }).where("id", "=", row.id).execute();
    }
    const positions = await trx.selectFrom("positions").select(["id"]).execute();
    for (const { id } of positions as { id: string }[]) {
      await trx.updateTable("positions").set({ realized_pnl: (byPosition.get(id) ?? D(0)).toString() }).where("id", "=", id).execute();
    }
  });
}

export async function down(): Promise<void> {
  // The average-cost figures are not kept: nothing to restore.
}
