// Profiles and reports (issue 5):
// - profile_transfers: every movement of funds between paper profiles (a transfer, or the
//   funds a deleted profile hands to its destination). With the simulator's filled orders it
//   is the ledger the account and balance reports are built from.
// - reports: what a generated file needs: its bytes (kept in the database so any web node can
//   serve what any worker built), name, content type, size, completion and expiry times.
// Frozen: this file never imports application code. Each statement is idempotent
// (IF NOT EXISTS, a duplicate column or index ignored) because MySQL DDL is not transactional.
import { type Kysely, MysqlAdapter, sql } from "kysely";

type Db = Kysely<any>;

function isMysql(db: Db) {
  return db.getExecutor().adapter instanceof MysqlAdapter;
}

export async function up(db: Db): Promise<void> {
  const mysql = isMysql(db);
  const dec = mysql ? sql`decimal(36,18)` : sql`text`;
  const str = (n: number) => sql.raw(mysql ? `varchar(${n})` : "text");
  const blob = mysql ? sql`longblob` : sql`blob`;

  const index = async (name: string, tableName: string, columns: string[]) => {
    let builder = db.schema.createIndex(name).on(tableName).columns(columns);
    if (!mysql) builder = builder.ifNotExists();
    try {
      await builder.execute();
    } catch (error) {
      if (mysql && (error as { errno?: number }).errno === 1061) return; // ER_DUP_KEYNAME
      throw error;
    }
  };
  const addColumn = async (tableName: string, column: string, type: any) => {
    try {
      await db.schema.alterTable(tableName).addColumn(column, type).execute();
    } catch (error) {
      const e = error as { errno?: number; message?: string };
      // Already there (a rerun): MySQL ER_DUP_FIELDNAME 1060, SQLite "duplicate column name".
      if (e.errno === 1060 || /duplicate column/i.test(e.message ?? "")) return;
      throw error;
    }
  };

  let transfers = db.schema
    .createTable("profile_transfers")
    .ifNotExists()
    .addColumn("id", str(36), (c) => c.primaryKey())
    .addColumn("from_profile_id", str(36), (c) => c.notNull())
    .addColumn("to_profile_id", str(36), (c) => c.notNull())
    .addColumn("currency", str(16), (c) => c.notNull())
    .addColumn("amount", dec, (c) => c.notNull())
    .addColumn("kind", str(16), (c) => c.notNull()) // transfer | delete
    .addColumn("requested_by", str(100))
    .addColumn("created_at", "bigint", (c) => c.notNull());
  if (mysql) transfers = transfers.modifyEnd(sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`);
  await transfers.execute();
  await index("profile_transfers_from_idx", "profile_transfers", ["from_profile_id", "created_at"]);
  await index("profile_transfers_to_idx", "profile_transfers", ["to_profile_id", "created_at"]);

  await addColumn("reports", "file_data", blob);
  await addColumn("reports", "file_name", str(200));
  await addColumn("reports", "content_type", str(100));
  await addColumn("reports", "file_size", sql`bigint`);
  await addColumn("reports", "completed_at", sql`bigint`);
  await addColumn("reports", "expires_at", sql`bigint`);
  await index("reports_status_idx", "reports", ["status", "requested_at"]);
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable("profile_transfers").ifExists().execute();
  for (const column of ["file_data", "file_name", "content_type", "file_size", "completed_at", "expires_at"]) {
    await db.schema.alterTable("reports").dropColumn(column).execute().catch(() => undefined);
  }
}
