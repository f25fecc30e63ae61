// The resting stop orders the worker keeps on the exchange for open positions (issue 15;
// migrations 2026_11_25_0600 and 2026_11_27_0100; worker/monitor/exchange-stops.ts and
// docs/decisions/038-stop-lifecycle-and-order-slots.md). One row per position: `placing`
// (asked, no answer seen: order_id is empty), `resting` (order_id is the exchange's) or
// `refused` (placed again after retry_at).
import type { Selectable } from "kysely";
import type { ExchangeStopsTable } from "../schema.ts";
import { type Db, isMysql, nowMs } from "./util.ts";

export type ExchangeStop = Selectable<ExchangeStopsTable>;
export type ExchangeStopStatus = "placing" | "resting" | "refused";
export type NewExchangeStop = Omit<
  ExchangeStop,
  "created_at" | "updated_at" | "status" | "failures" | "retry_at" | "last_error"
> &
  Partial<Pick<ExchangeStop, "failures" | "retry_at" | "last_error">> & { status?: ExchangeStopStatus | string };

export async function listExchangeStops(db: Db, exchange?: string): Promise<ExchangeStop[]> {
  let query = db.selectFrom("exchange_stops").selectAll();
  if (exchange) query = query.where("exchange", "=", exchange);
  return query.execute();
}

export async function getExchangeStopBySymbol(db: Db, exchange: string, symbol: string): Promise<ExchangeStop | null> {
  return (
    (await db
      .selectFrom("exchange_stops")
      .selectAll()
      .where("exchange", "=", exchange)
      .where("symbol", "=", symbol)
      .executeTakeFirst()) ?? null
  );
}

/** Records (or replaces) the stop order of a position. */
export async function saveExchangeStop(db: Db, stop: NewExchangeStop, now = nowMs()): Promise<void> {
  const row = { status: "resting", failures: 0, retry_at: 0, last_error: null, ...stop };
  const { position_id: _key, ...rest } = row;
  const insert = db.insertInto("exchange_stops").values({ ...row, created_at: now, updated_at: now });
  if (isMysql(db)) await insert.onDuplicateKeyUpdate({ ...rest, updated_at: now }).execute();
  else await insert.onConflict((oc) => oc.column("position_id").doUpdateSet({ ...rest, updated_at: now })).execute();
}

export async function deleteExchangeStop(db: Db, positionId: string): Promise<void> {
  await db.deleteFrom("exchange_stops").where("position_id", "=", positionId).execute();
}
