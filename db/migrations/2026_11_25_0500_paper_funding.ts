// Funding payments on the paper exchange (docs/decisions/024-paper-margin.md):
// - sim_positions.opened_at: when the position took its side (a position is charged at a
//   funding boundary only if it was open then); existing open rows get their updated_at.
// - sim_funding: the simulator's record of each payment, one per profile, symbol and interval
//   (the unique key makes an interval's funding once, across workers and restarts).
// - funding_payments: the app's record of the payments it booked on its positions (one per
//   sim_funding row: exchange_ref unique), with the time that puts them in a P&L period.
// - positions.funding: the funding a position has paid (-) or received (+) so far; its
//   realized_pnl includes it (docs/pnl.md).
// Frozen: never imports application code; idempotent (MySQL DDL is not transactional).
import { type Kysely, MysqlAdapter, sql } from "kysely";

type Db = Kysely<any>;

async function hasColumn(db: Db, mysql: boolean, table: string, column: string): Promise<boolean> {
  const rows = mysql
    ? await sql`select COLUMN_NAME from information_schema.columns where table_schema = database() and table_name = ${table} and column_name = ${column}`.execute(db)
    : await sql`select name from pragma_table_info(${table}) where name = ${column}`.execute(db);
  return rows.rows.length > 0;
}

export async function up(db: Db): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  const dec = mysql ? sql`decimal(36,18)` : sql`text`;
  const str = (n: number) => sql.raw(mysql ? `varchar(${n})` : "text");
  const engine = <T>(b: T) => (mysql ? (b as any).modifyEnd(sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`) : b) as T;
  const index = async (name: string, table: string, columns: string[], unique = false) => {
    let builder = db.schema.createIndex(name).on(table).columns(columns);
    if (unique) builder = builder.unique();
    if (!mysql) builder = builder.ifNotExists();
    try {
      await builder.execute();
    } catch (error) {
      if (!(mysql && (error as { errno?: number }).errno === 1061)) throw error;
    }
  };

  if (!(await hasColumn(db, mysql, "sim_positions", "opened_at"))) {
    await db.schema.alterTable("sim_positions").addColumn("opened_at", "bigint").execute();
    await db.updateTable("sim_positions").set({ opened_at: sql`updated_at` }).where("side", "!=", "flat").execute();
  }
  if (!(await hasColumn(db, mysql, "positions", "funding"))) {
    await db.schema.alterTable("positions").addColumn("funding", dec, (c) => c.notNull().defaultTo("0")).execute();
  }

  await engine(
    db.schema
      .createTable("sim_funding")
      .ifNotExists()
      .addColumn("id", str(36), (c) => c.primaryKey())
      .addColumn("profile_id", str(36), (c) => c.notNull().references("profiles.id").onDelete("cascade"))
      .addColumn("symbol", str(32), (c) => c.notNull())
      .addColumn("interval_start", "bigint", (c) => c.notNull())
      .addColumn("side", str(8), (c) => c.notNull())
      .addColumn("quantity", dec, (c) => c.notNull())
      .addColumn("mark_price", dec, (c) => c.notNull())
      .addColumn("rate", dec, (c) => c.notNull())
      // Signed, on the balance: negative = the position paid.
      .addColumn("amount", dec, (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull()),
  ).execute();
  await index("sim_funding_interval_uq", "sim_funding", ["profile_id", "symbol", "interval_start"], true);
  await index("sim_funding_created_idx", "sim_funding", ["created_at"]);

  await engine(
    db.schema
      .createTable("funding_payments")
      .ifNotExists()
      .addColumn("id", str(36), (c) => c.primaryKey())
      .addColumn("exchange", str(32), (c) => c.notNull())
      .addColumn("exchange_ref", str(64), (c) => c.notNull())
      .addColumn("position_id", str(36))
      .addColumn("symbol", str(40), (c) => c.notNull())
      .addColumn("side", str(8), (c) => c.notNull())
      .addColumn("quantity", dec, (c) => c.notNull())
      .addColumn("mark_price", dec, (c) => c.notNull())
      .addColumn("rate", dec, (c) => c.notNull())
      .addColumn("amount", dec, (c) => c.notNull())
      .addColumn("interval_start", "bigint", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull()),
  ).execute();
  await index("funding_payments_ref_uq", "funding_payments", ["exchange", "exchange_ref"], true);
  await index("funding_payments_created_idx", "funding_payments", ["created_at"]);
  await index("funding_payments_position_idx", "funding_payments", ["position_id"]);
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable("funding_payments").ifExists().execute();
  await db.schema.dropTable("sim_funding").ifExists().execute();
  await db.schema.alterTable("positions").dropColumn("funding").execute();
  await db.schema.alterTable("sim_positions").dropColumn("opened_at").execute();
}
