// Password reset links (issue 23, decision 041): an admin makes a one-time link for another
// account; `password_resets` keeps only the SHA-256 of its token (the link itself is shown to
// the admin once), who it is for, who made it, when it expires (1 h) and when it was used.
// Frozen: never imports application code; idempotent.
import { type Kysely, MysqlAdapter, sql } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  const str = (n: number) => sql.raw(mysql ? `varchar(${n})` : "text");
  let table = db.schema
    .createTable("password_resets")
    .ifNotExists()
    .addColumn("token_hash", str(64), (c) => c.primaryKey())
    .addColumn("user_id", str(36), (c) => c.notNull())
    .addColumn("created_by", str(36))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addColumn("used_at", "bigint");
  if (mysql) table = table.modifyEnd(sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`);
  await table.execute();
  let index = db.schema.createIndex("password_resets_user_idx").on("password_resets").columns(["user_id"]);
  if (!mysql) index = index.ifNotExists();
  try {
    await index.execute();
  } catch (error) {
    if (mysql && (error as { errno?: number }).errno === 1061) return; // ER_DUP_KEYNAME
    throw error;
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("password_resets").ifExists().execute();
}
