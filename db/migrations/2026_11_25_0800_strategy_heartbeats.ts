// Missed-alert detection (issue 12): `strategy_heartbeats` holds, per strategy ("default" for
// the global secret, else the strategy's id), how often a heartbeat alert is expected, the
// grace after it, when the last one came and whether it is now missed
// (worker/monitor/heartbeats.ts).
// Frozen: never imports application code; idempotent.
import { type Kysely, MysqlAdapter, sql } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  const str = (n: number) => sql.raw(mysql ? `varchar(${n})` : "text");
  let table = db.schema
    .createTable("strategy_heartbeats")
    .ifNotExists()
    .addColumn("strategy_key", str(36), (c) => c.primaryKey())
    .addColumn("interval_seconds", "integer", (c) => c.notNull())
    .addColumn("grace_seconds", "integer", (c) => c.notNull())
    .addColumn("last_at", "bigint")
    .addColumn("state", str(16), (c) => c.notNull())
    .addColumn("missed_since", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull());
  if (mysql) table = table.modifyEnd(sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`);
  await table.execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("strategy_heartbeats").ifExists().execute();
}
