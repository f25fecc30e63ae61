// Price chart (issue 13, decision 032): `candles` holds 1-minute OHLC candles per symbol,
// written by every stored price (app/core/exchange/simulator/price-feed.ts setPrice). It
// replaces `price_history` (the first price of every minute, decision 022): that price is the
// candle's open, so Market Data's 24 h change reads the candles. The kept history is copied
// over (open = high = low = close = the kept price), then price_history is dropped.
// Frozen: never imports application code; idempotent.
import { type Kysely, MysqlAdapter, sql } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  const decimal = mysql ? sql`decimal(36,18)` : sql`text`;
  let table = db.schema
    .createTable("candles")
    .ifNotExists()
    .addColumn("symbol", sql.raw(mysql ? "varchar(40)" : "text"), (c) => c.notNull())
    .addColumn("bucket", "bigint", (c) => c.notNull()) // the minute's start, epoch ms
    .addColumn("open", decimal, (c) => c.notNull())
    .addColumn("high", decimal, (c) => c.notNull())
    .addColumn("low", decimal, (c) => c.notNull())
    .addColumn("close", decimal, (c) => c.notNull())
    .addColumn("ticks", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("updated_at", "bigint", (c) => c.notNull()) // the time of the close's tick
    .addPrimaryKeyConstraint("candles_pk", ["symbol", "bucket"]);
  if (mysql) table = table.modifyEnd(sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`);
  await table.execute();

  const tables = await db.introspection.getTables();
  if (tables.some((t) => t.name === "price_history")) {
    const copy = sql`insert into candles (symbol, bucket, open, high, low, close, ticks, updated_at)
      select symbol, bucket, price, price, price, price, 1, bucket from price_history`;
    if (mysql) await sql`${copy} on duplicate key update ticks = candles.ticks`.execute(db);
    else await sql`${copy} where true on conflict (symbol, bucket) do nothing`.execute(db);
    await db.schema.dropTable("price_history").ifExists().execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  let table = db.schema
    .createTable("price_history")
    .ifNotExists()
    .addColumn("symbol", sql.raw(mysql ? "varchar(40)" : "text"), (c) => c.notNull())
    .addColumn("bucket", "bigint", (c) => c.notNull())
    .addColumn("price", mysql ? sql`decimal(36,18)` : sql`text`, (c) => c.notNull())
    .addPrimaryKeyConstraint("price_history_pk", ["symbol", "bucket"]);
  if (mysql) table = table.modifyEnd(sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`);
  await table.execute();
  await sql`insert into price_history (symbol, bucket, price) select symbol, bucket, open from candles`.execute(db);
  await db.schema.dropTable("candles").ifExists().execute();
}
