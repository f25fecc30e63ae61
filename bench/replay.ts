// The what-if replay's cost (issue 25, docs/decisions/047-replay.md; target: a 30-day replay of
// 1,000 alerts answers in under 5 s on SQLite). A benchmark, not a timed test.
//
//   bun bench/replay.ts [--days 30] [--alerts 1000] [--runs 3] [--mysql]
//
// Seeds a scratch database (a SQLite file in WAL mode as the app runs it, or a fresh MariaDB
// database on 127.0.0.1:3306 with --mysql, dropped at the end) with `days` of 1-minute candles
// for the four symbols (a seeded random walk: the same data every run) and `alerts` executed
// alerts spread over the period (random symbol, buy or sell, quantity 1 contract-sized unit,
// the candle's price), then times runReplay (app/services/replay.server.ts: the reads and the
// replay) over the whole period with three rule sets (the default Trading Rules; without
// break-even; without trailing), `runs` times. Prints the wall time of each run and the figures
// of the first rule set (identical across runs: the replay is deterministic).
import { BUILTIN_PRODUCTS } from "../app/core/products.ts";
import { DEFAULT_TRADING_CONFIG } from "../app/core/schemas/trading-config.ts";
import { type ReplayRequest, defaultReplayRequest } from "../app/core/schemas/replay.ts";
import { runReplay } from "../app/services/replay.server.ts";
import { openDatabase } from "../db/client.ts";
import { migrateToLatest } from "../db/migrate.ts";
import { log, machineInfo, numArg, parseArgs, scratchDatabase } from "./lib.ts";

const args = parseArgs();
const MYSQL = args.mysql === true;
const DAYS = numArg(args, "days", 30);
const ALERTS = numArg(args, "alerts", 1000);
const RUNS = numArg(args, "runs", 3);
const MINUTE = 60_000;
const DAY = 86_400_000;

/** mulberry32: a small seeded PRNG (the same candles and alerts every run). */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const where = await scratchDatabase(MYSQL, "replay");
const database = await openDatabase(where.url);
try {
  const db = database.db;
  await migrateToLatest(db);
  const now = Date.now();
  const end = Math.floor(now / DAY) * DAY + DAY - MINUTE; // the last minute of today
  const start = end - DAYS * DAY + MINUTE;
  const minutes = Math.floor((end - start) / MINUTE) + 1;
  const random = prng(47);

  // Candles: a random walk per symbol, written 1,000 rows per statement.
  const t0 = performance.now();
  const closes = new Map<string, number[]>();
  for (const product of BUILTIN_PRODUCTS) {
    const decimals = product.quoteIncrement.includes(".") ? product.quoteIncrement.split(".")[1]!.length : 0;
    const vol = Number(product.volatility) * 4;
    let price = Number(product.referencePrice);
    const series: number[] = [];
    let batch: {
      symbol: string;
      bucket: number;
      open: string;
      high: string;
      low: string;
      close: string;
      ticks: number;
      updated_at: number;
    }[] = [];
    for (let i = 0; i < minutes; i++) {
      const open = price;
      const close = open * (1 + (random() - 0.5) * 2 * vol);
      const high = Math.max(open, close) * (1 + random() * vol);
      const low = Math.min(open, close) * (1 - random() * vol);
      price = close;
      series.push(close);
      batch.push({
        symbol: product.symbol,
        bucket: start + i * MINUTE,
        open: open.toFixed(decimals),
        high: high.toFixed(decimals),
        low: low.toFixed(decimals),
        close: close.toFixed(decimals),
        ticks: 60,
        updated_at: start + i * MINUTE + 59_000,
      });
      if (batch.length === 1000 || i === minutes - 1) {
        await db.insertInto("candles").values(batch).execute();
        batch = [];
      }
    }
    closes.set(product.symbol, series);
  }
  log(
    `seeded ${minutes * BUILTIN_PRODUCTS.length} candles (${DAYS} days × ${BUILTIN_PRODUCTS.length} symbols) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );

  // Alerts: executed signals at random minutes, at the candle's close as the alert's price.
  const rows = [];
  for (let i = 0; i < ALERTS; i++) {
    const product = BUILTIN_PRODUCTS[Math.floor(random() * BUILTIN_PRODUCTS.length)]!;
    const minute = Math.floor(random() * minutes);
    const at = start + minute * MINUTE + Math.floor(random() * 59_000);
    const decimals = product.quoteIncrement.includes(".") ? product.quoteIncrement.split(".")[1]!.length : 0;
    const price = closes.get(product.symbol)![minute]!.toFixed(decimals);
    const action = random() < 0.5 ? "buy" : "sell";
    const quantity = product.baseMinSize === "1" ? "100" : String(Number(product.baseMinSize) * 100);
    rows.push({
      id: `bench-${String(i).padStart(5, "0")}`,
      action,
      symbol: product.symbol,
      order_type: "market",
      price,
      quantity,
      payload: JSON.stringify({ action, symbol: product.symbol, quantity, price }),
      strategy: null,
      signal_time: at,
      dedupe_key: `bench-${i}`,
      processed: 1,
      status: "executed",
      status_reason: null,
      created_at: at,
      processed_at: at,
    });
  }
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto("signals")
      .values(rows.slice(i, i + 500))
      .execute();
  log(`seeded ${ALERTS} executed alerts`);

  const base = defaultReplayRequest(DEFAULT_TRADING_CONFIG, now);
  const request: ReplayRequest = {
    from: new Date(start).toISOString().slice(0, 10),
    to: new Date(end).toISOString().slice(0, 10),
    strategy: "all",
    sets: [base.sets[0]!, { ...base.sets[1]!, breakEven: false }, { ...base.sets[2]!, trailing: false }],
  };
  const times: number[] = [];
  let first: string | null = null;
  for (let run = 0; run < RUNS; run++) {
    const t = performance.now();
    const result = await runReplay(db, request, now);
    const ms = performance.now() - t;
    times.push(ms);
    const figures = JSON.stringify(result.sets.map((s) => s.summary));
    if (first === null) {
      first = figures;
      const s = result.sets[0]!.summary;
      log(
        `rule set 1: ${result.alerts} alerts, ${s.positions} positions, ${s.trades} closed trades, net ${s.pnl}, max drawdown ${s.maxDrawdown}, win rate ${s.winRate} %, TP hit rates ${s.tpHitRates.join(" / ")} %`,
      );
    } else if (figures !== first) throw new Error("the replay gave other figures for the same input");
    log(`run ${run + 1}: ${(ms / 1000).toFixed(2)} s (service's own figure ${result.tookMs} ms)`);
  }
  const sorted = [...times].sort((a, b) => a - b);
  log(
    `${MYSQL ? "MariaDB" : "SQLite"}: ${DAYS} days, ${ALERTS} alerts, 3 rule sets: best ${(sorted[0]! / 1000).toFixed(2)} s, worst ${(sorted[sorted.length - 1]! / 1000).toFixed(2)} s (target < 5 s); same figures every run`,
  );
  log(JSON.stringify(machineInfo()));
} finally {
  await database.destroy();
  await where.cleanup();
}
