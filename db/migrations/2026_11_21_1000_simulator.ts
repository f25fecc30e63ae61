// The paper-trading simulator's own state: its orders (resting limits included) and its net
// position per profile and symbol. Balances and prices live in the init migration's
// `balances` and `market_prices`.
// Frozen: this file never imports application code. Each statement is idempotent
// (IF NOT EXISTS, or a duplicate index ignored) because MySQL DDL is not transactional:
// a migration interrupted half-way completes when it runs again.
import { type Kysely, MysqlAdapter, sql } from "kysely";

type Db = Kysely<any>;

function isMysql(db: Db) {
  return db.getExecutor().adapter instanceof MysqlAdapter;
}

export async function up(db: Db): Promise<void> {
  const mysql = isMysql(db);
  const dec = mysql ? sql`decimal(36,18)` : sql`text`;
  const longText = mysql ? sql`mediumtext` : sql`text`;
  const str = (n: number) => sql.raw(mysql ? `varchar(${n})` : "text");

  const table = (name: string) => db.schema.createTable(name).ifNotExists();
  const index = async (name: string, tableName: string, columns: string[], unique = false) => {
    let builder = db.schema.createIndex(name).on(tableName).columns(columns);
    if (unique) builder = builder.unique();
    if (!mysql) builder = builder.ifNotExists();
    try {
      await builder.execute();
    } catch (error) {
      // MySQL has no CREATE INDEX IF NOT EXISTS: ER_DUP_KEYNAME (1061) means it is there.
      if (mysql && (error as { errno?: number }).errno === 1061) return;
      throw error;
    }
  };
  const finish = <T extends { execute(): Promise<unknown> }>(b: T) => b.execute();
  const engine = <T>(b: T) =>
    (mysql ? (b as any).modifyEnd(sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`) : b) as T;

  await finish(
    engine(
      table("sim_orders")
        .addColumn("id", str(36), (c) => c.primaryKey())
        .addColumn("client_order_id", str(100), (c) => c.notNull().unique())
        .addColumn("profile_id", str(36), (c) => c.notNull().references("profiles.id").onDelete("cascade"))
        .addColumn("symbol", str(32), (c) => c.notNull())
        .addColumn("side", str(8), (c) => c.notNull())
        .addColumn("order_type", str(8), (c) => c.notNull())
        .addColumn("quantity", dec, (c) => c.notNull())
        .addColumn("price", dec)
        .addColumn("status", str(16), (c) => c.notNull())
        .addColumn("filled_quantity", dec, (c) => c.notNull().defaultTo("0"))
        .addColumn("average_price", dec)
        .addColumn("fee", dec, (c) => c.notNull().defaultTo("0"))
        .addColumn("leverage", "integer", (c) => c.notNull().defaultTo(1))
        .addColumn("margin_type", str(16), (c) => c.notNull().defaultTo("cross"))
        .addColumn("reduce_only", "integer", (c) => c.notNull().defaultTo(0))
        // What a resting order holds back from `available` (margin + fee), released on fill/cancel.
        .addColumn("hold_amount", dec, (c) => c.notNull().defaultTo("0"))
        // P&L this order's fill realized by reducing a position.
        .addColumn("realized_pnl", dec, (c) => c.notNull().defaultTo("0"))
        .addColumn("reject_reason", longText)
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull()),
    ),
  );
  // Resting-limit matching: status = 'open' and symbol = ?.
  await index("sim_orders_status_symbol_idx", "sim_orders", ["status", "symbol"]);
  await index("sim_orders_profile_created_idx", "sim_orders", ["profile_id", "created_at"]);

  await finish(
    engine(
      table("sim_positions")
        .addColumn("profile_id", str(36), (c) => c.notNull().references("profiles.id").onDelete("cascade"))
        .addColumn("symbol", str(32), (c) => c.notNull())
        .addColumn("side", str(8), (c) => c.notNull())
        .addColumn("quantity", dec, (c) => c.notNull())
        .addColumn("entry_price", dec, (c) => c.notNull())
        .addColumn("margin", dec, (c) => c.notNull().defaultTo("0"))
        .addColumn("leverage", "integer", (c) => c.notNull().defaultTo(1))
        .addColumn("margin_type", str(16), (c) => c.notNull().defaultTo("cross"))
        .addColumn("realized_pnl", dec, (c) => c.notNull().defaultTo("0"))
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("sim_positions_pk", ["profile_id", "symbol"]),
    ),
  );
}

export async function down(db: Db): Promise<void> {
  for (const name of ["sim_orders", "sim_positions"]) {
    await db.schema.dropTable(name).ifExists().execute();
  }
}
