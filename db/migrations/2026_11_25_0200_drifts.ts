// The exchange reconciled (issue 11): `drifts` holds each difference the reconciliation loop
// (worker/monitor/reconcile.ts) found between the exchange and the app's book, one open row
// per exchange and symbol, until it clears or a person resolves it (adopt or close).
// Quantities are decimal strings (shown, compared in code, never summed in SQL).
// Frozen: never imports application code; idempotent.
import { type Kysely, MysqlAdapter, sql } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  const str = (n: number) => sql.raw(mysql ? `varchar(${n})` : "text");
  let table = db.schema
    .createTable("drifts")
    .ifNotExists()
    .addColumn("id", str(36), (c) => c.primaryKey())
    .addColumn("exchange", str(32), (c) => c.notNull())
    .addColumn("symbol", str(40), (c) => c.notNull())
    .addColumn("kind", str(32), (c) => c.notNull())
    .addColumn("app_side", str(8))
    .addColumn("app_quantity", str(64), (c) => c.notNull())
    .addColumn("exchange_side", str(8))
    .addColumn("exchange_quantity", str(64), (c) => c.notNull())
    .addColumn("exchange_entry", str(64))
    .addColumn("mark_price", str(64))
    .addColumn("status", str(16), (c) => c.notNull())
    .addColumn("resolution", str(200))
    .addColumn("resolved_by", str(100))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addColumn("resolved_at", "bigint");
  if (mysql) table = table.modifyEnd(sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`);
  await table.execute();
  let index = db.schema.createIndex("drifts_status_idx").on("drifts").columns(["status", "exchange", "symbol"]);
  if (!mysql) index = index.ifNotExists();
  try {
    await index.execute();
  } catch (error) {
    if (!(mysql && (error as { errno?: number }).errno === 1061)) throw error;
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("drifts").ifExists().execute();
}
