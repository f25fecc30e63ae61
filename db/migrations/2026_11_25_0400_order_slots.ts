// One order in flight per exchange and symbol (issue 15): `order_slots` holds, per exchange
// and symbol, which job's order is between "about to be sent" and "booked", and until when
// (a lease, so a dead worker's slot frees itself). worker/execution.ts takes it before it
// sends and gives it back once the outcome is booked. And an index on trades.job_id: a job's
// retry finds its trade by job id (client order ids became UUIDs).
// Frozen: never imports application code; idempotent.
import { type Kysely, MysqlAdapter, sql } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  const str = (n: number) => sql.raw(mysql ? `varchar(${n})` : "text");
  let table = db.schema
    .createTable("order_slots")
    .ifNotExists()
    .addColumn("exchange", str(32), (c) => c.notNull())
    .addColumn("symbol", str(40), (c) => c.notNull())
    .addColumn("holder", str(64))
    .addColumn("expires_at", "bigint", (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("order_slots_pk", ["exchange", "symbol"]);
  if (mysql) table = table.modifyEnd(sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`);
  await table.execute();
  // Client order ids are UUIDs now: a job's retry finds its trade by job id.
  let index = db.schema.createIndex("trades_job_idx").on("trades").column("job_id");
  if (!mysql) index = index.ifNotExists();
  try {
    await index.execute();
  } catch (error) {
    if (!(mysql && (error as { errno?: number }).errno === 1061)) throw error;
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  const drop = db.schema.dropIndex("trades_job_idx").ifExists();
  await (mysql ? drop.on("trades") : drop).execute();
  await db.schema.dropTable("order_slots").ifExists().execute();
}
