// Live faults (issue 21; docs/decisions/038-stop-lifecycle-and-order-slots.md):
// - exchange_stops.status: `placing` (recorded before the exchange is asked: the stop may be
//   on the exchange, it is looked up by its client order id before another is placed),
//   `resting` (the exchange has it: order_id), `refused` (the exchange said no: placed again
//   after `retry_at`, `failures` counts the refusals in a row, `last_error` says why);
// - order_slots.job_id: the job whose order holds the slot, so a slot follows its job (kept
//   while the job lives, through its retries) instead of a lease that can run out mid-order.
// Frozen: never imports application code; idempotent (MySQL DDL is not transactional).
import { type Kysely, MysqlAdapter, sql } from "kysely";

async function hasColumn(db: Kysely<any>, mysql: boolean, table: string, column: string): Promise<boolean> {
  const rows = mysql
    ? await sql`select COLUMN_NAME from information_schema.columns where table_schema = database() and table_name = ${table} and column_name = ${column}`.execute(db)
    : await sql`select name from pragma_table_info(${table}) where name = ${column}`.execute(db);
  return rows.rows.length > 0;
}

export async function up(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  const str = (n: number) => sql.raw(mysql ? `varchar(${n})` : "text");
  const columns: [string, string, (table: Kysely<any>) => Promise<void>][] = [
    ["exchange_stops", "status", (d) => d.schema.alterTable("exchange_stops").addColumn("status", str(16), (c) => c.notNull().defaultTo("resting")).execute()],
    ["exchange_stops", "failures", (d) => d.schema.alterTable("exchange_stops").addColumn("failures", "integer", (c) => c.notNull().defaultTo(0)).execute()],
    ["exchange_stops", "retry_at", (d) => d.schema.alterTable("exchange_stops").addColumn("retry_at", "bigint", (c) => c.notNull().defaultTo(0)).execute()],
    ["exchange_stops", "last_error", (d) => d.schema.alterTable("exchange_stops").addColumn("last_error", str(500)).execute()],
    ["order_slots", "job_id", (d) => d.schema.alterTable("order_slots").addColumn("job_id", "bigint").execute()],
  ];
  for (const [table, column, add] of columns) if (!(await hasColumn(db, mysql, table, column))) await add(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("order_slots").dropColumn("job_id").execute();
  for (const column of ["last_error", "retry_at", "failures", "status"]) await db.schema.alterTable("exchange_stops").dropColumn(column).execute();
}
