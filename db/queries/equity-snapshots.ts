// Equity snapshots (docs/decisions/031-performance-charts.md): what the price-leader worker
// records (worker/monitor/equity-snapshots.ts) and the Performance charts read
// (app/services/performance-charts.server.ts). Rows are only inserted, thinned by
// housekeeping, or all deleted by Reset Statistics, so readers keep them in a per-database
// cache that one aggregate query (count, newest id) checks, fetching only the new rows when
// nothing else changed.
import { D, normalizeDecimal } from "../../app/core/decimal.ts";
import { fundingSince, listFundingAmounts } from "./funding.ts";
import type { Db } from "./util.ts";

export interface EquitySnapshot {
  id: number;
  /** Epoch ms. */
  at: number;
  reason: string;
  realizedPnl: string;
  unrealizedPnl: string;
  balance: string | null;
  equity: string | null;
  currency: string | null;
  openPositions: number;
}

export type NewEquitySnapshot = Omit<EquitySnapshot, "id">;

export async function insertEquitySnapshot(db: Db, snapshot: NewEquitySnapshot): Promise<void> {
  await db
    .insertInto("equity_snapshots")
    .values({
      taken_at: snapshot.at,
      reason: snapshot.reason,
      realized_pnl: snapshot.realizedPnl,
      unrealized_pnl: snapshot.unrealizedPnl,
      balance: snapshot.balance,
      equity: snapshot.equity,
      currency: snapshot.currency,
      open_positions: snapshot.openPositions,
    })
    .execute();
}

/** The newest snapshot's time, or null when there is none. */
export async function latestEquitySnapshotAt(db: Db): Promise<number | null> {
  const row = await db
    .selectFrom("equity_snapshots")
    .select((eb) => eb.fn.max("taken_at").as("at"))
    .executeTakeFirst();
  return row?.at === null || row?.at === undefined ? null : Number(row.at);
}

type Row = {
  id: number | string;
  taken_at: number | string;
  reason: string;
  realized_pnl: string;
  unrealized_pnl: string;
  balance: string | null;
  equity: string | null;
  currency: string | null;
  open_positions: number | string;
};

const toSnapshot = (r: Row): EquitySnapshot => ({
  id: Number(r.id),
  at: Number(r.taken_at),
  reason: r.reason,
  realizedPnl: normalizeDecimal(r.realized_pnl)!,
  unrealizedPnl: normalizeDecimal(r.unrealized_pnl)!,
  balance: normalizeDecimal(r.balance),
  equity: normalizeDecimal(r.equity),
  currency: r.currency,
  openPositions: Number(r.open_positions),
});

interface Cached {
  count: number;
  maxId: number;
  rows: EquitySnapshot[];
}

const caches = new WeakMap<object, Cached>();

const byTime = (a: EquitySnapshot, b: EquitySnapshot) => a.at - b.at || a.id - b.id;

/** Every snapshot, oldest first (cached per database; one aggregate query when unchanged). */
export async function listEquitySnapshots(db: Db): Promise<readonly EquitySnapshot[]> {
  const head = await db
    .selectFrom("equity_snapshots")
    .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.max("id").as("maxId")])
    .executeTakeFirst();
  const count = Number(head?.n ?? 0);
  const maxId = Number(head?.maxId ?? 0);
  const cached = caches.get(db);
  if (cached && cached.count === count && cached.maxId === maxId) return cached.rows;
  if (count === 0) {
    caches.set(db, { count, maxId, rows: [] });
    return [];
  }
  if (cached && count > cached.count && maxId > cached.maxId) {
    // Only inserts since: the new rows, provided they account for the whole difference.
    const fresh = (await db.selectFrom("equity_snapshots").selectAll().where("id", ">", cached.maxId).execute()).map(
      toSnapshot,
    );
    if (cached.count + fresh.length === count) {
      const rows = [...cached.rows, ...fresh].sort(byTime);
      caches.set(db, { count, maxId, rows });
      return rows;
    }
  }
  const rows = (await db.selectFrom("equity_snapshots").selectAll().orderBy("taken_at").orderBy("id").execute()).map(
    toSnapshot,
  );
  caches.set(db, { count: rows.length, maxId: rows.reduce((m, r) => Math.max(m, r.id), 0), rows });
  return rows;
}

/**
 * Thins the snapshots taken in the `windowMs` before `before` to the last one of each UTC
 * hour (the charts of long ranges need no finer grain); returns how many were deleted.
 * Idempotent; run every few minutes, the window only ever holds a few days' rows.
 */
export async function thinEquitySnapshots(
  db: Db,
  before: number,
  windowMs = 3 * 86_400_000,
  batch = 5000,
): Promise<number> {
  const rows = await db
    .selectFrom("equity_snapshots")
    .select(["id", "taken_at"])
    .where("taken_at", "<", before)
    .where("taken_at", ">=", before - windowMs)
    .orderBy("taken_at")
    .orderBy("id")
    .limit(batch)
    .execute();
  const drop: number[] = [];
  for (let i = 0; i < rows.length - 1; i++) {
    // A row is kept when the next one is in another hour (the batch's last row: next run).
    if (Math.floor(Number(rows[i]!.taken_at) / 3_600_000) === Math.floor(Number(rows[i + 1]!.taken_at) / 3_600_000))
      drop.push(Number(rows[i]!.id));
  }
  let deleted = 0;
  for (let i = 0; i < drop.length; i += 500) {
    const r = await db
      .deleteFrom("equity_snapshots")
      .where("id", "in", drop.slice(i, i + 500))
      .executeTakeFirst();
    deleted += Number(r.numDeletedRows ?? 0);
  }
  return deleted;
}

/** Every snapshot (Reset Statistics, in its transaction). */
export async function deleteAllEquitySnapshots(db: Db): Promise<number> {
  const r = await db.deleteFrom("equity_snapshots").executeTakeFirst();
  return Number(r.numDeletedRows ?? 0);
}

/**
 * Realized P&L to date as booked: Σ trades.realized_pnl (each fill's FIFO matches net of
 * fees, booked by the worker: docs/pnl.md) + Σ funding — the ledger's all-time total, read
 * where the worker wrote it. Summed exactly in code (SQLite keeps the amounts as text).
 */
export async function bookedRealizedPnl(db: Db): Promise<string> {
  const [rows, funding] = await Promise.all([
    db
      .selectFrom("trades")
      .select("realized_pnl")
      .where("realized_pnl", "is not", null)
      .where("status", "in", ["executed", "completed"])
      .execute(),
    listFundingAmounts(db),
  ]);
  let total = D(0);
  for (const r of rows) total = total.plus(normalizeDecimal(r.realized_pnl) ?? "0");
  return total.plus(fundingSince(funding)).toString();
}
