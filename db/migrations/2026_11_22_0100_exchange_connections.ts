// Exchange connections (the `exchanges` table of the initial schema) are read by "the first
// enabled connection, oldest first" on every worker job and every credentials check: index
// that order, and seed the credentials version row. Frozen: never imports application
// code; idempotent (MySQL DDL is not transactional, so an interrupted run completes when it
// runs again).
import { type Kysely, MysqlAdapter } from "kysely";

const INDEX = "exchanges_enabled_created_idx";
const VERSION_KEY = "exchange_credentials_version";

export async function up(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  // The credentials version row every credentials change locks (FOR UPDATE) and renews:
  // present from the start, so locking it never has to insert it.
  await db
    .insertInto("settings")
    .ignore()
    .values({ key: VERSION_KEY, value: JSON.stringify("none"), updated_at: Date.now() })
    .execute();
  let builder = db.schema.createIndex(INDEX).on("exchanges").columns(["is_enabled", "created_at", "id"]);
  if (!mysql) builder = builder.ifNotExists();
  try {
    await builder.execute();
  } catch (error) {
    // MySQL has no CREATE INDEX IF NOT EXISTS: ER_DUP_KEYNAME (1061) means it is there.
    if (!(mysql && (error as { errno?: number }).errno === 1061)) throw error;
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  // MySQL names the table (DROP INDEX ... ON ...); SQLite's index names are global.
  await (mysql ? db.schema.dropIndex(INDEX).on("exchanges") : db.schema.dropIndex(INDEX).ifExists()).execute();
}
