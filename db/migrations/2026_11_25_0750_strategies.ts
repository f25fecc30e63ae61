// Strategies (issue 12, docs/decisions/027-strategies.md): the strategy as the unit of
// automation. `strategies` holds each one's name, switch, its own webhook secret (encrypted
// with APP_SECRET like the global one, plus its SHA-256 to find the strategy by the secret an
// alert presents), allowed symbols, sizing, leverage, limits and protection-rule overrides
// (JSON, the trading config's own fields). signals, trades and positions gain a nullable
// strategy_id: null = the global secret's "default" strategy, manual orders and older rows.
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

  let table = db.schema
    .createTable("strategies")
    .ifNotExists()
    .addColumn("id", str(36), (c) => c.primaryKey())
    .addColumn("name", str(60), (c) => c.notNull())
    // lower-cased name: unique, so "Trend" and "trend" cannot both exist.
    .addColumn("name_key", str(60), (c) => c.notNull())
    .addColumn("enabled", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("secret_enc", str(255), (c) => c.notNull())
    .addColumn("secret_hash", str(64), (c) => c.notNull())
    .addColumn("allowed_symbols", "text", (c) => c.notNull())
    .addColumn("amount_type", str(16), (c) => c.notNull())
    .addColumn("amount_value", dec, (c) => c.notNull())
    .addColumn("max_position_size", dec)
    .addColumn("max_open_positions", "integer")
    .addColumn("leverage", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("rules", "text")
    .addColumn("secret_rotated_at", "bigint", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull());
  if (mysql) table = table.modifyEnd(sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`);
  await table.execute();
  await index("strategies_name_uq", "strategies", ["name_key"], true);
  await index("strategies_secret_uq", "strategies", ["secret_hash"], true);

  for (const name of ["signals", "trades", "positions"]) {
    if (!(await hasColumn(db, mysql, name, "strategy_id"))) {
      await db.schema.alterTable(name).addColumn("strategy_id", str(36)).execute();
    }
    await index(`${name}_strategy_idx`, name, ["strategy_id"]);
  }
}

export async function down(db: Db): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  for (const name of ["signals", "trades", "positions"]) {
    const drop = db.schema.dropIndex(`${name}_strategy_idx`).ifExists();
    await (mysql ? drop.on(name) : drop).execute();
    await db.schema.alterTable(name).dropColumn("strategy_id").execute();
  }
  await db.schema.dropTable("strategies").ifExists().execute();
}
