// Issue 22: a position belongs to the exchange it was opened on (`positions.exchange`:
// "simulator" or "coinbase"), so its closes, protection and reconciliation stay there when the
// trader adds or switches exchanges (docs/decisions/039-positions-stay-on-their-exchange.md).
// Existing rows take the exchange of the trade that opened them, else the simulator.
// Frozen: never imports application code; idempotent (MySQL DDL is not transactional).
import { type Kysely, MysqlAdapter, sql } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  const present = mysql
    ? await sql`select COLUMN_NAME from information_schema.columns where table_schema = database() and table_name = 'positions' and column_name = 'exchange'`.execute(db)
    : await sql`select name from pragma_table_info('positions') where name = 'exchange'`.execute(db);
  if (present.rows.length === 0) {
    await db.schema.alterTable("positions").addColumn("exchange", sql.raw(mysql ? "varchar(32)" : "text"), (c) => c.notNull().defaultTo("simulator")).execute();
  }
  await sql`update positions set exchange = (select t.exchange from trades t where t.id = positions.entry_trade_id)
    where entry_trade_id is not null and exists (select 1 from trades t where t.id = positions.entry_trade_id and t.exchange is not null and t.exchange <> '')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("positions").dropColumn("exchange").execute();
}
