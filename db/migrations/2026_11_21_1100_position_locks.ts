// One row per symbol that every change to that symbol's positions locks first
// (UPDATE ... : an exclusive row lock on MySQL, the write lock on SQLite). Locking the
// positions rows themselves is not enough: under READ COMMITTED a locking read of "no
// open position" locks nothing, and reads and updates through different indexes deadlock.
import { type Kysely, MysqlAdapter, sql } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  let create = db.schema
    .createTable("position_locks")
    .ifNotExists()
    .addColumn("symbol", mysql ? sql`varchar(32)` : sql`text`, (c) => c.primaryKey())
    .addColumn("version", "bigint", (c) => c.notNull().defaultTo(0));
  if (mysql) create = create.modifyEnd(sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`);
  await create.execute();
  for (const symbol of ["BTC-PERP", "ETH-PERP", "SOL-PERP", "XRP-PERP"]) {
    await db.insertInto("position_locks").ignore().values({ symbol, version: 0 }).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("position_locks").ifExists().execute();
}
