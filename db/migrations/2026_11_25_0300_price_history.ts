// Market Data's real 24 h change (issue 11): the first price of every minute per symbol, as
// the price feed stores prices (app/core/exchange/simulator/price-feed.ts). 24 h (plus a
// margin) are kept; the worker's housekeeping prunes the rest. Frozen; idempotent.
import { type Kysely, MysqlAdapter, sql } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  let table = db.schema
    .createTable("price_history")
    .ifNotExists()
    .addColumn("symbol", sql.raw(mysql ? "varchar(40)" : "text"), (c) => c.notNull())
    .addColumn("bucket", "bigint", (c) => c.notNull())
    .addColumn("price", mysql ? sql`decimal(36,18)` : sql`text`, (c) => c.notNull())
    .addPrimaryKeyConstraint("price_history_pk", ["symbol", "bucket"]);
  if (mysql) table = table.modifyEnd(sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`);
  await table.execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("price_history").ifExists().execute();
}
