// Audit trail (issue 13, decision 029): `audit_entries` holds one row per change of settings,
// credentials, roles, trading rules, the emergency stop and every reset: who (actor), what
// (action, target), the changed fields before/after as JSON (secrets as "(changed)") and the
// client address. No reset deletes it and housekeeping does not prune it.
// Frozen: never imports application code; idempotent.
import { type Kysely, MysqlAdapter, sql } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  const str = (n: number) => sql.raw(mysql ? `varchar(${n})` : "text");
  let table = db.schema
    .createTable("audit_entries")
    .ifNotExists()
    .addColumn("id", mysql ? sql`bigint` : sql`integer`, (c) => c.primaryKey().autoIncrement())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("actor", str(64), (c) => c.notNull())
    .addColumn("action", str(64), (c) => c.notNull())
    .addColumn("target", str(128), (c) => c.notNull())
    .addColumn("changes", mysql ? sql`mediumtext` : sql`text`, (c) => c.notNull())
    .addColumn("ip", str(64));
  if (mysql) table = table.modifyEnd(sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`);
  await table.execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("audit_entries").ifExists().execute();
}
