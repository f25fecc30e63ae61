// The price loop's write per tick (decision 032): what storing one tick of the four symbols
// costs, now that every price also folds into its 1-minute candle.
//
//   bun bench/price-tick.ts [--ticks 300] [--mysql]
//
//   before   what a tick wrote until the candles: each symbol's market_prices upsert on its
//            own (four commits; the once-a-minute price_history insert left out);
//   after    setPrices: the four upserts and ONE candle upsert for the batch, in one
//            transaction (one commit).
// Prices wander so high / low / close keep changing; every 60th tick is a new minute. A
// SQLite file in WAL mode with synchronous=FULL (as the app runs it) or a fresh MariaDB
// database on 127.0.0.1:3306 (--mysql), dropped at the end.
import { setPrices } from "#exchange/simulator/price-feed.ts";
import { BUILTIN_PRODUCTS } from "../app/core/products.ts";
import { openDatabase } from "../db/client.ts";
import { migrateToLatest } from "../db/migrate.ts";
import { isMysql } from "../db/queries/util.ts";
import { scratchDatabase } from "./lib.ts";

const MYSQL = process.argv.includes("--mysql");
const at = process.argv.indexOf("--ticks");
const TICKS = Math.min(Math.max(at > 0 ? Number(process.argv[at + 1]) : 300, 10), 10_000);

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const summary = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    mean: +(ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(3),
    p50: +pct(sorted, 50).toFixed(3),
    p99: +pct(sorted, 99).toFixed(3),
  };
};

const where = await scratchDatabase(MYSQL, "price-tick");
const database = await openDatabase(where.url);
try {
  const db = database.db;
  await migrateToLatest(db);
  const start = Math.floor(Date.now() / 60_000) * 60_000;
  const priceAt = (i: number, k: number) =>
    (Number(BUILTIN_PRODUCTS[k]!.referencePrice) * (1 + 0.001 * Math.sin(i / 7 + k))).toFixed(2);
  const before: number[] = [];
  const after: number[] = [];
  for (let i = 0; i < TICKS; i++) {
    const time = start + i * 1000;
    const ticks = BUILTIN_PRODUCTS.map((p, k) => ({
      symbol: p.symbol,
      price: priceAt(i, k),
      source: "bench",
      at: time,
    }));
    let t0 = performance.now();
    for (const t of ticks) {
      const values = { symbol: t.symbol, price: t.price, bid: null, ask: null, source: t.source, updated_at: t.at };
      const { symbol: _s, ...update } = values;
      const insert = db.insertInto("market_prices").values(values);
      if (isMysql(db)) await insert.onDuplicateKeyUpdate(update).execute();
      else await insert.onConflict((oc) => oc.column("symbol").doUpdateSet(update)).execute();
    }
    before.push(performance.now() - t0);
    t0 = performance.now();
    await setPrices(db, ticks);
    after.push(performance.now() - t0);
  }
  const candles = await db
    .selectFrom("candles")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  const result = {
    dialect: MYSQL ? "mysql" : "sqlite",
    ticks: TICKS,
    symbols: BUILTIN_PRODUCTS.length,
    beforeMs: summary(before),
    afterMs: summary(after),
    candles: Number(candles.n),
  };
  console.log(`${result.dialect}: ${TICKS} ticks of ${BUILTIN_PRODUCTS.length} symbols`);
  console.log(
    `  before (4 upserts, 4 commits):          mean ${result.beforeMs.mean} ms, p50 ${result.beforeMs.p50}, p99 ${result.beforeMs.p99}`,
  );
  console.log(
    `  after  (4 upserts + candles, 1 commit): mean ${result.afterMs.mean} ms, p50 ${result.afterMs.p50}, p99 ${result.afterMs.p99}`,
  );
  console.log(JSON.stringify(result));
} finally {
  await database.destroy();
  await where.cleanup();
}
