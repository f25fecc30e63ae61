// Equity snapshots (issue 13, docs/decisions/031-performance-charts.md): the price-leader
// worker records the account every 5 minutes and after every fill (worker/monitor/
// equity-snapshots.ts): realized P&L to date (the ledger's all-time total with funding),
// the unrealized P&L of the open positions at that moment, the collateral (wallet balance)
// and the equity (collateral + unrealized). The Performance charts take the unrealized part
// from here; the realized part always comes from the ledger. Housekeeping thins rows older
// than 30 days to one per hour; Reset Statistics deletes them with the trades.
// Frozen: never imports application code; idempotent.
import { type Kysely, MysqlAdapter, sql } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  const dec = mysql ? sql`decimal(36,18)` : sql`text`;
  const str = (n: number) => sql.raw(mysql ? `varchar(${n})` : "text");
  let table = db.schema
    .createTable("equity_snapshots")
    .ifNotExists()
    .addColumn("id", mysql ? sql`bigint` : sql`integer`, (c) => c.primaryKey().autoIncrement())
    .addColumn("taken_at", "bigint", (c) => c.notNull())
    .addColumn("reason", str(16), (c) => c.notNull())
    .addColumn("realized_pnl", dec, (c) => c.notNull())
    .addColumn("unrealized_pnl", dec, (c) => c.notNull())
    .addColumn("balance", dec)
    .addColumn("equity", dec)
    .addColumn("currency", str(16))
    .addColumn("open_positions", "integer", (c) => c.notNull().defaultTo(0));
  if (mysql) table = table.modifyEnd(sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`);
  await table.execute();
  let index = db.schema.createIndex("equity_snapshots_taken_at_idx").on("equity_snapshots").columns(["taken_at", "id"]);
  if (!mysql) index = index.ifNotExists();
  try {
    await index.execute();
  } catch (error) {
    if (!(mysql && (error as { errno?: number }).errno === 1061)) throw error;
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("equity_snapshots").ifExists().execute();
}
