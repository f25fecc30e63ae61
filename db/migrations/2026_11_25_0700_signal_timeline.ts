// The latency timeline of every alert (issue 12): one row per signal with the moment of
// each hop of its path, epoch ms, null until the hop happens: TradingView's fire time (the
// alert's `timenow`, else its `timestamp`), received (the web process got the request),
// committed (the signal + job transaction), claimed (a worker took the job), sent (just
// before the exchange call), acked (the exchange answered) and filled (the fill booked).
// The web writes the first three in the signal's own transaction; the worker fills in the
// rest (db/queries/signal-timeline.ts). Indexed by received_at for the 24 h summary on
// Webhook Config. Frozen: never imports application code; idempotent.
import { type Kysely, MysqlAdapter, sql } from "kysely";

export const HOP_COLUMNS = ["fired_at", "received_at", "committed_at", "claimed_at", "sent_at", "acked_at", "filled_at"] as const;

export async function up(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  let table = db.schema
    .createTable("signal_timeline")
    .ifNotExists()
    .addColumn("signal_id", sql.raw(mysql ? "varchar(36)" : "text"), (c) => c.primaryKey());
  for (const column of HOP_COLUMNS) table = table.addColumn(column, "bigint");
  if (mysql) table = table.modifyEnd(sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`);
  await table.execute();
  let index = db.schema.createIndex("signal_timeline_received_idx").on("signal_timeline").columns(["received_at"]);
  if (!mysql) index = index.ifNotExists();
  try {
    await index.execute();
  } catch (error) {
    if (!(mysql && (error as { errno?: number }).errno === 1061)) throw error;
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("signal_timeline").ifExists().execute();
}
