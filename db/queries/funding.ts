// Funding payments the app booked on its positions (funding_payments; paper:
// worker/monitor/paper-margin.ts, docs/decisions/024-paper-margin.md). The P&L totals add
// them to the trades' realized P&L (docs/pnl.md): sums are exact decimal additions in code
// (SQLite stores the amounts as text), over a per-database cache that one aggregate query
// checks (rows are only ever inserted, or all deleted by a statistics reset).
import { sql } from "kysely";
import { D } from "../../app/core/decimal.ts";
import { getSetting, setSetting } from "./settings.ts";
import { positionOfStrategy } from "./strategies.ts";
import type { Db } from "./util.ts";

/**
 * When the statistics were last reset (epoch ms): the funding charged up to then belongs to
 * the positions the reset deleted, so it is never booked afterwards (docs/pnl.md, issue 22).
 */
const FUNDING_RESET_SETTING = "funding_reset_at";

/** Records a statistics reset (call inside its transaction, which deletes funding_payments). */
export async function markFundingReset(db: Db, at: number): Promise<void> {
  await setSetting(db, FUNDING_RESET_SETTING, at);
}

/** The last statistics reset (epoch ms), 0 when there was none: funding charged until then is never booked. */
export async function fundingResetAt(db: Db): Promise<number> {
  return Number((await getSetting<number>(db, FUNDING_RESET_SETTING)) ?? 0);
}

export interface FundingAmount {
  amount: string;
  /** When it was charged (epoch ms). */
  at: number;
}

interface Cached {
  count: number;
  maxAt: number;
  rows: FundingAmount[];
}

const caches = new WeakMap<object, Cached>();

/** Every booked funding amount, oldest first (cached; one aggregate query when unchanged). */
export async function listFundingAmounts(db: Db): Promise<FundingAmount[]> {
  const head = await db
    .selectFrom("funding_payments")
    .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.max("created_at").as("maxAt")])
    .executeTakeFirst();
  const count = Number(head?.n ?? 0);
  const maxAt = Number(head?.maxAt ?? 0);
  const cached = caches.get(db);
  if (cached && cached.count === count && cached.maxAt === maxAt) return cached.rows;
  if (count === 0) {
    caches.set(db, { count, maxAt, rows: [] });
    return [];
  }
  const rows = (
    await db.selectFrom("funding_payments").select(["amount", "created_at"]).orderBy("created_at").execute()
  ).map((r) => ({
    amount: D(r.amount).toString(),
    at: Number(r.created_at),
  }));
  caches.set(db, { count, maxAt, rows });
  return rows;
}

/** Σ funding charged at or after `since` (epoch ms; 0 = all time), exact. */
export function fundingSince(rows: readonly FundingAmount[], since = 0): string {
  let total = D(0);
  for (const r of rows) if (r.at >= since) total = total.plus(r.amount);
  return total.toString();
}

/**
 * Σ the funding booked for a Trade History filter (exact): of a symbol (exact, or a
 * case-insensitive substring) and of the positions of a strategy (decision 027).
 */
export async function fundingFor(
  db: Db,
  filter: { symbol?: string; search?: string; strategy?: string },
): Promise<{ total: string; count: number }> {
  let query = db.selectFrom("funding_payments").select("amount");
  if (filter.symbol) query = query.where("symbol", "=", filter.symbol);
  const search = filter.search?.trim();
  if (search)
    query = query.where(
      sql<boolean>`lower(${sql.ref("symbol")}) like ${`%${search.toLowerCase().replace(/[!%_]/g, "!$&")}%`} escape '!'`,
    );
  const strategy = filter.strategy;
  if (strategy)
    query = query.where(
      "position_id",
      "in",
      db
        .selectFrom("positions")
        .select("positions.id")
        .where((eb) => positionOfStrategy(eb, strategy)),
    );
  const rows = await query.execute();
  return { total: rows.reduce((sum, r) => sum.plus(r.amount), D(0)).toString(), count: rows.length };
}
