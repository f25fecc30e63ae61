import { beforeEach, describe, expect, test } from "vitest";
import { testDialects } from "#tests/setup/db.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";
import {
  cancelJob,
  claimJobs,
  completeJob,
  countJobsByStatus,
  enqueueJob,
  failJob,
  getJob,
  pruneFinishedJobs,
  recoverExpiredLeases,
  renewLeases,
  retryDelayMs,
} from "./jobs.ts";

describe.each(testDialects())("jobs queue on %s", (dialect) => {
  const fresh = freshDatabase(dialect);
  beforeEach(async () => {
    await fresh.db.deleteFrom("jobs").execute();
  });

  test("enqueue, claim in order, complete", async () => {
    const a = await enqueueJob(fresh.db, { task: "t", payload: { n: 1 } });
    const b = await enqueueJob(fresh.db, { task: "t", payload: { n: 2 } });
    expect(b.id).toBeGreaterThan(a.id);
    const claimed = await claimJobs(fresh.db, { workerId: "w1", limit: 1 });
    expect(claimed.map((j) => j.id)).toEqual([a.id]);
    expect(claimed[0]).toMatchObject({ status: "active", attempts: 1, lockedBy: "w1", payload: { n: 1 } });
    expect(await completeJob(fresh.db, a.id, "w2")).toBe(false); // not its lease
    expect(await completeJob(fresh.db, a.id, "w1")).toBe(true);
    expect((await getJob(fresh.db, a.id))!.status).toBe("completed");
    const next = await claimJobs(fresh.db, { workerId: "w1", limit: 5 });
    expect(next.map((j) => j.id)).toEqual([b.id]);
  });

  test("a job key deduplicates", async () => {
    const first = await enqueueJob(fresh.db, { task: "t", payload: 1, jobKey: "signal:abc" });
    const second = await enqueueJob(fresh.db, { task: "t", payload: 2, jobKey: "signal:abc" });
    expect(first.created).toBe(true);
    expect(second).toEqual({ id: first.id, created: false });
    expect(await countJobsByStatus(fresh.db)).toEqual({ created: 1 });
  });

  test("future jobs wait; failures back off and end failed after max attempts", async () => {
    const { id } = await enqueueJob(fresh.db, { task: "t", payload: null, maxAttempts: 2 });
    await enqueueJob(fresh.db, { task: "t", payload: null, runAt: Date.now() + 60_000 });
    let [job] = await claimJobs(fresh.db, { workerId: "w", limit: 10 });
    expect(job!.id).toBe(id);
    expect(await failJob(fresh.db, id, "w", "boom")).toBe("retry");
    let row = (await getJob(fresh.db, id))!;
    expect(row.lastError).toBe("boom");
    expect(row.runAt).toBeGreaterThan(Date.now() + 500);
    expect(await claimJobs(fresh.db, { workerId: "w" })).toEqual([]);
    [job] = await claimJobs(fresh.db, { workerId: "w", now: Date.now() + 5_000 });
    expect(job!.attempts).toBe(2);
    expect(await failJob(fresh.db, id, "w", "boom again")).toBe("failed");
    row = (await getJob(fresh.db, id))!;
    expect(row.status).toBe("failed");
    expect(row.finishedAt).not.toBeNull();
  });

  test("a non-retryable failure ends the job at once", async () => {
    const { id } = await enqueueJob(fresh.db, { task: "t", payload: null });
    await claimJobs(fresh.db, { workerId: "w" });
    expect(await failJob(fresh.db, id, "w", "invalid", { retryable: false })).toBe("failed");
  });

  test("an expired lease is handed out again; renewal keeps it", async () => {
    const { id } = await enqueueJob(fresh.db, { task: "t", payload: null, maxAttempts: 3 });
    await claimJobs(fresh.db, { workerId: "dead", leaseMs: 1 });
    const other = await enqueueJob(fresh.db, { task: "t", payload: null });
    await claimJobs(fresh.db, { workerId: "alive", leaseMs: 60_000 });
    expect(await renewLeases(fresh.db, "alive", [other.id], 60_000)).toBe(1);
    expect(await renewLeases(fresh.db, "intruder", [other.id], 60_000)).toBe(0);
    const recovered = await recoverExpiredLeases(fresh.db, Date.now() + 10);
    expect(recovered).toEqual({ retried: [id], failed: [] });
    const [again] = await claimJobs(fresh.db, { workerId: "new" });
    expect(again).toMatchObject({ id, attempts: 2, lockedBy: "new" });
    expect(await completeJob(fresh.db, id, "dead")).toBe(false);
  });

  test("cancel, prune, back-off curve", async () => {
    const { id } = await enqueueJob(fresh.db, { task: "t", payload: null });
    expect(await cancelJob(fresh.db, id, "emergency stop")).toBe(true);
    expect((await getJob(fresh.db, id))!).toMatchObject({ status: "cancelled", lastError: "emergency stop" });
    expect(await pruneFinishedJobs(fresh.db, Date.now() + 1)).toBe(1);
    expect([1, 2, 3, 10, 30].map(retryDelayMs)).toEqual([1000, 2000, 4000, 300_000, 300_000]);
  });

  test("concurrent claimers never take the same job", async () => {
    const total = 60;
    for (let i = 0; i < total; i++) await enqueueJob(fresh.db, { task: "t", payload: i });
    const seen: number[] = [];
    await Promise.all(
      Array.from({ length: 4 }, async (_, w) => {
        for (;;) {
          const jobs = await claimJobs(fresh.db, { workerId: `w${w}`, limit: 3 });
          if (jobs.length === 0) return;
          for (const job of jobs) {
            seen.push(job.id);
            await completeJob(fresh.db, job.id, `w${w}`);
          }
        }
      }),
    );
    expect(seen.length).toBe(total);
    expect(new Set(seen).size).toBe(total);
  });
});
