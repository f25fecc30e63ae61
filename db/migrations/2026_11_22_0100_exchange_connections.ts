// Exchange connections (the `exchanges` table of the initial schema) are read by "the first
// enabled connection, oldest first" on every worker job and every credentials check: index
// that order. Frozen: never imports application code; idempotent (MySQL DDL is not
// transactional, so an interrupted run completes when it runs again).
import { type Kysely, MysqlAdapter } from "kysely";

const INDEX = "exchanges_enabled_created_idx";

export async function up(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  let builder = db.schema.createIndex(INDEX).on("exchanges").columns(["is_enabled", "created_at", "id"]);
  if (!mysql) builder = builder.ifNotExists();
  try {
    await builder.execute();
  } catch (error) {
    // MySQL has no CREATE INDEX IF NOT EXISTS: ER_DUP_KEYNAME (1061) means it is there.
    if (mysql && (error as { errno?: number }).errno === 1061) return;
    throw error;
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  // MySQL names the table (DROP INDEX ... ON ...); SQLite's index names are global.
  await (mysql ? db.schema.dropIndex(INDEX).on("exchanges") : db.schema.dropIndex(INDEX).ifExists()).execute();
}
