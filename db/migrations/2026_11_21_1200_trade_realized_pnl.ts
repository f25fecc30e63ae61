// The P&L a trade realised when it reduced or closed a position (before fees), set when
// its fill is booked: statistics read it instead of re-deriving it.
import { type Kysely, MysqlAdapter, sql } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  const columns = mysql
    ? await sql<{ COLUMN_NAME: string }>`select COLUMN_NAME from information_schema.columns where table_schema = database() and table_name = 'trades' and column_name = 'realized_pnl'`.execute(db)
    : await sql<{ name: string }>`select name from pragma_table_info('trades') where name = 'realized_pnl'`.execute(db);
  if (columns.rows.length > 0) return;
  await db.schema.alterTable("trades").addColumn("realized_pnl", mysql ? sql`decimal(36,18)` : sql`text`).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("trades").dropColumn("realized_pnl").execute();
}
