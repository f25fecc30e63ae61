// 1-minute OHLC candles (issue 13, decision 032): every stored price updates its minute's
// candle in ONE statement for a whole batch of ticks (the price feed's four symbols):
// open = the minute's first price, high / low = its extremes, close = the price of its latest
// tick. Decimals are TEXT on SQLite, so high and low are compared as numbers there (CAST ...
// AS REAL only picks which exact string is kept; prices have far fewer than 15 significant
// digits), and as DECIMAL by GREATEST / LEAST on MySQL. Never compared as strings.
import { type Kysely, type Selectable, sql } from "kysely";
import { normalizeDecimal } from "../../app/core/decimal.ts";
import { type CandleView, MAX_CANDLES } from "../../app/core/schemas/candles.ts";
import type { CandlesTable, DB } from "../schema.ts";
import { isMysql } from "./util.ts";

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;
/** Market Data's 24 h change reads the candle 24 h back: never prune closer than this. */
export const MIN_CANDLE_RETENTION_MS = DAY_MS + 3_600_000;

export interface CandleTick {
  symbol: string;
  /** A positive decimal string. */
  price: string;
  /** Epoch ms of the tick. */
  at: number;
}

export interface Candle extends CandleView {
  ticks: number;
}

export const minuteOf = (at: number) => Math.floor(at / MINUTE_MS) * MINUTE_MS;

/** Folds the ticks into their candles: one upsert statement for the batch. */
export async function recordCandleTicks(db: Kysely<DB>, ticks: CandleTick[]): Promise<void> {
  if (ticks.length === 0) return;
  const rows = ticks.map((t) => ({
    symbol: t.symbol,
    bucket: minuteOf(t.at),
    open: t.price,
    high: t.price,
    low: t.price,
    close: t.price,
    ticks: 1,
    updated_at: t.at,
  }));
  const insert = db.insertInto("candles").values(rows);
  if (isMysql(db)) {
    // MySQL evaluates these left to right with the updated values: close reads updated_at
    // before it is moved on.
    await insert
      .onDuplicateKeyUpdate({
        high: sql`greatest(\`high\`, values(\`high\`))`,
        low: sql`least(\`low\`, values(\`low\`))`,
        close: sql`if(values(\`updated_at\`) >= \`updated_at\`, values(\`close\`), \`close\`)`,
        updated_at: sql`greatest(\`updated_at\`, values(\`updated_at\`))`,
        ticks: sql`\`ticks\` + 1`,
      })
      .execute();
  } else {
    await insert
      .onConflict((oc) =>
        oc.columns(["symbol", "bucket"]).doUpdateSet({
          high: sql`case when cast(excluded.high as real) > cast(candles.high as real) then excluded.high else candles.high end`,
          low: sql`case when cast(excluded.low as real) < cast(candles.low as real) then excluded.low else candles.low end`,
          close: sql`case when excluded.updated_at >= candles.updated_at then excluded.close else candles.close end`,
          updated_at: sql`max(candles.updated_at, excluded.updated_at)`,
          ticks: sql`candles.ticks + 1`,
        }),
      )
      .execute();
  }
}

/**
 * The candles of `symbol` whose minute starts in [from, to], oldest first; when there are
 * more than `limit`, the newest `limit` of them.
 */
export async function listCandles(
  db: Kysely<DB>,
  symbol: string,
  range: { from: number; to: number; limit?: number },
): Promise<Candle[]> {
  const limit = Math.max(1, Math.min(range.limit ?? MAX_CANDLES, MAX_CANDLES));
  const rows = await candlesIn(db, symbol, range).orderBy("bucket", "desc").limit(limit).execute();
  return rows.reverse().map((r) => rowToCandle(r, (v) => normalizeDecimal(v)!));
}

/** The candles of `symbol` whose minute starts in [from, to]: the query both reads order (and cap). */
function candlesIn(db: Kysely<DB>, symbol: string, range: { from: number; to: number }) {
  return db
    .selectFrom("candles")
    .select(["bucket", "open", "high", "low", "close", "ticks"])
    .where("symbol", "=", symbol)
    .where("bucket", ">=", minuteOf(range.from))
    .where("bucket", "<=", range.to);
}

/** A candle row as a Candle, its prices written by `decimal`. */
function rowToCandle(
  r: Pick<Selectable<CandlesTable>, "bucket" | "open" | "high" | "low" | "close" | "ticks">,
  decimal: (value: string) => string,
): Candle {
  return {
    time: Number(r.bucket),
    open: decimal(r.open),
    high: decimal(r.high),
    low: decimal(r.low),
    close: decimal(r.close),
    ticks: Number(r.ticks),
  };
}

/** Per symbol, the first candle at or after `from` (its open): Market Data's 24 h reference. */
export async function firstOpensSince(
  db: Kysely<DB>,
  symbols: string[],
  from: number,
): Promise<Map<string, { bucket: number; open: string }>> {
  const out = new Map<string, { bucket: number; open: string }>();
  // One index seek per symbol (primary key symbol, bucket) instead of a scan of the whole range.
  const rows = await Promise.all(
    symbols.map((symbol) =>
      db
        .selectFrom("candles")
        .select(["symbol", "bucket", "open"])
        .where("symbol", "=", symbol)
        .where("bucket", ">=", from)
        .orderBy("bucket", "asc")
        .limit(1)
        .executeTakeFirst(),
    ),
  );
  for (const row of rows)
    if (row) out.set(row.symbol, { bucket: Number(row.bucket), open: normalizeDecimal(row.open)! });
  return out;
}

/**
 * Drops candles older than `retentionDays` (never closer than 25 h: Market Data's 24 h
 * change), but keeps everything since the oldest open position opened (less an hour), so
 * its chart stays whole however long it is held. Returns how many rows went.
 */
export async function pruneCandles(db: Kysely<DB>, retentionDays: number, now = Date.now()): Promise<number> {
  let before = now - Math.max(retentionDays * DAY_MS, MIN_CANDLE_RETENTION_MS);
  const oldest = await db
    .selectFrom("positions")
    .select((eb) => eb.fn.min("created_at").as("first"))
    .where("status", "=", "open")
    .executeTakeFirst();
  if (oldest?.first != null) before = Math.min(before, Number(oldest.first) - 3_600_000);
  const result = await db.deleteFrom("candles").where("bucket", "<", before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Every candle of `symbol` whose minute starts in [from, to], oldest first, without the
 * screens' cap (the what-if replay walks a whole period: decision 047). One index range scan
 * of the primary key (symbol, bucket).
 */
export async function listCandleRange(
  db: Kysely<DB>,
  symbol: string,
  range: { from: number; to: number },
): Promise<Candle[]> {
  const rows = await candlesIn(db, symbol, range).orderBy("bucket", "asc").execute();
  return rows.map((r) => rowToCandle(r, plainDecimal));
}

const PLAIN = /^(\d+)(?:\.(\d*?)0*)?$/;
/**
 * normalizeDecimal for the common case without a decimal library (a whole period of candles is
 * ~700,000 values): a plain positive decimal loses its trailing zeros (MySQL pads DECIMAL to its
 * scale) and leading zeros; anything else goes through normalizeDecimal.
 */
export function plainDecimal(value: string | number): string {
  if (typeof value === "string") {
    const m = PLAIN.exec(value);
    if (m) {
      const whole = m[1]!.replace(/^0+(?=\d)/, "");
      return m[2] ? `${whole}.${m[2]}` : whole;
    }
  }
  return normalizeDecimal(value)!;
}
