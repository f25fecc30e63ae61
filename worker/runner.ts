// The job runner: claims jobs (several at a time), runs each task, renews leases while
// they run, completes or fails them with back-off, and recovers jobs whose worker died.
import type { Kysely } from "kysely";
import { AuthError, isRetryable } from "../app/core/exchange/errors.ts";
import type { ExchangeAdapter } from "../app/core/exchange/types.ts";
import { TASK_PAYLOADS } from "../app/core/schemas/job-payloads.ts";
import { recordActivity } from "../db/queries/activity-logs.ts";
import { type Job, claimJobs, completeJob, failJob, recoverExpiredLeases, renewLeases } from "../db/queries/jobs.ts";
import { SlotBusyError, releaseOrderSlot } from "../db/queries/order-slots.ts";
import { getSignal, updateSignalStatus } from "../db/queries/signals.ts";
import { flushSignalStamps, stampSignal } from "../db/queries/signal-timeline.ts";
import { type Trade, getTradeByJob } from "../db/queries/trades.ts";
import type { DB } from "../db/schema.ts";
import { PermanentFailure, failTrade, settleUnknownTrade } from "./execution.ts";
import { withdrawStopFor } from "./monitor/exchange-stops.ts";
import { FINAL_FAILURE_LEVEL, TASKS, isTaskName } from "./tasks/index.ts";

const RECOVERY_MS = 1_000;

/** The longest wait before a job whose order may be on the exchange asks for it again. */
export const UNKNOWN_OUTCOME_RETRY_MS = 3_000;
/** How soon a job that found its symbol's order slot busy is run again. */
export const SLOT_BUSY_RETRY_MS = 1_000;

export interface RunnerOptions {
  db: Kysely<DB>;
  exchange: ExchangeAdapter;
  workerId: string;
  concurrency?: number;
  pollMs?: number;
  leaseMs?: number;
  /** Only these task kinds (a runner of its own for them), or every kind but `excludeTasks`. */
  tasks?: string[];
  excludeTasks?: string[];
  /** Test hook: called after a job is claimed, before its task runs. */
  onClaim?: (job: Job) => Promise<void> | void;
}

export interface Runner {
  stop(): Promise<void>;
  /** New runnable jobs were committed: look now instead of at the next poll. */
  poke(): void;
  readonly active: number;
}

export function startRunner(options: RunnerOptions): Runner {
  const { db, workerId } = options;
  const concurrency = options.concurrency ?? 4;
  const pollMs = options.pollMs ?? 20;
  const leaseMs = options.leaseMs ?? 15_000;
  const active = new Map<number, Promise<void>>();
  let running = true;
  let wake: (() => void) | null = null;
  let poked = false;

  const runJob = async (job: Job) => {
    try {
      stampSignal(db, job.signalId, "claimed");
      await options.onClaim?.(job);
      if (!isTaskName(job.task)) {
        await failJob(db, job.id, workerId, `Unknown task ${job.task}`, { retryable: false });
        return;
      }
      const payload = TASK_PAYLOADS[job.task].safeParse(job.payload);
      if (!payload.success) {
        await failJob(db, job.id, workerId, `Invalid payload: ${payload.error.issues[0]?.message}`, {
          retryable: false,
        });
        return;
      }
      const ctx = {
        db,
        exchange: options.exchange,
        workerId,
        attempt: job.attempts,
        jobId: job.id,
        beforeSend: (trade: Trade) => withdrawStopFor(db, options.exchange, trade.symbol, trade),
      };
      await (TASKS[job.task] as (c: typeof ctx, p: unknown) => Promise<unknown>)(ctx, payload.data);
      await completeJob(db, job.id, workerId);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // Refusals are booked by the tasks themselves; what reaches here is either permanent
      // (bad job, wrong credentials) or an unknown outcome / outage worth retrying.
      const retryable = isRetryable(error) || !(error instanceof PermanentFailure || error instanceof AuthError);
      // A job whose order may be on the exchange (its trade written, not settled) is retried
      // soon: each retry asks the exchange for it first, so a fill is booked (and protected by
      // its stop) within seconds of the exchange answering again, not after minutes of back-off.
      const sent = retryable ? await getTradeByJob(db, job.id).catch(() => null) : null;
      const maxDelayMs = sent?.status === "pending" ? UNKNOWN_OUTCOME_RETRY_MS : undefined;
      // Waiting for a busy order slot sent nothing: not an attempt, and asked again soon.
      const waited = error instanceof SlotBusyError;
      const state = await failJob(
        db,
        job.id,
        workerId,
        message,
        waited ? { retryable: true, refundAttempt: true, maxDelayMs: SLOT_BUSY_RETRY_MS } : { retryable, maxDelayMs },
      ).catch(() => null);
      if (state === "failed") await onFinalFailure(db, options.exchange, job, message, retryable);
      else if (state === "retry" && !waited) {
        await recordActivity(db, {
          type: "system",
          level: "warning",
          message: `Job ${job.task} #${job.id} will retry (attempt ${job.attempts}): ${message}`,
        }).catch(() => undefined);
      }
    }
  };

  const loop = async () => {
    let lastRenewal = 0;
    let lastRecovery = 0;
    while (running) {
      const now = Date.now();
      if (now - lastRenewal > 5_000) {
        lastRenewal = now;
        await renewLeases(db, workerId, [...active.keys()], leaseMs).catch(() => 0);
      }
      // Every second: a dead worker's jobs run elsewhere within seconds, not after their lease
      // (docs/operations.md). Usually one read that finds nothing and locks nothing.
      if (now - lastRecovery > RECOVERY_MS) {
        lastRecovery = now;
        await recoverExpiredLeases(db).catch(() => null);
      }
      poked = false;
      const free = concurrency - active.size;
      let claimed: Job[] = [];
      if (free > 0) {
        claimed = await claimJobs(db, {
          workerId,
          limit: free,
          leaseMs,
          tasks: options.tasks,
          excludeTasks: options.excludeTasks,
        }).catch((error) => {
          console.error(`[worker] claim failed: ${(error as Error).message}`);
          return [];
        });
        for (const job of claimed) {
          const done = runJob(job).finally(() => {
            active.delete(job.id);
            wake?.();
          });
          active.set(job.id, done);
        }
      }
      if (claimed.length === 0 && !poked) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
    }
  };
  const looping = loop();

  return {
    get active() {
      return active.size;
    },
    poke() {
      poked = true;
      wake?.();
    },
    async stop() {
      running = false;
      wake?.();
      await looping;
      // Drain: let running tasks finish, keeping their leases (the loop that renewed them ended).
      const renewal = setInterval(
        () => void renewLeases(db, workerId, [...active.keys()], leaseMs).catch(() => 0),
        5_000,
      );
      try {
        await Promise.allSettled(active.values());
      } finally {
        clearInterval(renewal);
      }
      await flushSignalStamps();
    },
  };
}

/** A job that will not run again: its signal and trade say why. */
async function onFinalFailure(
  db: Kysely<DB>,
  exchange: ExchangeAdapter,
  job: Job,
  reason: string,
  outcomeUnknown: boolean,
) {
  const level = (isTaskName(job.task) && FINAL_FAILURE_LEVEL[job.task]) || "error";
  await recordActivity(db, {
    type: "system",
    level,
    message: `Job ${job.task} #${job.id} failed: ${reason}`,
    data: { jobId: job.id },
  }).catch(() => undefined);
  const trade = await getTradeByJob(db, job.id).catch(() => null);
  // Its order may be on the exchange: asked once more, then booked, failed (surely not sent) or unknown.
  // A refusal (permanent, credentials) sent nothing: failed. An unknown outcome may be on the
  // exchange: asked once more, then booked, failed (surely not sent) or `unknown` (issue 15).
  // The job is over: its order slot (kept through its unknown outcomes) is free for the next order.
  if (trade) await releaseOrderSlot(db, exchange.name, trade.symbol, `job:${job.id}`).catch(() => undefined);
  if (trade && trade.status === "pending") {
    if (outcomeUnknown) {
      const status = await settleUnknownTrade(
        db,
        exchange,
        trade,
        `gave up after ${job.attempts} attempts (${reason})`,
      ).catch(() => "unknown");
      if (status !== "failed") return; // booked, resting or unknown: its signal follows the trade
    } else await failTrade(db, trade, reason).catch(() => undefined);
  }
  const signalId = (job.payload as { signalId?: string } | null)?.signalId;
  if (signalId) {
    const signal = await getSignal(db, signalId).catch(() => null);
    if (signal?.status === "queued") await updateSignalStatus(db, signalId, "failed", reason).catch(() => undefined);
  }
}
