// A worker that dies (issue 21, defect 4): the web process keeps answering webhooks although
// the dead worker's wake-up port now refuses hints, and the jobs the worker held run on
// another worker within seconds (its heartbeat stops), not after their 15 s lease.
// docs/operations.md, "Several processes".
import type { Subprocess } from "bun";
import { afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { pokeWorkers } from "#app/services/worker-wake.server.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { claimJobs, enqueueJob, getJob, recoverExpiredLeases } from "#db/queries/jobs.ts";
import { WORKER_DEAD_AFTER_MS, writeHeartbeat } from "#db/queries/worker-heartbeats.ts";
import { freshApp, registerVia, sendSignal, signalTrade, waitFor, webhookSecret } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { startRunner } from "#worker/runner.ts";
import { listenForWake } from "#worker/wake.ts";

const LEASE_MS = 15_000; // the runner's default, which the dead worker's job keeps

describe.each(testDialects())("a dead worker on %s", (dialect) => {
  const app = freshApp(dialect, {}, { file: true });
  const db = () => app.database.db;
  let secret: string;
  let quantity = 0;
  const children: Subprocess[] = [];
  // Distinct alerts (an identical one is a duplicate and commits no job, so pokes nobody).
  const alert = () =>
    sendSignal(app, secret, {
      action: "buy",
      symbol: "BTC-PERP",
      quantity: (0.001 + (quantity += 1) / 100_000).toFixed(5),
      order_type: "market",
    });
  const spawnChild = (cmd: string[], env: Record<string, string> = {}) => {
    const child = Bun.spawn(cmd, { env: { ...process.env, ...env }, stdout: "ignore", stderr: "inherit" });
    children.push(child);
    return child;
  };
  const beatingWorker = async (workerId: string, moment: "idle" | "after-claim") => {
    const child = spawnChild([
      process.execPath,
      "tests/fixtures/beating-worker.ts",
      app.database.url,
      workerId,
      moment,
    ]);
    await waitFor(`${workerId}'s heartbeat`, async () =>
      db().selectFrom("worker_heartbeats").select("worker_id").where("worker_id", "=", workerId).executeTakeFirst(),
    );
    return child;
  };

  beforeAll(async () => {
    const admin = (await registerVia(app, "death_admin")).cookie;
    secret = await webhookSecret(app, admin);
    await new SimulatorAdapter(db()).ensureAccount();
  });
  beforeEach(async () => {
    for (const table of ["jobs", "trades", "positions", "sim_orders", "signals", "worker_heartbeats"] as const)
      await db().deleteFrom(table).execute();
    await db().deleteFrom("sim_positions").execute();
    await setPrice(db(), "BTC-PERP", "100000");
  });
  afterEach(async () => {
    for (const child of children.splice(0)) {
      child.kill("SIGKILL");
      await child.exited;
    }
  });

  test("hints to a dead worker's closed port neither throw nor crash, and live workers still get theirs", async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", onUncaught);
    process.on("unhandledRejection", onUncaught);
    let wakes = 0;
    const live = await listenForWake(() => (wakes += 1));
    const dead = await listenForWake(() => undefined);
    dead.close(); // the worker died: its port refuses (ICMP port unreachable → ECONNREFUSED)
    const now = Date.now();
    await writeHeartbeat(db(), {
      workerId: "w-dead",
      hostname: "h",
      pid: 1,
      startedAt: now,
      status: "running",
      info: { wake: dead.address },
    });
    await writeHeartbeat(db(), {
      workerId: "w-live",
      hostname: "h",
      pid: 2,
      startedAt: now,
      status: "running",
      info: { wake: live.address },
    });
    try {
      const deadline = Date.now() + 1500;
      let lateWakes = 0;
      while (Date.now() < deadline) {
        expect(() => pokeWorkers(db())).not.toThrow();
        await new Promise((r) => setTimeout(r, 10));
        if (deadline - Date.now() < 500) lateWakes = wakes; // after many refusals, hints still arrive
      }
      expect(wakes).toBeGreaterThan(10);
      expect(lateWakes).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 100)); // the last refusals arrive
      expect(uncaught).toEqual([]);
    } finally {
      process.off("uncaughtException", onUncaught);
      process.off("unhandledRejection", onUncaught);
      live.close();
    }
  });

  test("the web server keeps answering webhooks after a worker that published its wake port is killed", async () => {
    const worker = await beatingWorker("w-poked", "idle");
    const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const port = probe.port;
    probe.stop(true);
    const web = spawnChild([process.execPath, "server.ts"], {
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(port),
      DATABASE_URL: app.database.url,
      APP_SECRET: app.config.appSecret,
      DATA_DIR: "/tmp/perpdesk-test-unused",
    });
    const post = (n: number) =>
      fetch(`http://127.0.0.1:${port}/api/webhook/tradingview`, {
        method: "POST",
        headers: { "Content-Type": "text/plain" },
        body: JSON.stringify({
          secret,
          action: "buy",
          symbol: "BTC-PERP",
          quantity: (0.002 + n / 100_000).toFixed(5),
          order_type: "market",
        }),
      }).then(
        (r) => r.status,
        (error: Error) => `failed: ${error.message} (web exit ${web.exitCode})`,
      );
    await waitFor(
      "the web server",
      async () => (await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => null))?.status,
      30_000,
      100,
    );
    // Two alerts: the first opens the hint socket and reads the heartbeats, the second pokes the worker.
    expect([await post(1), await post(2)]).toEqual([200, 200]);

    worker.kill("SIGKILL");
    await worker.exited;
    // Its heartbeat stays fresh for a few seconds: the web process keeps poking a closed port.
    const answers: (number | string)[] = [];
    for (let n = 3; n < 13; n++) {
      answers.push(await post(n));
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(answers).toEqual(Array(10).fill(200));
    expect(web.exitCode).toBeNull();
    const queued = await db()
      .selectFrom("jobs")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(queued.n)).toBe(12);
  }, 60_000);

  test("a job claimed by a worker killed with SIGKILL runs on another worker within seconds, well before its lease ends", async () => {
    const doomed = await beatingWorker("w-doomed", "after-claim");
    const response = await alert(); // pokes w-doomed, which claims the job and dies
    const { signalId } = (await response.json()) as { signalId: string };
    await doomed.exited;
    const killedAt = Date.now();
    expect(doomed.signalCode).toBe("SIGKILL");
    const held = await db().selectFrom("jobs").selectAll().where("signal_id", "=", signalId).executeTakeFirstOrThrow();
    expect(held).toMatchObject({ status: "active", locked_by: "w-doomed" });
    expect(Number(held.locked_until)).toBeGreaterThan(killedAt + LEASE_MS - 2_000);

    let claimedAt = 0;
    const survivor = startRunner({
      db: db(),
      exchange: new SimulatorAdapter(db()),
      workerId: "survivor",
      pollMs: 5,
      onClaim: () => void (claimedAt ||= Date.now()),
    });
    try {
      await signalTrade(app, signalId); // executed by the survivor
    } finally {
      await survivor.stop();
    }
    const seconds = (claimedAt - killedAt) / 1000;
    console.log(
      `[worker-death ${dialect}] the killed worker's job was claimed again ${seconds.toFixed(1)} s after the kill`,
    );
    // Heartbeats every 2 s, dead after 6 s without one, recovery every second: at most ~7 s.
    expect(seconds).toBeLessThan(8);
    expect(claimedAt).toBeLessThan(Number(held.locked_until)); // the lease had not run out
    const job = await getJob(db(), held.id);
    expect(job).toMatchObject({ status: "completed", attempts: 2 });
    const orders = await db().selectFrom("sim_orders").select("id").execute();
    expect(orders).toHaveLength(1);
  }, 60_000);

  test("a worker's heartbeat, not only its lease, says when its jobs are handed out again", async () => {
    const holders = ["w-live", "w-stale", "w-stopped", "w-reborn", "w-unknown"] as const;
    const ids: Record<string, number> = {};
    for (const holder of holders) {
      const { id } = await enqueueJob(db(), { task: "t", payload: null, jobKey: `job-of-${holder}` });
      ids[holder] = id;
      await claimJobs(db(), { workerId: holder, leaseMs: 60_000 });
    }
    const before = Date.now() - 1_000;
    const beat = (workerId: string, status: string, startedAt = before) =>
      writeHeartbeat(db(), { workerId, hostname: "h", pid: 1, startedAt, status });
    await beat("w-live", "running");
    await beat("w-stale", "running");
    await db()
      .updateTable("worker_heartbeats")
      .set({ last_beat_at: Date.now() - WORKER_DEAD_AFTER_MS - 1_000 })
      .where("worker_id", "=", "w-stale")
      .execute();
    await beat("w-stopped", "stopped");
    // Restarted under the same WORKER_ID: a new process, fresh heartbeat, that never claimed it.
    await new Promise((r) => setTimeout(r, 5));
    await beat("w-reborn", "running", Date.now());

    const recovered = await recoverExpiredLeases(db());
    expect(recovered.failed).toEqual([]);
    expect([...recovered.retried].sort((a, b) => a - b)).toEqual([ids["w-stale"], ids["w-stopped"], ids["w-reborn"]]);
    // A live worker keeps its job; one without a heartbeat row is judged by its lease alone.
    expect(await getJob(db(), ids["w-live"]!)).toMatchObject({ status: "active", lockedBy: "w-live" });
    expect(await getJob(db(), ids["w-unknown"]!)).toMatchObject({ status: "active", lockedBy: "w-unknown" });
    expect(await getJob(db(), ids["w-stale"]!)).toMatchObject({ status: "retry", lockedBy: null });
    // Nothing else to do: the next look finds nothing (and takes no lock).
    expect(await recoverExpiredLeases(db())).toEqual({ retried: [], failed: [] });
  });
});
