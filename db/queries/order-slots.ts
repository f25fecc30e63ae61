// One order in flight per exchange and symbol (issue 15; migrations 2026_11_25_0400 and
// 2026_11_27_0100; docs/decisions/038-stop-lifecycle-and-order-slots.md). A slot is taken with
// one conditional UPDATE, created on first use with INSERT IGNORE; never inside a transaction
// held across the exchange call.
// Two kinds of holder:
// - a job (`job:<id>`, with job_id): the slot is the job's for as long as the job lives
//   (created, retry or active), whatever its lease says. An order the exchange never answered
//   keeps its slot through the job's retries (which look the order up first), and a dead
//   worker's job keeps it until another worker runs the job again: no other order on the
//   symbol can go out while that outcome is unknown (issue 21, defect 2). The job's end
//   (completed, failed, cancelled) frees it even if nobody gave it back.
// - the stop keeper (`stop:<positionId>`, no job): a short lease, renewed while its exchange
//   calls run (withOrderSlotLease), so a dead worker's slot frees itself within seconds.
import { sql } from "kysely";
import { TemporaryError } from "../../app/core/exchange/errors.ts";
import type { Db } from "./util.ts";

/** A holder without a job keeps the slot this long unless it renews it (a worker that died mid-call). */
export const ORDER_SLOT_TTL_MS = 10_000;
/** How long an order waits for the slot before its job is retried. */
export const ORDER_SLOT_WAIT_MS = 15_000;
/** Jobs in these states still own the slot they took. */
const LIVE_JOB_STATES = ["created", "retry", "active"];

/** Takes (or renews) the slot for `holder`; false when another holder has it. */
export async function tryOrderSlot(
  db: Db,
  exchange: string,
  symbol: string,
  holder: string,
  now = Date.now(),
  ttlMs = ORDER_SLOT_TTL_MS,
  jobId: number | null = null,
): Promise<boolean> {
  const take = () =>
    db
      .updateTable("order_slots")
      .set({ holder, expires_at: now + ttlMs, job_id: jobId })
      .where("exchange", "=", exchange)
      .where("symbol", "=", symbol)
      .where((eb) =>
        eb.or([
          eb("holder", "is", null),
          eb("holder", "=", holder),
          // A holder without a job: its lease ran out.
          eb.and([eb("job_id", "is", null), eb("expires_at", "<", now)]),
          // A job's slot: the job ended (however it ended), whatever the lease says.
          eb.and([
            eb("job_id", "is not", null),
            eb.not(
              eb.exists(
                eb
                  .selectFrom("jobs")
                  .select(sql`1`.as("one"))
                  .whereRef("jobs.id", "=", "order_slots.job_id")
                  .where("jobs.status", "in", LIVE_JOB_STATES),
              ),
            ),
          ]),
        ]),
      )
      .executeTakeFirst();
  if (Number((await take()).numUpdatedRows ?? 0) > 0) return true;
  const inserted = await db
    .insertInto("order_slots")
    .ignore()
    .values({ exchange, symbol, holder, expires_at: now + ttlMs, job_id: jobId })
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

/**
 * The slot is held by another order: the job goes back to the queue having sent nothing. Its
 * attempt is not counted (waiting its turn is not a failure: worker/runner.ts).
 */
export class SlotBusyError extends TemporaryError {}

/** `job:<id>` -> id (the slot follows the job); any other holder has no job. */
const jobIdOf = (holder: string) => (/^job:(\d+)$/.exec(holder) ? Number(holder.slice(4)) : null);

/**
 * Waits (polling) until the slot is ours. Throws TemporaryError after `waitMs`: the job is
 * retried later, nothing was sent.
 */
export async function acquireOrderSlot(
  db: Db,
  exchange: string,
  symbol: string,
  holder: string,
  options: { waitMs?: number; pollMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + (options.waitMs ?? ORDER_SLOT_WAIT_MS);
  const busy = () =>
    new SlotBusyError(`Another order for ${symbol} is still in flight on ${exchange}: this one waits its turn`);
  for (;;) {
    if (await tryOrderSlot(db, exchange, symbol, holder, Date.now(), ORDER_SLOT_TTL_MS, jobIdOf(holder))) return;
    // Held by a job that is not running now (its retry is due later): waiting here only keeps
    // this runner from running that job. Back to the queue at once (the holder is claimed
    // first, db/queries/jobs.ts claimJobs).
    if (Date.now() >= deadline || (await holderWaiting(db, exchange, symbol))) throw busy();
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 20));
  }
}

/** Whether the slot is held by a job that is not running (waiting for its retry). */
async function holderWaiting(db: Db, exchange: string, symbol: string): Promise<boolean> {
  const row = await db
    .selectFrom("order_slots")
    .innerJoin("jobs", "jobs.id", "order_slots.job_id")
    .select("jobs.status")
    .where("order_slots.exchange", "=", exchange)
    .where("order_slots.symbol", "=", symbol)
    .executeTakeFirst();
  return row !== undefined && (row.status === "retry" || row.status === "created");
}

/**
 * Runs `work` with the slot's lease renewed every third of its life (a call the exchange
 * answers slowly never loses the slot; a dead worker's lease runs out within ORDER_SLOT_TTL_MS).
 */
export async function withOrderSlotLease<T>(
  db: Db,
  exchange: string,
  symbol: string,
  holder: string,
  work: () => Promise<T>,
  ttlMs = ORDER_SLOT_TTL_MS,
): Promise<T> {
  const timer = setInterval(
    () => {
      db.updateTable("order_slots")
        .set({ expires_at: Date.now() + ttlMs })
        .where("exchange", "=", exchange)
        .where("symbol", "=", symbol)
        .where("holder", "=", holder)
        .execute()
        .catch(() => undefined);
    },
    Math.max(50, Math.floor(ttlMs / 3)),
  );
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** Gives the slot back (only if `holder` still has it). */
export async function releaseOrderSlot(db: Db, exchange: string, symbol: string, holder: string): Promise<void> {
  await db
    .updateTable("order_slots")
    .set({ holder: null, expires_at: 0, job_id: null })
    .where("exchange", "=", exchange)
    .where("symbol", "=", symbol)
    .where("holder", "=", holder)
    .execute();
}

/** Who holds the slot now (null when free: never taken, given back, or expired with no live job). */
export async function orderSlotHolder(
  db: Db,
  exchange: string,
  symbol: string,
  now = Date.now(),
): Promise<string | null> {
  const row = await db
    .selectFrom("order_slots")
    .select(["holder", "expires_at", "job_id"])
    .where("exchange", "=", exchange)
    .where("symbol", "=", symbol)
    .executeTakeFirst();
  if (!row?.holder) return null;
  if (row.job_id == null) return Number(row.expires_at) >= now ? row.holder : null;
  const job = await db.selectFrom("jobs").select("status").where("id", "=", Number(row.job_id)).executeTakeFirst();
  return job && LIVE_JOB_STATES.includes(job.status) ? row.holder : null;
}
