// Executed fills for the P&L and performance statistics (app/core/pnl): every trade that
// executed (status executed or completed, with a price and a time), oldest first; and a
// fingerprint of the executed trades, which the statistics cache
// (app/services/statistics.server.ts) reads on every request to tell whether anything
// changed since it last looked.
import { sql } from "kysely";
import { normalizeDecimal } from "../../app/core/decimal.ts";
import type { ExecutedFill } from "../../app/core/pnl/fifo.ts";
import type { Db } from "./util.ts";

/** An executed trade as the statistics cache counts it; `fill` is null without a price or time. */
export interface ExecutedTradeRow {
  id: string;
  /** trades.updated_at (epoch ms): every write of a trade sets it (db/queries/trades.ts). */
  updatedAt: number;
  fill: ExecutedFill | null;
}

/**
 * What identifies the set of executed fills: how many, the newest updated_at and two sums
 * of updated_at modulo two primes. A fill added, removed, or written again (its updated_at
 * moves) changes it; two sums make a coincidence need a move by a multiple of ~10^12 ms.
 */
export interface FillsFingerprint {
  count: number;
  maxUpdatedAt: number;
  sumA: number;
  sumB: number;
}

const EXECUTED = ["executed", "completed"];

const MOD_A = 1_000_003;
const MOD_B = 999_983;

export const EMPTY_FINGERPRINT: FillsFingerprint = { count: 0, maxUpdatedAt: 0, sumA: 0, sumB: 0 };

/** `base` plus the given rows (what the fingerprint becomes when they are added). */
export function addToFingerprint(base: FillsFingerprint, rows: readonly { updatedAt: number }[]): FillsFingerprint {
  let { count, maxUpdatedAt, sumA, sumB } = base;
  for (const row of rows) {
    count++;
    if (row.updatedAt > maxUpdatedAt) maxUpdatedAt = row.updatedAt;
    sumA += row.updatedAt % MOD_A;
    sumB += row.updatedAt % MOD_B;
  }
  return { count, maxUpdatedAt, sumA, sumB };
}

export const sameFingerprint = (a: FillsFingerprint, b: FillsFingerprint) =>
  a.count === b.count && a.maxUpdatedAt === b.maxUpdatedAt && a.sumA === b.sumA && a.sumB === b.sumB;

/** One aggregate over the executed trades (covered by the index trades_status_updated_at_idx). */
export async function executedFillsFingerprint(db: Db): Promise<FillsFingerprint> {
  const updated = sql.ref("updated_at");
  const row = await db
    .selectFrom("trades")
    .select([
      sql<number | string>`count(*)`.as("n"),
      sql<number | string | null>`max(${updated})`.as("max_updated"),
      sql<number | string | null>`sum(${updated} % ${sql.lit(MOD_A)})`.as("sum_a"),
      sql<number | string | null>`sum(${updated} % ${sql.lit(MOD_B)})`.as("sum_b"),
    ])
    .where("status", "in", EXECUTED)
    .executeTakeFirst();
  return row ? toFingerprint(row.n, row.max_updated, row.sum_a, row.sum_b) : EMPTY_FINGERPRINT;
}

type Aggregate = number | string | null | undefined;

/** The fingerprint from the aggregate's columns (drivers return numbers or strings; an empty sum is null). */
const toFingerprint = (n: Aggregate, maxUpdated: Aggregate, sumA: Aggregate, sumB: Aggregate): FillsFingerprint => ({
  count: Number(n ?? 0),
  maxUpdatedAt: Number(maxUpdated ?? 0),
  sumA: Number(sumA ?? 0),
  sumB: Number(sumB ?? 0),
});

/** The columns a fill is read with, wherever the ledger reads fills. */
const FILL_COLUMNS = [
  "id",
  "symbol",
  "side",
  "executed_quantity",
  "executed_price",
  "fee",
  "executed_at",
  "leverage",
  "updated_at",
] as const;

/** Every executed trade (status executed or completed), in execution order (executed_at, then id). */
export async function listExecutedTradeRows(db: Db): Promise<ExecutedTradeRow[]> {
  const rows = await db
    .selectFrom("trades")
    .select(FILL_COLUMNS)
    .where("status", "in", EXECUTED)
    .orderBy("executed_at", "asc")
    .orderBy("id", "asc")
    .execute();
  return rows.map((row) => toTradeRow(row as RawTradeRow));
}

interface RawTradeRow {
  id: string;
  symbol: string;
  side: string;
  executed_quantity: string | number | null;
  executed_price: string | number | null;
  fee: string | number | null;
  executed_at: number | string | null;
  leverage: number | string | null;
  updated_at: number | string;
}

function toTradeRow(row: RawTradeRow): ExecutedTradeRow {
  return {
    id: row.id,
    updatedAt: Number(row.updated_at),
    fill:
      row.executed_at == null || row.executed_price == null
        ? null
        : {
            id: row.id,
            symbol: row.symbol,
            side: row.side === "sell" ? "sell" : "buy",
            quantity: normalizeDecimal(row.executed_quantity) ?? "0",
            price: normalizeDecimal(row.executed_price)!,
            fee: normalizeDecimal(row.fee) ?? "0",
            executedAt: Number(row.executed_at),
            leverage: row.leverage == null ? null : Number(row.leverage),
          },
  };
}

/**
 * The ids of the executed trades written at or after `updatedSince` AND the
 * fingerprint of all executed trades, read by ONE statement, so both describe the same
 * snapshot (a single SELECT reads one consistent view on SQLite and on InnoDB): a trade
 * committed meanwhile is either in both or in neither. The cache reads the rows it has not
 * counted yet with listExecutedTradeRowsByIds: under T5's 100 fills/s the look-back holds
 * ~200 trades, and reading and converting all their columns on every request was a tenth of
 * the dashboard's statistics cost (docs/benchmarks.md).
 */
export async function readExecutedSince(
  db: Db,
  updatedSince: number,
): Promise<{ recentIds: string[]; fingerprint: FillsFingerprint }> {
  const statuses = sql.join(EXECUTED.map((s) => sql.lit(s)));
  const result = await sql<{
    k: number | string;
    id: string | null;
    updated_at: number | string | null;
    n: number | string | null;
    sum_a: number | string | null;
    sum_b: number | string | null;
  }>`
    select 0 as k, id, updated_at, 0 as n, 0 as sum_a, 0 as sum_b
      from trades where status in (${statuses}) and updated_at >= ${updatedSince}
    union all
    select 1, null, max(updated_at), count(*), sum(updated_at % ${sql.lit(MOD_A)}), sum(updated_at % ${sql.lit(MOD_B)})
      from trades where status in (${statuses})`.execute(db);
  const recentIds: string[] = [];
  let fingerprint = EMPTY_FINGERPRINT;
  for (const row of result.rows) {
    if (Number(row.k) === 1) fingerprint = toFingerprint(row.n, row.updated_at, row.sum_a, row.sum_b);
    else recentIds.push(row.id!);
  }
  return { recentIds, fingerprint };
}

/** Bound on one statement's id list (both databases take far more; this keeps statements small). */
const IDS_PER_READ = 500;

/**
 * The executed trades among `ids` (status executed or completed), whatever their order. An id
 * whose trade is gone or no longer executed is simply absent; no ids, no statement.
 */
export async function listExecutedTradeRowsByIds(db: Db, ids: readonly string[]): Promise<ExecutedTradeRow[]> {
  const rows: ExecutedTradeRow[] = [];
  for (let at = 0; at < ids.length; at += IDS_PER_READ) {
    // By primary key alone: with the status in the WHERE clause too, SQLite's planner may
    // scan the status index over every executed trade instead (0.55 ms against 0.05 ms).
    const found = await db
      .selectFrom("trades")
      .select([...FILL_COLUMNS, "status"])
      .where("id", "in", ids.slice(at, at + IDS_PER_READ))
      .execute();
    for (const row of found) if (EXECUTED.includes(row.status)) rows.push(toTradeRow(row as RawTradeRow));
  }
  return rows;
}

/** Every executed fill (an executed trade with a price and a time), oldest first. */
export async function listExecutedFills(db: Db): Promise<ExecutedFill[]> {
  return (await listExecutedTradeRows(db)).flatMap((row) => (row.fill ? [row.fill] : []));
}

/** How many executed fills one symbol has, and the last in execution order (the worker's FIFO check). */
export async function symbolFillsHead(
  db: Db,
  symbol: string,
): Promise<{ count: number; lastId: string | null; lastAt: number | null }> {
  const base = db
    .selectFrom("trades")
    .where("symbol", "=", symbol)
    .where("status", "in", EXECUTED)
    .where("executed_at", "is not", null)
    .where("executed_price", "is not", null);
  // The newest fill: its time from a backward walk of the index that stops at the first row
  // (`executed_at desc` alone), then the greatest id at that time. Ordering by (executed_at,
  // id) in one go made MariaDB sort every fill of the symbol (id follows status and price in
  // the index): 3.8 ms per fill at 4,000 fills, inside the booking's lock. (As a subquery,
  // MariaDB examined every fill of the symbol again.)
  const [counted, newest] = await Promise.all([
    base.select(sql<number | string>`count(*)`.as("n")).executeTakeFirst(),
    base.select("executed_at").orderBy("executed_at", "desc").limit(1).executeTakeFirst(),
  ]);
  const last =
    newest?.executed_at == null
      ? undefined
      : await base
          .select(["id", "executed_at"])
          .where("executed_at", "=", newest.executed_at)
          .orderBy("id", "desc")
          .limit(1)
          .executeTakeFirst();
  return {
    count: Number(counted?.n ?? 0),
    lastId: last?.id ?? null,
    lastAt: last?.executed_at == null ? null : Number(last.executed_at),
  };
}

/** One symbol's executed fills in execution order; with `after`, only those after that fill. */
export async function listSymbolFills(
  db: Db,
  symbol: string,
  after?: { executedAt: number; id: string },
): Promise<ExecutedFill[]> {
  let query = db.selectFrom("trades").select(FILL_COLUMNS).where("symbol", "=", symbol).where("status", "in", EXECUTED);
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb("executed_at", ">", after.executedAt),
        eb.and([eb("executed_at", "=", after.executedAt), eb("id", ">", after.id)]),
      ]),
    );
  }
  const rows = await query.orderBy("executed_at", "asc").orderBy("id", "asc").execute();
  return rows.flatMap((row) => toTradeRow(row as RawTradeRow).fill ?? []);
}
