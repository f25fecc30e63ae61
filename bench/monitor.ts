// The rules monitor at scale: 1,000 open positions evaluated per price tick (target < 20 ms).
//
//   bun bench/monitor.ts [--positions 1000] [--ticks 200] [--mysql]
//
// Three figures:
//   engine   the pure rules engine (app/core/rules) over every position, per tick: what the
//            monitor does in memory once the positions are read;
//   monitor  one whole monitor tick against a real database (SQLite file in WAL mode, or a
//            fresh MariaDB database with --mysql): the one query that reads every open
//            position, the balances, the emergency stop, the evaluation, and the batched
//            write of what changed. Prices wander within ±0.3 % of the entries, so no rule
//            fires (the steady state);
//   steady   ticks at unchanged prices: nothing to write (the read and the evaluation only);
//   mark     the same tick when the once-a-minute write of every position's current price
//            is due (markIntervalMs 0: every tick is such a tick);
//   trigger  one tick in which EVERY position fires a rule (longs their first take-profit,
//            shorts their stop): a locked transaction and a close-position job per position
//            (the worst case, for scale).
// Every loop is bounded; nothing leaves this machine (SQLite file or 127.0.0.1:3306).
import { randomUUID } from "node:crypto";
import os from "node:os";
import { D } from "../app/core/decimal.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { controlsFor } from "../app/core/orders/controls.ts";
import { BUILTIN_PRODUCTS } from "../app/core/products.ts";
import { type RulePosition, emptyRuleState, evaluate, stopPriceFor } from "../app/core/rules/index.ts";
import { DEFAULT_TRADING_CONFIG } from "../app/core/schemas/trading-config.ts";
import { openDatabase } from "../db/client.ts";
import { migrateToLatest } from "../db/migrate.ts";
import { insertPosition } from "../db/queries/positions.ts";
import { monitorPositions } from "../worker/monitor/rules-monitor.ts";
import { scratchDatabase } from "./lib.ts";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
}
const POSITIONS = Math.min(arg("positions", 1000), 20_000);
const TICKS = Math.min(arg("ticks", 200), 5_000);
const MYSQL = process.argv.includes("--mysql");
const TARGET_MS = 20;

const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const r = (v: number) => Math.round(v * 100) / 100;
  return {
    n: values.length,
    mean: r(mean),
    p50: r(at(0.5)),
    p95: r(at(0.95)),
    p99: r(at(0.99)),
    max: r(sorted[sorted.length - 1]!),
  };
};
const fmt = (s: ReturnType<typeof summary>) =>
  `n=${s.n} mean=${s.mean}ms p50=${s.p50}ms p95=${s.p95}ms p99=${s.p99}ms max=${s.max}ms`;

// A deterministic walk that stays within ±0.3 % of each symbol's start (no rule fires).
function wander(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state % 6001) - 3000; // -3000 .. 3000 → ±0.3 % in 1e-6 steps
  };
}

const controls = controlsFor(DEFAULT_TRADING_CONFIG, "signal");
const entries = new Map(BUILTIN_PRODUCTS.map((p) => [p.symbol, p.referencePrice]));
const priceAt = (symbol: string, micro: number) =>
  D(entries.get(symbol)!)
    .times(D(1).plus(D(micro).div(1_000_000)))
    .toString();

function makePositions(): RulePosition[] {
  return Array.from({ length: POSITIONS }, (_, i) => {
    const product = BUILTIN_PRODUCTS[i % BUILTIN_PRODUCTS.length]!;
    const side = i % 2 === 0 ? "long" : "short";
    return {
      id: randomUUID(),
      symbol: product.symbol,
      side,
      quantity: D(product.baseMinSize).times(10).toString(),
      remainingQuantity: D(product.baseMinSize).times(10).toString(),
      entryPrice: product.referencePrice,
      advancedControls: controls,
      breakEvenTriggered: false,
      trailingStopActive: false,
      trailingBestPrice: null,
      maxDrawdown: "0",
      ruleState: emptyRuleState(),
    };
  });
}

async function benchEngine() {
  const positions = makePositions();
  const next = wander(7);
  const byPosition = new Map(BUILTIN_PRODUCTS.map((p) => [p.symbol, p]));
  const times: number[] = [];
  let actions = 0;
  for (let t = 0; t < TICKS; t++) {
    const prices = new Map(BUILTIN_PRODUCTS.map((p) => [p.symbol, priceAt(p.symbol, next())]));
    const start = performance.now();
    for (const position of positions) {
      const ev = evaluate(position, prices.get(position.symbol)!, byPosition.get(position.symbol)!, {
        equity: "1000000",
        portfolioPercent: "0",
      });
      actions += ev.actions.length;
      position.maxDrawdown = ev.state.maxDrawdown;
    }
    times.push(performance.now() - start);
  }
  return { stats: summary(times.slice(5)), actions };
}

async function benchMonitor() {
  const target = await scratchDatabase(MYSQL, "monitor");
  const database = await openDatabase(target.url);
  try {
    await migrateToLatest(database.db);
    const db = database.db;
    const exchange = new SimulatorAdapter(db);
    await exchange.ensureAccount();
    for (const p of BUILTIN_PRODUCTS) await setPrice(db, p.symbol, p.referencePrice, "bench");
    const positions = makePositions();
    await db.transaction().execute(async (trx) => {
      for (const p of positions) {
        await insertPosition(trx, {
          id: p.id,
          symbol: p.symbol,
          side: p.side,
          quantity: p.quantity,
          entryPrice: p.entryPrice,
          currentPrice: p.entryPrice,
          entryTradeId: null,
          advancedControls: controls,
          leverage: 1,
          marginType: "cross",
          source: "signal",
          signalId: null,
          fees: "0",
          stopPrice: stopPriceFor({ ...p, breakEvenTriggered: false }),
        });
      }
    });

    const next = wander(11);
    const times: number[] = [];
    let written = 0;
    let closes = 0;
    for (let t = 0; t < TICKS; t++) {
      const prices = new Map(BUILTIN_PRODUCTS.map((p) => [p.symbol, priceAt(p.symbol, next())]));
      const start = performance.now();
      const result = await monitorPositions(db, prices, { exchange });
      times.push(performance.now() - start);
      written += result.updated;
      closes += result.closes;
      if (result.evaluated !== POSITIONS) throw new Error(`evaluated ${result.evaluated} of ${POSITIONS}`);
    }
    // Ticks where nothing changes (the same prices again: no new worst excursion, the same
    // portfolio percents): one read, the evaluation, no write.
    const steady = new Map(BUILTIN_PRODUCTS.map((p) => [p.symbol, priceAt(p.symbol, 0)]));
    await monitorPositions(db, steady, { exchange });
    const steadyTimes: number[] = [];
    let steadyWrites = 0;
    for (let t = 0; t < Math.min(TICKS, 100); t++) {
      const start = performance.now();
      const result = await monitorPositions(db, steady, { exchange });
      steadyTimes.push(performance.now() - start);
      steadyWrites += result.updated;
    }
    // Ticks that also write every open position's current price (once a minute in the loop).
    const markTimes: number[] = [];
    for (let t = 0; t < Math.min(TICKS, 50); t++) {
      const prices = new Map(BUILTIN_PRODUCTS.map((p) => [p.symbol, priceAt(p.symbol, next())]));
      const start = performance.now();
      await monitorPositions(db, prices, { exchange, markIntervalMs: 0 });
      markTimes.push(performance.now() - start);
    }

    // +0.6 %: every long reaches its first take-profit, every short its stop loss: one
    // locked transaction and one close-position job per position.
    const up = new Map(BUILTIN_PRODUCTS.map((p) => [p.symbol, priceAt(p.symbol, 6000)]));
    const t0 = performance.now();
    const fired = await monitorPositions(db, up, { exchange });
    const t1 = performance.now();
    const jobs = Number(
      (await db
        .selectFrom("jobs")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirst())!.n,
    );
    return {
      label: database.label.replace(/\/\/.*@/, "//"),
      stats: summary(times.slice(5)),
      mark: summary(markTimes.slice(Math.min(5, markTimes.length - 1))),
      steady: summary(steadyTimes.slice(Math.min(5, steadyTimes.length - 1))),
      steadyWrites,
      written,
      closes,
      trigger: { ms: Math.round(t1 - t0), closes: fired.closes, jobs },
    };
  } finally {
    await database.destroy();
    await target.cleanup();
  }
}

const guard = setTimeout(() => {
  console.error("bench/monitor.ts: 10 minutes elapsed, giving up");
  process.exit(2);
}, 600_000);

console.log(
  `Rules monitor: ${POSITIONS} open positions, ${TICKS} ticks, ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, bun ${Bun.version}`,
);
const engine = await benchEngine();
console.log(
  `engine   (pure evaluation, per tick)          ${fmt(engine.stats)}  ${engine.stats.p95 < TARGET_MS ? "PASS" : "MISS"} (< ${TARGET_MS} ms)`,
);
const monitor = await benchMonitor();
console.log(
  `monitor  (${MYSQL ? "MariaDB" : "SQLite"}: read + evaluate + write) ${fmt(monitor.stats)}  ${monitor.stats.p95 < TARGET_MS ? "PASS" : "MISS"} (< ${TARGET_MS} ms)`,
);
console.log(
  `steady   (nothing changed: read + evaluate, no write) ${fmt(monitor.steady)}  ${monitor.steady.p95 < TARGET_MS ? "PASS" : "MISS"} (< ${TARGET_MS} ms); rows written ${monitor.steadyWrites}`,
);
console.log(
  `mark     (the same + every position's price)  ${fmt(monitor.mark)}  (once a minute at the price loop's 1 s cadence)`,
);
console.log(
  `         rows written by the batch: ${monitor.written} over ${TICKS} ticks; closes requested: ${monitor.closes} (expected 0)`,
);
console.log(
  `trigger  (every position fires a rule at once)  ${monitor.trigger.ms} ms for the tick: ${monitor.trigger.closes} close jobs (${monitor.trigger.jobs} in the table)`,
);
console.log(
  JSON.stringify({
    bench: "monitor",
    dialect: MYSQL ? "mysql" : "sqlite",
    positions: POSITIONS,
    ticks: TICKS,
    targetMs: TARGET_MS,
    engine: engine.stats,
    monitor: monitor.stats,
    steady: monitor.steady,
    steadyWrites: monitor.steadyWrites,
    mark: monitor.mark,
    rowsWritten: monitor.written,
    closes: monitor.closes,
    trigger: monitor.trigger,
  }),
);
clearTimeout(guard);
process.exit(0);
