// The job table: a durable queue that several workers share.
// - claim: MySQL/MariaDB `SELECT ... FOR UPDATE SKIP LOCKED` then mark; SQLite one atomic
//   `UPDATE ... WHERE id IN (SELECT ...) RETURNING *` (a single statement is a write
//   transaction of its own, so two processes never claim the same row);
// - every claim takes a lease (locked_by, locked_until) that the runner renews; a job whose
//   worker died (lease expired, or heartbeat stale or stopped) is handed out again by
//   recoverExpiredLeases;
// - failures retry with capped exponential back-off until max_attempts, then `failed`.
import { sql } from "kysely";
import type { JobRow } from "../schema.ts";
import { type Db, isMysql, nowMs, parseJson, transactionWithLockRetry } from "./util.ts";
import { WORKER_DEAD_AFTER_MS } from "./worker-heartbeats.ts";

export const JOB_STATES = ["created", "retry", "active", "completed", "cancelled", "failed"] as const;
export type JobState = (typeof JOB_STATES)[number];

export interface Job<P = unknown> {
  id: number;
  task: string;
  payload: P;
  status: JobState;
  priority: number;
  attempts: number;
  maxAttempts: number;
  runAt: number;
  lockedBy: string | null;
  lockedUntil: number | null;
  lastError: string | null;
  jobKey: string | null;
  signalId: string | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

export function jobRowToJob(row: JobRow): Job {
  return {
    id: Number(row.id),
    task: row.task,
    payload: parseJson(row.payload, null),
    status: row.status as JobState,
    priority: Number(row.priority),
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    runAt: Number(row.run_at),
    lockedBy: row.locked_by,
    lockedUntil: row.locked_until == null ? null : Number(row.locked_until),
    lastError: row.last_error,
    jobKey: row.job_key,
    signalId: row.signal_id,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    finishedAt: row.finished_at == null ? null : Number(row.finished_at),
  };
}

export interface NewJob {
  task: string;
  payload: unknown;
  /** Deduplicates: a second job with the same key is not created. */
  jobKey?: string | null;
  signalId?: string | null;
  runAt?: number;
  priority?: number;
  maxAttempts?: number;
}

/** Inserts a job (call inside the transaction that creates what it works on). */
function jobValues(job: NewJob & { cancelledBecause?: string | null }, now: number) {
  const cancelled = job.cancelledBecause ?? null;
  return {
    task: job.task,
    payload: JSON.stringify(job.payload ?? null),
    status: cancelled ? "cancelled" : "created",
    priority: job.priority ?? 0,
    attempts: 0,
    max_attempts: job.maxAttempts ?? 8,
    run_at: job.runAt ?? now,
    job_key: job.jobKey ?? null,
    signal_id: job.signalId ?? null,
    last_error: cancelled ? cancelled.slice(0, 4000) : null,
    finished_at: cancelled ? now : null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * Inserts new jobs in one statement, without reading their ids back (for keys known to be
 * new, such as a just-created signal's). `cancelledBecause` stores a job that must not run
 * (emergency stop, auto trading off) directly as cancelled, with the reason.
 */
export async function insertJobs(db: Db, jobs: (NewJob & { cancelledBecause?: string | null })[]): Promise<void> {
  if (jobs.length === 0) return;
  const now = nowMs();
  await db
    .insertInto("jobs")
    .values(jobs.map((job) => jobValues(job, now)))
    .execute();
}

export async function enqueueJob(db: Db, job: NewJob): Promise<{ id: number; created: boolean }> {
  const now = nowMs();
  const values = jobValues(job, now);
  if (job.jobKey) {
    const result = await db.insertInto("jobs").ignore().values(values).executeTakeFirst();
    const created = Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    const row = await db.selectFrom("jobs").select("id").where("job_key", "=", job.jobKey).executeTakeFirstOrThrow();
    return { id: Number(row.id), created };
  }
  const result = await db.insertInto("jobs").values(values).executeTakeFirstOrThrow();
  let id = Number(result.insertId ?? 0);
  if (!id) {
    const row = await db
      .selectFrom("jobs")
      .select((eb) => eb.fn.max("id").as("id"))
      .executeTakeFirstOrThrow();
    id = Number(row.id);
  }
  return { id, created: true };
}

export interface ClaimOptions {
  workerId: string;
  limit?: number;
  leaseMs?: number;
  tasks?: string[];
  /** Task kinds this claim leaves to another runner (the notification queue, decision 030). */
  excludeTasks?: string[];
  now?: number;
}

/** Claims up to `limit` runnable jobs for this worker, oldest first (priority first). */
export async function claimJobs(db: Db, options: ClaimOptions): Promise<Job[]> {
  const now = options.now ?? nowMs();
  const limit = options.limit ?? 1;
  const lockedUntil = now + (options.leaseMs ?? 15_000);
  const runnable = (qb: Db) => {
    let query = qb
      .selectFrom("jobs")
      .select("id")
      .where("status", "in", ["created", "retry"])
      .where("run_at", "<=", now);
    if (options.tasks?.length) query = query.where("task", "in", options.tasks);
    if (options.excludeTasks?.length) query = query.where("task", "not in", options.excludeTasks);
    // A job holding its symbol's order slot (an order it sent, outcome not yet booked) goes
    // first: every other order on that symbol waits for it (db/queries/order-slots.ts).
    const holdsSlot = sql<number>`case when exists (select 1 from order_slots s where s.job_id = jobs.id) then 0 else 1 end`;
    return query
      .orderBy(holdsSlot)
      .orderBy("priority", "desc")
      .orderBy("run_at", "asc")
      .orderBy("id", "asc")
      .limit(limit);
  };
  const claim = {
    status: "active",
    locked_by: options.workerId,
    locked_until: lockedUntil,
    attempts: sql<number>`attempts + 1`,
    updated_at: now,
  };

  if (isMysql(db)) {
    // Workers claiming at once while jobs are inserted can make InnoDB pick one claim as a
    // deadlock victim (gap locks on the index): it was rolled back, so it is simply retried.
    return transactionWithLockRetry(db, async (trx) => {
      const rows = await runnable(trx).forUpdate().skipLocked().execute();
      if (rows.length === 0) return [];
      const ids = rows.map((r) => Number(r.id));
      await trx.updateTable("jobs").set(claim).where("id", "in", ids).execute();
      const claimed = await trx.selectFrom("jobs").selectAll().where("id", "in", ids).orderBy("id").execute();
      return claimed.map(jobRowToJob);
    });
  }
  // SQLite has one writer for all processes: look before taking the write lock, so an idle
  // worker polling every few ms never blocks the web process's webhook commits.
  const waiting = await runnable(db).limit(1).executeTakeFirst();
  if (!waiting) return [];
  const claimed = await db
    .updateTable("jobs")
    .set(claim)
    .where("id", "in", runnable(db))
    .where("status", "in", ["created", "retry"])
    .returningAll()
    .execute();
  return claimed.map(jobRowToJob).sort((a, b) => a.id - b.id);
}

/** Extends the leases of jobs this worker still holds; returns how many were renewed. */
export async function renewLeases(db: Db, workerId: string, ids: number[], leaseMs = 15_000): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .updateTable("jobs")
    .set({ locked_until: nowMs() + leaseMs })
    .where("id", "in", ids)
    .where("status", "=", "active")
    .where("locked_by", "=", workerId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows ?? 0);
}

/** Marks a job done. False when the lease was lost (another worker may own it now). */
export async function completeJob(db: Db, id: number, workerId: string): Promise<boolean> {
  const now = nowMs();
  const result = await db
    .updateTable("jobs")
    .set({
      status: "completed",
      locked_by: null,
      locked_until: null,
      finished_at: now,
      updated_at: now,
      last_error: null,
    })
    .where("id", "=", id)
    .where("status", "=", "active")
    .where("locked_by", "=", workerId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows ?? 0) === 1;
}

/** Back-off before retry N (1-based): 1 s, 2 s, 4 s ... capped at 5 minutes. */
export function retryDelayMs(attempts: number): number {
  return Math.min(1000 * 2 ** Math.max(0, attempts - 1), 300_000);
}

/**
 * Records a failure. A retryable error with attempts left goes back to `retry` after the
 * back-off; otherwise the job ends `failed`. Returns the resulting state, or null when the
 * lease was lost.
 */
export async function failJob(
  db: Db,
  id: number,
  workerId: string,
  error: string,
  options: {
    retryable?: boolean;
    /** The back-off never exceeds this (an order whose outcome is unknown is asked for soon). */
    maxDelayMs?: number;
    /** The attempt is not counted: the job waited its turn (a busy order slot), nothing was tried. */
    refundAttempt?: boolean;
  } = {},
): Promise<JobState | null> {
  const now = nowMs();
  const row = await db.selectFrom("jobs").select(["attempts", "max_attempts"]).where("id", "=", id).executeTakeFirst();
  if (!row) return null;
  const attempts = Number(row.attempts) - (options.refundAttempt ? 1 : 0);
  const retry = options.retryable !== false && (options.refundAttempt || attempts < Number(row.max_attempts));
  const status: JobState = retry ? "retry" : "failed";
  const result = await db
    .updateTable("jobs")
    .set({
      status,
      locked_by: null,
      locked_until: null,
      last_error: error.slice(0, 4000),
      ...(options.refundAttempt ? { attempts } : {}),
      run_at: retry
        ? now + Math.min(retryDelayMs(Math.max(1, attempts)), options.maxDelayMs ?? Number.POSITIVE_INFINITY)
        : sql<number>`run_at`,
      finished_at: retry ? null : now,
      updated_at: now,
    })
    .where("id", "=", id)
    .where("status", "=", "active")
    .where("locked_by", "=", workerId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows ?? 0) === 1 ? status : null;
}

/** Ends a job without running it (or without running it again), with the reason. */
export async function cancelJob(db: Db, id: number, reason: string, workerId?: string): Promise<boolean> {
  const now = nowMs();
  let query = db
    .updateTable("jobs")
    .set({
      status: "cancelled",
      locked_by: null,
      locked_until: null,
      last_error: reason.slice(0, 4000),
      finished_at: now,
      updated_at: now,
    })
    .where("id", "=", id);
  query = workerId
    ? query.where("status", "=", "active").where("locked_by", "=", workerId)
    : query.where("status", "in", ["created", "retry"]);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows ?? 0) === 1;
}

/**
 * Jobs whose worker died become runnable again, or `failed` when they already used every
 * attempt. A worker is dead when its lease expired (killed, frozen) or, sooner, when its
 * heartbeat says so: older than WORKER_DEAD_AFTER_MS, "stopped", or written by a newer
 * process under the same WORKER_ID (the job was claimed before that process started). A
 * worker without a heartbeat row is only judged by its lease. docs/operations.md, "Several
 * processes". Returns the affected ids.
 */
export async function recoverExpiredLeases(db: Db, now = nowMs()): Promise<{ retried: number[]; failed: number[] }> {
  const orphaned = (qb: Db) =>
    qb
      .selectFrom("jobs")
      .select(["jobs.id", "jobs.attempts", "jobs.max_attempts"])
      .where("jobs.status", "=", "active")
      .where((eb) =>
        eb.or([
          eb("jobs.locked_until", "<", now),
          eb.exists(
            eb
              .selectFrom("worker_heartbeats as h")
              .select("h.worker_id")
              .whereRef("h.worker_id", "=", "jobs.locked_by")
              .where((hb) =>
                hb.or([
                  hb("h.status", "=", "stopped"),
                  hb("h.last_beat_at", "<", now - WORKER_DEAD_AFTER_MS),
                  hb("h.started_at", ">", hb.ref("jobs.updated_at")),
                ]),
              ),
          ),
        ]),
      )
      .limit(500);
  // Runners call this every second: look first (active jobs are few, and each is checked by
  // the heartbeats' primary key), so the usual answer takes no lock at all (SQLite has one
  // writer for all processes; BEGIN IMMEDIATE would queue behind webhook commits).
  if (!(await orphaned(db).limit(1).executeTakeFirst())) return { retried: [], failed: [] };
  // Workers recover at once: the second skips what the first locked (MySQL), or finds the
  // jobs no longer active (SQLite); a deadlock victim is rolled back and retried.
  return transactionWithLockRetry(db, async (trx) => {
    let query = orphaned(trx);
    // The subquery's heartbeat rows are read, not locked (only the outer table's rows are).
    if (isMysql(trx)) query = query.forUpdate().skipLocked();
    const rows = await query.execute();
    const retried: number[] = [];
    const failed: number[] = [];
    for (const row of rows) (Number(row.attempts) >= Number(row.max_attempts) ? failed : retried).push(Number(row.id));
    if (retried.length) {
      await trx
        .updateTable("jobs")
        .set({
          status: "retry",
          locked_by: null,
          locked_until: null,
          run_at: Math.min(now, nowMs()),
          updated_at: now,
          last_error: "The worker stopped (lease expired or heartbeat lost)",
        })
        .where("id", "in", retried)
        .where("status", "=", "active")
        .execute();
    }
    if (failed.length) {
      await trx
        .updateTable("jobs")
        .set({
          status: "failed",
          locked_by: null,
          locked_until: null,
          finished_at: now,
          updated_at: now,
          last_error: "The worker stopped on the last attempt",
        })
        .where("id", "in", failed)
        .where("status", "=", "active")
        .execute();
    }
    return { retried, failed };
  });
}

export async function getJob(db: Db, id: number): Promise<Job | null> {
  const row = await db.selectFrom("jobs").selectAll().where("id", "=", id).executeTakeFirst();
  return row ? jobRowToJob(row) : null;
}

export async function countJobsByStatus(db: Db): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom("jobs")
    .select(["status", (eb) => eb.fn.countAll<number>().as("n")])
    .groupBy("status")
    .execute();
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/** Deletes finished jobs older than the cutoff, so the claim index stays small. */
export async function pruneFinishedJobs(db: Db, olderThanMs: number): Promise<number> {
  const result = await db
    .deleteFrom("jobs")
    .where("status", "in", ["completed", "cancelled"])
    .where("finished_at", "<", olderThanMs)
    .executeTakeFirst();
  return Number(result.numDeletedRows ?? 0);
}
