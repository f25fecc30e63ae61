// Protection that survives the worker (issue 15): `exchange_stops` holds, per open position on
// an exchange that keeps resting stop orders (Coinbase), the stop order the worker placed
// there for it: which order, at what stop and limit price, for how much. worker/monitor/
// exchange-stops.ts keeps it in step with break-even and trailing and withdraws it when the
// position changes or closes.
// Frozen: never imports application code; idempotent.
import { type Kysely, MysqlAdapter, sql } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  const str = (n: number) => sql.raw(mysql ? `varchar(${n})` : "text");
  let table = db.schema
    .createTable("exchange_stops")
    .ifNotExists()
    .addColumn("position_id", str(36), (c) => c.primaryKey())
    .addColumn("exchange", str(32), (c) => c.notNull())
    .addColumn("symbol", str(40), (c) => c.notNull())
    .addColumn("order_id", str(100), (c) => c.notNull())
    .addColumn("client_order_id", str(100), (c) => c.notNull())
    .addColumn("side", str(8), (c) => c.notNull())
    .addColumn("stop_price", str(64), (c) => c.notNull())
    .addColumn("limit_price", str(64), (c) => c.notNull())
    .addColumn("quantity", str(64), (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull());
  if (mysql) table = table.modifyEnd(sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`);
  await table.execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("exchange_stops").ifExists().execute();
}
