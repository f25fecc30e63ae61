// Group commit for the webhook: every write the webhook makes (a signal with its job, log
// lines and live events, or just a log line for a rejected or duplicate call) joins a
// queue, and whatever has queued by the time the previous commit finished is written in
// ONE transaction: one lock, one fsync, a handful of multi-row statements. An idle server
// commits each request at once (no waiting for company); a busy one commits them in
// batches, so throughput no longer stops at one fsync per webhook.
//
// All-or-nothing per request stays true: a signal and its job are in the same transaction.
// If a batch fails, each of its requests is retried alone, so one bad row cannot fail the
// others; a request whose own commit fails gets the error (the webhook answers 503).
import type { Kysely } from "kysely";
import { type NewActivityLog, recordActivities } from "#db/queries/activity-logs.ts";
import type { NewEvent } from "#db/queries/events.ts";
import { type NewJob, insertJobs } from "#db/queries/jobs.ts";
import { type NewSignal, insertSignals } from "#db/queries/signals.ts";
import { type NewTimeline, insertTimelines } from "#db/queries/signal-timeline.ts";
import type { DB } from "#db/schema.ts";
import { pokeWorkers } from "./worker-wake.server.ts";
import type { NotificationEvent } from "#app/core/notifications/events.ts";
import { enqueueNotification, listChannelRows } from "#db/queries/notifications.ts";

export interface SignalWrite {
  /** A new signal: stored unless its dedupe key exists. */
  signal?: NewSignal;
  /** Stored with a new signal (not for a duplicate). */
  job?: NewJob & { cancelledBecause?: string | null };
  /** Written with a new signal, or always when there is no signal. */
  logs?: NewActivityLog[];
  events?: NewEvent[];
  /** Written instead of logs/events when the signal turns out to be a duplicate; data.signalId is filled in. */
  duplicateLogs?: NewActivityLog[];
  /** The new signal's first hops (issue 12): its latency timeline row, stamped committed as the transaction's last write. */
  timeline?: Omit<NewTimeline, "signalId">;
  /**
   * A notification decided here (a webhook refusal, issue 25): queued with the new signal in the
   * same transaction, to the channels that have its event on (nothing for a duplicate).
   */
  notification?: { kind: NotificationEvent; title: string; body: string };
}

export interface SignalWriteResult {
  /** The id of the signal already stored under the same dedupe key, else null. */
  duplicateOf: string | null;
}

export class OverloadedError extends Error {
  constructor() {
    super("Too many webhooks waiting to be stored");
  }
}

interface Pending {
  write: SignalWrite;
  resolve(result: SignalWriteResult): void;
  reject(error: unknown): void;
}

const MAX_BATCH = 256;
/** Beyond this many waiting writes a webhook is refused at once (503) instead of queued. */
const MAX_QUEUE = 4_000;

export class SignalWriter {
  private queue: Pending[] = [];
  private draining = false;

  constructor(private readonly db: Kysely<DB>) {}

  get waiting() {
    return this.queue.length;
  }

  write(write: SignalWrite): Promise<SignalWriteResult> {
    if (this.queue.length >= MAX_QUEUE) return Promise.reject(new OverloadedError());
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      if (!this.draining) {
        this.draining = true;
        // Let the requests already read in this turn of the event loop join the batch.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain() {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        await this.flush(batch);
      }
    } finally {
      this.draining = false;
    }
  }

  private async flush(batch: Pending[]) {
    let results: SignalWriteResult[];
    try {
      results = await this.commit(batch.map((p) => p.write));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      // Find the culprit: each request alone.
      for (const pending of batch) {
        try {
          const [result] = await this.commit([pending.write]);
          pending.resolve(result!);
        } catch (single) {
          pending.reject(single);
        }
      }
      return;
    }
    for (const [i, pending] of batch.entries()) pending.resolve(results[i]!);
  }

  private async commit(writes: SignalWrite[]): Promise<SignalWriteResult[]> {
    let runnableJobs = 0;
    let newSignals = 0;
    const results = await this.db.transaction().execute(async (trx) => {
      const signals = writes.flatMap((w) => (w.signal ? [w.signal] : []));
      const stored = await insertSignals(trx, signals);
      const logs: NewActivityLog[] = [];
      const events: NewEvent[] = [];
      const jobs: NonNullable<SignalWrite["job"]>[] = [];
      const timelines: NewTimeline[] = [];
      const notifications: { signalId: string; notification: NonNullable<SignalWrite["notification"]> }[] = [];
      const out: SignalWriteResult[] = [];
      for (const write of writes) {
        if (!write.signal) {
          logs.push(...(write.logs ?? []));
          events.push(...(write.events ?? []));
          out.push({ duplicateOf: null });
          continue;
        }
        const storedId = stored.get(write.signal.dedupeKey);
        if (!storedId) throw new Error(`Signal ${write.signal.id} was not stored`);
        if (storedId !== write.signal.id) {
          logs.push(
            ...(write.duplicateLogs ?? []).map((log) => ({ ...log, data: { ...log.data, signalId: storedId } })),
          );
          out.push({ duplicateOf: storedId });
          continue;
        }
        newSignals += 1;
        if (write.timeline) timelines.push({ ...write.timeline, signalId: storedId });
        if (write.job) {
          jobs.push(write.job);
          if (!write.job.cancelledBecause) runnableJobs += 1;
        }
        logs.push(...(write.logs ?? []));
        events.push(...(write.events ?? []));
        if (write.notification) notifications.push({ signalId: storedId, notification: write.notification });
        out.push({ duplicateOf: null });
      }
      await insertJobs(trx, jobs);
      if (notifications.length > 0) {
        const channels = (await listChannelRows(trx)).filter((c) => c.enabled);
        for (const { signalId, notification } of notifications) {
          const to = channels.filter((c) => c.events.includes(notification.kind)).map((c) => c.channel);
          if (
            await enqueueNotification(trx, {
              ...notification,
              dedupeKey: `signal:${signalId}:${notification.kind}`,
              channels: to,
            })
          )
            runnableJobs += to.length;
        }
      }
      if (newSignals > 0) events.push({ type: "dashboard_update", data: { reason: "signal" } });
      await recordActivities(trx, logs, events);
      await insertTimelines(trx, timelines);
      return out;
    });
    if (runnableJobs > 0) pokeWorkers(this.db);
    return results;
  }
}

const writers = new WeakMap<Kysely<DB>, SignalWriter>();

/** The one writer of this process for this database. */
export function signalWriterFor(db: Kysely<DB>): SignalWriter {
  let writer = writers.get(db);
  if (!writer) {
    writer = new SignalWriter(db);
    writers.set(db, writer);
  }
  return writer;
}
