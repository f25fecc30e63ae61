// Drift alarms (issue 11): the differences the reconciliation loop found between the
// exchange and the app's book. One open row per exchange and symbol.
import type { DriftFinding, DriftKind } from "../../app/core/reconcile/compare.ts";
import { type Db, newId, nowMs } from "./util.ts";

import type { Drift } from "#app/core/types/drifts.ts";

/** The domain types live in app/core (decision 042); callers may keep importing them from here. */
export type { Drift } from "#app/core/types/drifts.ts";

type Row = Awaited<ReturnType<typeof selectRows>>[number];
const selectRows = (db: Db) => db.selectFrom("drifts").selectAll().execute();

const side = (value: string | null) => (value === "long" || value === "short" ? value : null);
const iso = (ms: number | string | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

function toDrift(row: Row): Drift {
  return {
    id: row.id,
    exchange: row.exchange,
    symbol: row.symbol,
    kind: row.kind as DriftKind,
    appSide: side(row.app_side),
    appQuantity: row.app_quantity,
    exchangeSide: side(row.exchange_side),
    exchangeQuantity: row.exchange_quantity,
    exchangeEntry: row.exchange_entry,
    markPrice: row.mark_price,
    status: row.status as Drift["status"],
    resolution: row.resolution,
    resolvedBy: row.resolved_by,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
    resolvedAt: iso(row.resolved_at),
  };
}

/** Open drifts (of one exchange when given), by symbol. */
export async function listOpenDrifts(db: Db, exchange?: string): Promise<Drift[]> {
  let query = db.selectFrom("drifts").selectAll().where("status", "=", "open");
  if (exchange) query = query.where("exchange", "=", exchange);
  return (await query.orderBy("symbol").execute()).map(toDrift);
}

export async function getDrift(db: Db, id: string, options: { forUpdate?: boolean } = {}): Promise<Drift | null> {
  let query = db.selectFrom("drifts").selectAll().where("id", "=", id);
  if (options.forUpdate) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? toDrift(row) : null;
}

const findingColumns = (f: DriftFinding) => ({
  kind: f.kind,
  app_side: f.appSide,
  app_quantity: f.appQuantity,
  exchange_side: f.exchangeSide,
  exchange_quantity: f.exchangeQuantity,
  exchange_entry: f.exchangeEntry,
  mark_price: f.markPrice,
});

export async function insertDrift(db: Db, exchange: string, finding: DriftFinding): Promise<string> {
  const id = newId();
  const now = nowMs();
  await db
    .insertInto("drifts")
    .values({
      id,
      exchange,
      symbol: finding.symbol,
      ...findingColumns(finding),
      status: "open",
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

export async function updateDriftFinding(db: Db, id: string, finding: DriftFinding): Promise<void> {
  await db
    .updateTable("drifts")
    .set({ ...findingColumns(finding), updated_at: nowMs() })
    .where("id", "=", id)
    .execute();
}

/** Ends an open drift: `cleared` when the books agree again by themselves, `resolved` by a person. */
export async function closeDrift(
  db: Db,
  id: string,
  status: "resolved" | "cleared",
  resolution: string,
  by: string | null,
): Promise<boolean> {
  const now = nowMs();
  const result = await db
    .updateTable("drifts")
    .set({ status, resolution: resolution.slice(0, 200), resolved_by: by, resolved_at: now, updated_at: now })
    .where("id", "=", id)
    .where("status", "=", "open")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
