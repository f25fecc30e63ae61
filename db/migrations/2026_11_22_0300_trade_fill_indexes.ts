// The statistics cache (app/services/statistics.server.ts) reads, on every dashboard and
// statistics request, a fingerprint of the executed trades (count, max and sums of
// updated_at, by status) and the executed trades written in the last seconds: one index
// on (status, updated_at) covers both (docs/decisions/012-statistics-cache-and-monitor.md).
// Frozen: never imports application code; idempotent (MySQL DDL is not transactional).
import { type Kysely, MysqlAdapter } from "kysely";

const INDEXES: [name: string, columns: string[]][] = [["trades_status_updated_at_idx", ["status", "updated_at"]]];

export async function up(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  for (const [name, columns] of INDEXES) {
    let builder = db.schema.createIndex(name).on("trades").columns(columns);
    if (!mysql) builder = builder.ifNotExists();
    try {
      await builder.execute();
    } catch (error) {
      // MySQL has no CREATE INDEX IF NOT EXISTS: ER_DUP_KEYNAME (1061) means it is there.
      if (mysql && (error as { errno?: number }).errno === 1061) continue;
      throw error;
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  for (const [name] of INDEXES) {
    await (mysql ? db.schema.dropIndex(name).on("trades") : db.schema.dropIndex(name).ifExists()).execute();
  }
}
