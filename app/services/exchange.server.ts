// The exchange the web process reads from (balances, prices). The simulator until the
// Coinbase connector exists; the worker uses the same choice.
import type { Kysely } from "kysely";
import { SimulatorAdapter } from "#app/core/exchange/simulator/adapter.ts";
import type { ExchangeAdapter } from "#app/core/exchange/types.ts";
import type { DB } from "#db/schema.ts";

export function getExchange(db: Kysely<DB>): ExchangeAdapter {
  return new SimulatorAdapter(db);
}
