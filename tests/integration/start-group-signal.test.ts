// Issue 22: a stop signal to `npm start`'s whole process group (what systemd does with
// KillMode=control-group, and what Ctrl-C in a terminal does) stops the app cleanly. Every
// process gets the signal at once and scripts/start.ts passes a SIGTERM on to its children a
// moment later; the worker used to take that one for a second signal ("exits at once"), left
// its heartbeat "running" and got reported as "Worker down ... did not stop cleanly" by the
// next worker. docs/operations.md, "Several processes".
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, test } from "vitest";
import { checkWorker } from "#app/services/health.server.ts";
import { type Database, openDatabase } from "#db/client.ts";
import { listHeartbeats, writeHeartbeat } from "#db/queries/worker-heartbeats.ts";
import { saveChannelRow } from "#db/queries/notifications.ts";
import { groupAlive, stopGroup, waitUntil } from "#tests/support/process-group.ts";
import { notifyOnce } from "#worker/notifications/notifier.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
const TWO_MINUTES = 120_000;

/** A port nobody listens on (the kernel's choice). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen({ port: 0, host: "127.0.0.1" }, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

interface App {
  pgid: number;
  baseUrl: string;
  dataDir: string;
  output: () => string;
  /** start.ts's own exit (code, signal). */
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `npm start` as systemd would run it: start.ts leading a process group of its own. */
async function startApp(): Promise<App> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "perpdesk-group-signal-"));
  const port = await freePort();
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("VITEST") && key !== "TEST") env[key] = value;
  }
  // The app's own secret and database in DATA_DIR, never the tests'.
  delete env.APP_SECRET;
  delete env.DATABASE_URL;
  Object.assign(env, {
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    NODE_ENV: "production",
    COINBASE_API_URL: "http://127.0.0.1:9",
  });
  const child: ChildProcess = spawn(process.execPath, ["scripts/start.ts"], {
    cwd: ROOT,
    env: env as NodeJS.ProcessEnv,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return { pgid: child.pid!, baseUrl: `http://127.0.0.1:${port}`, dataDir, output: () => output, exit };
}

describe("a stop signal to npm start's whole process group", () => {
  let app: App | null = null;
  let database: Database | null = null;

  afterEach(async () => {
    await database?.destroy();
    database = null;
    if (app) {
      await stopGroup(app.pgid, 15_000);
      rmSync(app.dataDir, { recursive: true, force: true });
      app = null;
    }
  });

  test.each(["SIGTERM", "SIGINT"] as const)(
    "%s: the worker drains once and says stopped, every process exits 0, nothing is restarted, and no one reports the worker as down later",
    async (signal) => {
      app = await startApp();
      const started = app;
      const healthy = await waitUntil(
        async () => {
          try {
            return (await fetch(`${started.baseUrl}/api/health`, { signal: AbortSignal.timeout(2000) })).status === 200;
          } catch {
            return false;
          }
        },
        30_000,
        250,
      );
      expect(healthy, started.output()).toBe(true);
      database = await openDatabase(`sqlite:${path.join(started.dataDir, "app.db")}`);
      const db = database.db;
      expect(
        await waitUntil(async () => (await listHeartbeats(db)).some((b) => b.status === "running"), 15_000),
        started.output(),
      ).toBe(true);
      const [beat] = await listHeartbeats(db);
      const workerId = beat!.workerId;

      process.kill(-started.pgid, signal); // every process of the group, as systemd and Ctrl-C do
      const exit = await Promise.race([started.exit, new Promise<null>((r) => setTimeout(() => r(null), 40_000))]);
      expect(exit, started.output()).toEqual({ code: 0, signal: null });
      expect(await waitUntil(() => !groupAlive(started.pgid), 5_000), "a process of the group is left").toBe(true);

      const log = started.output();
      // start.ts names any child that exits non-zero (or by a signal) while stopping, and any restart.
      expect(log).not.toMatch(/exited while stopping|restarting|still running after|again: exiting/);
      expect(log.match(/\[worker\] \w+: stopping once running tasks finish/g)).toEqual([
        `[worker] ${signal}: stopping once running tasks finish`,
      ]);
      expect(log).toContain(`[worker] ${workerId} stopped`);

      const beats = await listHeartbeats(db);
      expect(beats.map((b) => [b.workerId, b.status])).toEqual([[workerId, "stopped"]]);
      const messages = (await db.selectFrom("activity_logs").select("message").orderBy("id").execute()).map(
        (r) => r.message,
      );
      expect(messages).toContain(`Worker ${workerId} stopped (${signal})`);
      expect(messages.join("\n")).not.toMatch(/did not stop cleanly|Worker down/);

      // Two minutes later (read with a clock two minutes on): health says no worker runs, not
      // that one went silent, and the next worker's notifier raises no "Worker down" alarm.
      const later = Date.now() + TWO_MINUTES;
      expect(await checkWorker({ db }, later)).toEqual({
        component: "worker",
        status: "error",
        message: "No worker is running",
      });
      await saveChannelRow(db, {
        channel: "webhook",
        enabled: true,
        settings: {},
        secretsEnc: null,
        secretHints: {},
        events: ["worker_down"],
        updatedBy: null,
      });
      const appSecret = "group-signal-test-secret-0123456789abcdef";
      await notifyOnce(db, { appSecret, workerId: "next-worker", now: later });
      const alarms = () =>
        db.selectFrom("notifications").select(["kind", "body"]).where("kind", "=", "worker_down").execute();
      expect(await alarms()).toEqual([]);

      // The check is live: a worker that went silent while "running" is reported.
      await writeHeartbeat(db, {
        workerId: "silent-worker",
        hostname: "test",
        pid: 1,
        startedAt: Date.now(),
        status: "running",
      });
      await notifyOnce(db, { appSecret, workerId: "next-worker", now: later });
      expect((await alarms()).map((a) => a.body)).toEqual([
        expect.stringMatching(/^Worker silent-worker .* did not stop cleanly/),
      ]);
    },
    60_000,
  );
});
