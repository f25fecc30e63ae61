// The latency timeline of every alert (issue 12; the maths in app/core/timeline.ts).
// - The web writes fired / received / committed with the signal, in the signal writer's own
//   transaction (one multi-row INSERT per batch: no extra round trip per webhook, no extra fsync).
// - The worker's hops never slow an order and never fail one: `stampSignal` only notes the
//   time in memory. The fill's transaction (bookOrder) writes the signal's noted hops with
//   its own (one UPDATE inside a transaction that commits anyway); whatever is still noted
//   after FLUSH_MS (a resting limit order, a refused order) is written by one background
//   upsert for all waiting signals. A stamp that cannot be written is dropped and logged:
//   the timeline is evidence, not state.
// - A hop keeps its first time (a retried job does not move "claimed").
import { sql } from "kysely";
import { type Hop, HOPS, type SignalTimeline, type TimelineStamps, toTimeline } from "../../app/core/timeline.ts";
import type { DB, SignalTimelineTable } from "../schema.ts";
import { type Db, isMysql } from "./util.ts";
import type { Kysely, Transaction } from "kysely";

const COLUMN: Record<Hop, keyof SignalTimelineTable & `${string}_at`> = {
  fired: "fired_at",
  received: "received_at",
  committed: "committed_at",
  claimed: "claimed_at",
  sent: "sent_at",
  acked: "acked_at",
  filled: "filled_at",
};

/** The worker's hops (the web's three are written with the signal). */
export type WorkerHop = "claimed" | "sent" | "acked" | "filled";
const WORKER_HOPS: WorkerHop[] = ["claimed", "sent", "acked", "filled"];

/** How long noted hops may wait for their fill's transaction before they are written alone. */
export const FLUSH_MS = 50;

export interface NewTimeline {
  signalId: string;
  firedAt: number | null;
  receivedAt: number | null;
}

/** Inserts the web's hops of new signals; committedAt is taken now, as the transaction's last write. */
export async function insertTimelines(db: Db | Transaction<DB>, rows: readonly NewTimeline[]): Promise<void> {
  if (rows.length === 0) return;
  const committedAt = Date.now();
  await db
    .insertInto("signal_timeline")
    .values(
      rows.map((r) => ({
        signal_id: r.signalId,
        fired_at: r.firedAt,
        received_at: r.receivedAt,
        committed_at: committedAt,
      })),
    )
    .execute();
}

type Noted = Partial<Record<WorkerHop, number>>;
interface Pending {
  db: Kysely<DB>;
  hops: Noted;
  /** When the last hop was noted: an order in flight keeps noting, so it waits for its fill's transaction. */
  lastNoted: number;
}

/** This process's noted hops, by signal id (ids are UUIDs: one map serves every database). */
const pending = new Map<string, Pending>();
let timer: ReturnType<typeof setTimeout> | null = null;
let flushing: Promise<void> | null = null;

function note(db: Kysely<DB>, signalId: string, hops: Noted): void {
  const entry = pending.get(signalId) ?? { db, hops: {}, lastNoted: 0 };
  for (const hop of WORKER_HOPS) if (hops[hop] != null && entry.hops[hop] == null) entry.hops[hop] = hops[hop];
  entry.lastNoted = Date.now();
  pending.set(signalId, entry);
  schedule(FLUSH_MS);
}

function schedule(delayMs: number): void {
  if (timer) return;
  timer = setTimeout(() => {
    timer = null;
    void flushSignalStamps({ quietFor: FLUSH_MS });
  }, delayMs);
  (timer as { unref?: () => void }).unref?.();
}

/**
 * Notes that a signal reached a hop (now, or `at`). Never throws and never waits for the
 * database, except inside a transaction (the fill's), where the signal's hops noted so far
 * are written with this one by one UPDATE. Null signal ids (manual orders, rules) are ignored.
 */
export function stampSignal(
  db: Kysely<DB> | Transaction<DB>,
  signalId: string | null | undefined,
  hop: WorkerHop,
  at = Date.now(),
): Promise<void> {
  if (!signalId) return Promise.resolve();
  try {
    if (!db.isTransaction) {
      note(db, signalId, { [hop]: at });
      return Promise.resolve();
    }
    const entry = pending.get(signalId);
    pending.delete(signalId);
    const hops: Noted = { ...entry?.hops };
    if (hops[hop] == null) hops[hop] = at;
    return writeInTransaction(db as Transaction<DB>, signalId, hops, entry?.db);
  } catch (error) {
    console.error(`[timeline] stamp ${hop} of ${signalId} failed: ${(error as Error).message}`);
    return Promise.resolve();
  }
}

async function writeInTransaction(
  trx: Transaction<DB>,
  signalId: string,
  hops: Noted,
  root: Kysely<DB> | undefined,
): Promise<void> {
  try {
    const set: Record<string, unknown> = {};
    for (const hop of WORKER_HOPS) {
      const at = hops[hop];
      if (at != null) set[COLUMN[hop]] = sql`coalesce(${sql.ref(COLUMN[hop])}, ${at})`;
    }
    // A plain UPDATE of the signal's own row: no insert, no gap lock, nothing to deadlock on.
    const result = await trx
      .updateTable("signal_timeline")
      .set(set)
      .where("signal_id", "=", signalId)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0 && root) note(root, signalId, hops); // no row yet: the flush upserts it
  } catch (error) {
    // MySQL rolled the whole transaction back on a deadlock: the caller must know (its other
    // statements would otherwise run outside it). Anything else only loses this stamp.
    if ((error as { errno?: number }).errno === 1213) throw error;
    console.error(`[timeline] stamps of ${signalId} not written: ${(error as Error).message}`);
  }
}

/**
 * Writes the noted hops (one upsert per database): all of them (at worker stop), or with
 * `quietFor` only the signals with no new hop for that long (the timer: a signal whose order
 * is still in flight keeps its hops for its fill's transaction, which writes them at once).
 */
export async function flushSignalStamps(options: { quietFor?: number } = {}): Promise<void> {
  while (flushing) await flushing;
  if (pending.size === 0) return;
  const now = Date.now();
  const quietFor = options.quietFor ?? 0;
  const batch = [...pending.entries()].filter(([, entry]) => now - entry.lastNoted >= quietFor);
  for (const [signalId] of batch) pending.delete(signalId);
  if (pending.size > 0) {
    const next = Math.min(...[...pending.values()].map((e) => e.lastNoted));
    schedule(Math.max(1, next + FLUSH_MS - now));
  }
  if (batch.length === 0) return;
  flushing = (async () => {
    const byDb = new Map<Kysely<DB>, { signalId: string; hops: Noted }[]>();
    for (const [signalId, entry] of batch) {
      const list = byDb.get(entry.db) ?? [];
      list.push({ signalId, hops: entry.hops });
      byDb.set(entry.db, list);
    }
    for (const [db, rows] of byDb) {
      try {
        await upsertStamps(db, rows);
      } catch (error) {
        console.error(`[timeline] ${rows.length} signal stamps not written: ${(error as Error).message}`);
      }
    }
  })();
  try {
    await flushing;
  } finally {
    flushing = null;
  }
}

async function upsertStamps(db: Kysely<DB>, rows: { signalId: string; hops: Noted }[]): Promise<void> {
  // Sorted by key: two workers' upserts lock rows in the same order.
  rows.sort((a, b) => (a.signalId < b.signalId ? -1 : a.signalId > b.signalId ? 1 : 0));
  const values = rows.map((r) => ({
    signal_id: r.signalId,
    claimed_at: r.hops.claimed ?? null,
    sent_at: r.hops.sent ?? null,
    acked_at: r.hops.acked ?? null,
    filled_at: r.hops.filled ?? null,
  }));
  const columns = WORKER_HOPS.map((hop) => COLUMN[hop]);
  if (isMysql(db)) {
    const set = Object.fromEntries(
      columns.map((c) => [c, sql`coalesce(${sql.ref(`signal_timeline.${c}`)}, values(${sql.ref(c)}))`]),
    );
    await db.insertInto("signal_timeline").values(values).onDuplicateKeyUpdate(set).execute();
  } else {
    await db
      .insertInto("signal_timeline")
      .values(values)
      .onConflict((oc) =>
        oc
          .column("signal_id")
          .doUpdateSet(
            Object.fromEntries(
              columns.map((c) => [c, sql`coalesce(${sql.ref(`signal_timeline.${c}`)}, ${sql.ref(`excluded.${c}`)})`]),
            ),
          ),
      )
      .execute();
  }
}

type TimelineRow = Pick<
  SignalTimelineTable,
  "signal_id" | "fired_at" | "received_at" | "committed_at" | "claimed_at" | "sent_at" | "acked_at" | "filled_at"
>;

const num = (v: unknown): number | null => (v == null ? null : Number(v));

export function rowToStamps(row: TimelineRow): TimelineStamps {
  return Object.fromEntries(HOPS.map((hop) => [hop, num(row[COLUMN[hop]])])) as TimelineStamps;
}

const SELECT = [
  "signal_id",
  "fired_at",
  "received_at",
  "committed_at",
  "claimed_at",
  "sent_at",
  "acked_at",
  "filled_at",
] as const;

/** A signal's timeline, or null when none was recorded (signals from before it existed). */
export async function getSignalTimeline(db: Db, signalId: string): Promise<SignalTimeline | null> {
  const row = await db
    .selectFrom("signal_timeline")
    .select(SELECT)
    .where("signal_id", "=", signalId)
    .executeTakeFirst();
  return row ? toTimeline(row.signal_id, rowToStamps(row)) : null;
}

/** The timelines of several signals (one query), by signal id. */
export async function getSignalTimelines(db: Db, signalIds: readonly string[]): Promise<Map<string, SignalTimeline>> {
  if (signalIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("signal_timeline")
    .select(SELECT)
    .where("signal_id", "in", [...new Set(signalIds)])
    .execute();
  return new Map(rows.map((row) => [row.signal_id, toTimeline(row.signal_id, rowToStamps(row))]));
}

/** The raw stamps (for tests and the bench). */
export async function getSignalStamps(db: Db, signalId: string): Promise<TimelineStamps | null> {
  const row = await db
    .selectFrom("signal_timeline")
    .select(SELECT)
    .where("signal_id", "=", signalId)
    .executeTakeFirst();
  return row ? rowToStamps(row) : null;
}

/** The stamps of the signals received since `since` (newest first, at most `limit`), each marked when it was a limit order. */
export async function listRecentStamps(
  db: Db,
  since: number,
  limit: number,
): Promise<{ stamps: TimelineStamps; limit: boolean }[]> {
  const rows = await db
    .selectFrom("signal_timeline as t")
    .leftJoin("signals as s", "s.id", "t.signal_id")
    .select([
      "t.signal_id",
      "t.fired_at",
      "t.received_at",
      "t.committed_at",
      "t.claimed_at",
      "t.sent_at",
      "t.acked_at",
      "t.filled_at",
      "s.order_type",
    ])
    .where("t.received_at", ">=", since)
    .orderBy("t.received_at", "desc")
    .limit(limit)
    .execute();
  return rows.map((row) => ({ stamps: rowToStamps(row), limit: row.order_type === "limit" }));
}

/** The signals with their timelines (one query): the dashboard's signals, GET /api/signals. */
export async function withTimelines<S extends { id: string }>(
  db: Db,
  signals: S[],
): Promise<(S & { timeline: SignalTimeline | null })[]> {
  const timelines = await getSignalTimelines(
    db,
    signals.map((s) => s.id),
  );
  return signals.map((s) => ({ ...s, timeline: timelines.get(s.id) ?? null }));
}
