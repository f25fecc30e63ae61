// The worker process. For now an idle loop: it claims no jobs yet, but it proves it is
// alive by writing its heartbeat, which /api/health reads. SIGINT/SIGTERM stop it cleanly.
import { hostname } from "node:os";
import { loadConfigOrExit } from "../app/core/env.ts";
import { openDatabase } from "../db/client.ts";
import { migrateToLatest } from "../db/migrate.ts";
import { recordActivity } from "../db/queries/activity-logs.ts";
import { pruneHeartbeats, writeHeartbeat } from "../db/queries/worker-heartbeats.ts";

export const HEARTBEAT_MS = 2_000;

export async function runWorker(options: { signal?: AbortSignal } = {}) {
  const config = loadConfigOrExit();
  const database = await openDatabase(config.databaseUrl);
  await migrateToLatest(database.db);
  const workerId = config.WORKER_ID ?? `${hostname()}:${process.pid}`;
  const startedAt = Date.now();
  const beat = (status: string) =>
    writeHeartbeat(database.db, { workerId, hostname: hostname(), pid: process.pid, startedAt, status });

  await beat("running");
  await pruneHeartbeats(database.db);
  await recordActivity(database.db, { type: "system", level: "info", message: `Worker ${workerId} started` });
  console.log(`[worker] ${workerId} running (${database.label})`);

  let stopping = false;
  const timer = setInterval(() => {
    beat("running").catch((error) => console.error(`[worker] heartbeat failed: ${(error as Error).message}`));
  }, HEARTBEAT_MS);

  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    clearInterval(timer);
    try {
      await beat("stopped");
      await recordActivity(database.db, { type: "system", level: "info", message: `Worker ${workerId} stopped (${why})` });
    } finally {
      await database.destroy();
    }
  };
  options.signal?.addEventListener("abort", () => void stop("aborted"));
  return { workerId, stop };
}

if (import.meta.main) {
  const worker = await runWorker();
  let signals = 0;
  for (const name of ["SIGINT", "SIGTERM"] as const) {
    process.on(name, async () => {
      signals += 1;
      if (signals > 1) process.exit(1); // a second signal forces the exit
      await worker.stop(name);
      process.exit(0);
    });
  }
}
