// Signals received from TradingView (docs/spec/api.md#shapes Signal).
import { normalizeDecimal } from "../../app/core/decimal.ts";
import type { SignalRow } from "../schema.ts";
import { type Db, nowMs, parseJson, toBool, toIso } from "./util.ts";

import type { SignalStatus, Signal } from "#app/core/types/signals.ts";

/** The domain types live in app/core (decision 042); callers may keep importing them from here. */
export type { SignalStatus, Signal } from "#app/core/types/signals.ts";

export function signalRowToSignal(row: SignalRow): Signal {
  return {
    id: row.id,
    action: row.action === "sell" ? "sell" : "buy",
    symbol: row.symbol,
    orderType: row.order_type === "limit" ? "limit" : "market",
    price: normalizeDecimal(row.price),
    quantity: normalizeDecimal(row.quantity)!,
    payload: parseJson<Record<string, unknown>>(row.payload, {}),
    strategy: row.strategy,
    processed: toBool(row.processed),
    status: row.status as SignalStatus,
    statusReason: row.status_reason,
    signalTime: toIso(row.signal_time),
    createdAt: toIso(row.created_at)!,
    processedAt: toIso(row.processed_at),
    dedupeKey: row.dedupe_key ?? null,
    strategyId: row.strategy_id ?? null,
  };
}

/** A signal to store: the stored signal's fields, with its time as epoch ms and its dedupe key. */
export interface NewSignal
  extends Pick<Signal, "id" | "action" | "symbol" | "orderType" | "price" | "quantity" | "payload" | "strategy"> {
  signalTime: number | null;
  dedupeKey: string;
  status: SignalStatus;
  statusReason?: string | null;
  createdAt?: number;
  strategyId?: string | null;
}

function signalValues(signal: NewSignal) {
  const now = signal.createdAt ?? nowMs();
  return {
    id: signal.id,
    action: signal.action,
    symbol: signal.symbol,
    order_type: signal.orderType,
    price: signal.price,
    quantity: signal.quantity,
    payload: JSON.stringify(signal.payload),
    strategy: signal.strategy,
    signal_time: signal.signalTime,
    dedupe_key: signal.dedupeKey,
    processed: signal.status === "executed" ? 1 : 0,
    status: signal.status,
    status_reason: signal.statusReason ?? null,
    created_at: now,
    processed_at: signal.status === "queued" ? null : now,
    strategy_id: signal.strategyId ?? null,
  };
}

/** Inserts unless the dedupe key exists; returns false for a duplicate. */
export async function insertSignal(db: Db, signal: NewSignal): Promise<boolean> {
  const result = await db.insertInto("signals").ignore().values(signalValues(signal)).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/**
 * Inserts several signals in one statement, skipping any whose dedupe key exists (also
 * within the batch: the first wins). Returns, per dedupe key, the id of the signal stored
 * under it, so a caller knows which of its signals are new and which are duplicates of what.
 */
export async function insertSignals(db: Db, signals: NewSignal[]): Promise<Map<string, string>> {
  if (signals.length === 0) return new Map();
  await db.insertInto("signals").ignore().values(signals.map(signalValues)).execute();
  return signalIdsByDedupeKey(
    db,
    signals.map((s) => s.dedupeKey),
  );
}

async function signalIdsByDedupeKey(db: Db, keys: string[]): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map();
  const rows = await db
    .selectFrom("signals")
    .select(["id", "dedupe_key"])
    .where("dedupe_key", "in", [...new Set(keys)])
    .execute();
  return new Map(rows.map((r) => [r.dedupe_key as string, r.id]));
}

/** The signals stored under any of these dedupe keys (one query). */
export async function findSignalsByDedupeKeys(db: Db, keys: string[]): Promise<Signal[]> {
  if (keys.length === 0) return [];
  const rows = await db.selectFrom("signals").selectAll().where("dedupe_key", "in", keys).execute();
  return rows.map(signalRowToSignal);
}

export async function getSignal(db: Db, id: string): Promise<Signal | null> {
  const row = await db.selectFrom("signals").selectAll().where("id", "=", id).executeTakeFirst();
  return row ? signalRowToSignal(row) : null;
}

export async function listSignals(db: Db, options: { limit?: number } = {}): Promise<Signal[]> {
  const rows = await db
    .selectFrom("signals")
    .selectAll()
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(Math.min(Math.max(options.limit ?? 10, 1), 500))
    .execute();
  return rows.map(signalRowToSignal);
}

export async function updateSignalStatus(
  db: Db,
  id: string,
  status: SignalStatus,
  reason: string | null = null,
): Promise<void> {
  await db
    .updateTable("signals")
    .set({ status, status_reason: reason, processed: status === "executed" ? 1 : 0, processed_at: nowMs() })
    .where("id", "=", id)
    .execute();
}

export async function countSignals(db: Db, sinceMs = 0): Promise<number> {
  const row = await db
    .selectFrom("signals")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("created_at", ">=", sinceMs)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * The alerts the what-if replay plays again (docs/decisions/047-replay.md): received in
 * [from, to] (epoch ms), the ones the pipeline turned into orders (status executed), of one
 * strategy (`signalOfStrategy`'s ids: "default" = the global secret) or of all, oldest first.
 */
export async function listReplaySignals(
  db: Db,
  range: { from: number; to: number; strategy?: string | null },
): Promise<Signal[]> {
  let query = db
    .selectFrom("signals")
    .selectAll()
    .where("created_at", ">=", range.from)
    .where("created_at", "<=", range.to)
    .where("status", "=", "executed");
  const strategy = range.strategy;
  if (strategy)
    query = strategy === "default" ? query.where("strategy_id", "is", null) : query.where("strategy_id", "=", strategy);
  const rows = await query.orderBy("created_at").orderBy("id").execute();
  return rows.map(signalRowToSignal);
}
