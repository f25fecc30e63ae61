// The resting stop orders the worker keeps on the exchange for open positions (issue 15;
// migration 2026_11_25_0600, worker/monitor/exchange-stops.ts).
import type { Selectable } from "kysely";
import type { ExchangeStopsTable } from "../schema.ts";
import { type Db, isMysql, nowMs } from "./util.ts";

export type ExchangeStop = Selectable<ExchangeStopsTable>;

export async function listExchangeStops(db: Db, exchange?: string): Promise<ExchangeStop[]> {
  let query = db.selectFrom("exchange_stops").selectAll();
  if (exchange) query = query.where("exchange", "=", exchange);
  return query.execute();
}

export async function getExchangeStopBySymbol(db: Db, exchange: string, symbol: string): Promise<ExchangeStop | null> {
  return (await db.selectFrom("exchange_stops").selectAll().where("exchange", "=", exchange).where("symbol", "=", symbol).executeTakeFirst()) ?? null;
}

/** Records (or replaces) the stop order of a position. */
export async function saveExchangeStop(db: Db, stop: Omit<ExchangeStop, "created_at" | "updated_at">): Promise<void> {
  const now = nowMs();
  const { position_id: _key, ...rest } = stop;
  const insert = db.insertInto("exchange_stops").values({ ...stop, created_at: now, updated_at: now });
  if (isMysql(db)) await insert.onDuplicateKeyUpdate({ ...rest, updated_at: now }).execute();
  else await insert.onConflict((oc) => oc.column("position_id").doUpdateSet({ ...rest, updated_at: now })).execute();
}

export async function deleteExchangeStop(db: Db, positionId: string): Promise<void> {
  await db.deleteFrom("exchange_stops").where("position_id", "=", positionId).execute();
}
