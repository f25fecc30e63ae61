// Group commit: concurrent webhook writes share transactions, duplicates inside one batch
// resolve to the first signal, a bad row fails alone, and a full queue refuses at once.
import { describe, expect, test } from "vitest";
import type { NewSignal } from "#db/queries/signals.ts";
import { testDialects } from "#tests/setup/db.ts";
import { OverloadedError, SignalWriter } from "./signal-writer.server.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";

let seq = 0;
function signal(overrides: Partial<NewSignal> = {}): NewSignal {
  seq += 1;
  return {
    id: `sig-${process.pid}-${seq}`,
    action: "buy",
    symbol: "BTC-PERP",
    orderType: "market",
    price: null,
    quantity: "0.01",
    payload: {},
    strategy: null,
    signalTime: null,
    dedupeKey: `key-${seq}`,
    status: "queued",
    ...overrides,
  };
}

const withJob = (s: NewSignal) => ({
  signal: s,
  job: { task: "execute-signal", payload: { signalId: s.id }, jobKey: `signal:${s.id}`, signalId: s.id },
  logs: [{ type: "signal", level: "info" as const, message: `Signal received ${s.id}` }],
  events: [{ type: "new_signal" as const, data: { id: s.id } }],
  duplicateLogs: [
    {
      type: "webhook",
      level: "info" as const,
      message: "Duplicate alert ignored (already received)",
      data: { signalId: null },
    },
  ],
});

describe.each(testDialects())("signal writer on %s", (dialect) => {
  const fresh = freshDatabase(dialect);

  const count = async (table: "signals" | "jobs" | "activity_logs" | "events") =>
    Number(
      (
        await fresh.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  test("200 concurrent writes: every signal with exactly one job, in fewer transactions than writes", async () => {
    const writer = new SignalWriter(fresh.db);
    const before = { signals: await count("signals"), jobs: await count("jobs"), dashboard: await dashboardUpdates() };
    const signals = Array.from({ length: 200 }, () => signal());
    const results = await Promise.all(signals.map((s) => writer.write(withJob(s))));
    expect(results.every((r) => r.duplicateOf === null)).toBe(true);
    expect((await count("signals")) - before.signals).toBe(200);
    expect((await count("jobs")) - before.jobs).toBe(200);
    const jobs = await fresh.db
      .selectFrom("jobs")
      .select(["signal_id", "status"])
      .where(
        "signal_id",
        "in",
        signals.map((s) => s.id),
      )
      .execute();
    expect(new Set(jobs.map((j) => j.signal_id)).size).toBe(200);
    expect(jobs.every((j) => j.status === "created")).toBe(true);
    // One dashboard_update per committed batch: all 200 were queued in one turn of the event loop.
    const batches = (await dashboardUpdates()) - before.dashboard;
    expect(batches).toBeGreaterThanOrEqual(1);
    expect(batches).toBeLessThan(200);
  });

  async function dashboardUpdates() {
    return Number(
      (
        await fresh.db
          .selectFrom("events")
          .select((eb) => eb.fn.countAll().as("n"))
          .where("type", "=", "dashboard_update")
          .executeTakeFirstOrThrow()
      ).n,
    );
  }

  test("the same dedupe key twice in one batch: one signal, one job; the second answers with the first's id", async () => {
    const writer = new SignalWriter(fresh.db);
    const first = signal({ dedupeKey: "same-key" });
    const second = signal({ dedupeKey: "same-key" });
    const [a, b] = await Promise.all([writer.write(withJob(first)), writer.write(withJob(second))]);
    expect(a).toEqual({ duplicateOf: null });
    expect(b).toEqual({ duplicateOf: first.id });
    const stored = await fresh.db.selectFrom("signals").select("id").where("dedupe_key", "=", "same-key").execute();
    expect(stored.map((s) => s.id)).toEqual([first.id]);
    expect(await fresh.db.selectFrom("jobs").select("id").where("signal_id", "=", second.id).execute()).toEqual([]);
    const dupLog = await fresh.db
      .selectFrom("activity_logs")
      .select("data")
      .where("message", "=", "Duplicate alert ignored (already received)")
      .execute();
    expect(dupLog.some((l) => JSON.parse(l.data as string).signalId === first.id)).toBe(true);
  });

  test("a blocked signal's job is stored cancelled with the reason, and never runs", async () => {
    const writer = new SignalWriter(fresh.db);
    const s = signal({ status: "skipped", statusReason: "Emergency stop is active" });
    const write = withJob(s);
    await writer.write({ ...write, job: { ...write.job, cancelledBecause: "Emergency stop is active" } });
    const job = await fresh.db.selectFrom("jobs").selectAll().where("signal_id", "=", s.id).executeTakeFirstOrThrow();
    expect(job.status).toBe("cancelled");
    expect(job.last_error).toBe("Emergency stop is active");
  });

  test("one bad write in a batch fails alone; the others are committed", async () => {
    const writer = new SignalWriter(fresh.db);
    const good1 = signal();
    const bad = signal();
    const good2 = signal();
    const badWrite = withJob(bad);
    // A job without a task violates NOT NULL on both dialects.
    (badWrite.job as { task: unknown }).task = null;
    const results = await Promise.allSettled([
      writer.write(withJob(good1)),
      writer.write(badWrite),
      writer.write(withJob(good2)),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    const ids = (
      await fresh.db.selectFrom("signals").select("id").where("id", "in", [good1.id, bad.id, good2.id]).execute()
    ).map((r) => r.id);
    expect(ids.sort()).toEqual([good1.id, good2.id].sort());
    expect(await fresh.db.selectFrom("jobs").select("id").where("signal_id", "=", bad.id).execute()).toEqual([]);
  });

  test("a full queue refuses new writes at once (the webhook answers 503)", async () => {
    const writer = new SignalWriter(fresh.db);
    const writes = Array.from({ length: 4_000 }, () =>
      writer.write({ logs: [{ type: "webhook", level: "info", message: "load" }] }),
    );
    await expect(
      writer.write({ logs: [{ type: "webhook", level: "info", message: "one too many" }] }),
    ).rejects.toBeInstanceOf(OverloadedError);
    await Promise.all(writes);
    expect(writer.waiting).toBe(0);
  });
});
