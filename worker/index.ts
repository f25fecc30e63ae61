// The worker process: runs jobs (signals → orders), moves simulator prices (when it is the
// price leader) and writes its heartbeat, which /api/health reads. SIGINT/SIGTERM drain it.
import { hostname } from "node:os";
import { loadConfigOrExit } from "../app/core/env.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { createExchange } from "#exchange/factory.ts";
import { tradingProductsFor } from "#exchange/trading-product.ts";
import { openDatabase } from "../db/client.ts";
import { migrateToLatest } from "../db/migrate.ts";
import { recordActivity } from "../db/queries/activity-logs.ts";
import { pruneHeartbeats, writeHeartbeat } from "../db/queries/worker-heartbeats.ts";
import { startCatalogSync } from "#exchange/coinbase/catalog.ts";
import { startHousekeeping } from "./housekeeping.ts";
import { startPriceLoop } from "./monitor/price-loop.ts";
import { startEquitySnapshots } from "./monitor/equity-snapshots.ts";
import { startOrderSync } from "./monitor/order-sync.ts";
import { startReconcile } from "./monitor/reconcile.ts";
import { listenForWake } from "./wake.ts";
import { type Runner, startRunner } from "./runner.ts";
import { startNotifier } from "./notifications/notifier.ts";
import { startTelegramCommands } from "./notifications/telegram-commands.ts";
import { SEND_NOTIFICATION_TASK } from "../db/queries/notifications.ts";

export const HEARTBEAT_MS = 2_000;

export async function runWorker() {
  const config = loadConfigOrExit();
  const database = await openDatabase(config.databaseUrl);
  await migrateToLatest(database.db);
  const workerId = config.WORKER_ID ?? `${hostname()}:${process.pid}`;
  const startedAt = Date.now();
  // Every Coinbase perpetual (decision 051): the stored catalog now, Coinbase's list in the background.
  const stopCatalog = await startCatalogSync(database.db, { refreshFromCoinbase: true });
  const simulator = new SimulatorAdapter(database.db);
  await simulator.ensureAccount();
  // Simulator, or Coinbase when credentials say so; follows credential changes without a restart.
  const exchange = createExchange(database.db, { simulator });
  await exchange
    .resolve()
    .catch((error) => console.error(`[worker] exchange choice failed: ${(error as Error).message}`));
  // The web process pokes this port after committing runnable jobs (a hint; polling stays).
  let runner: Runner | null = null;
  const wake = await listenForWake(() => runner?.poke(), config.WORKER_WAKE_HOST || undefined).catch((error) => {
    console.error(`[worker] no wake-up socket, polling only: ${(error as Error).message}`);
    return null;
  });
  const beat = (status: string, info: Record<string, unknown> = {}) =>
    writeHeartbeat(database.db, {
      workerId,
      hostname: hostname(),
      pid: process.pid,
      startedAt,
      status,
      info: { exchange: exchange.name, ...(wake ? { wake: wake.address } : {}), ...info },
    });

  await beat("running");
  await pruneHeartbeats(database.db);
  await recordActivity(database.db, {
    type: "system",
    level: "info",
    message: `Worker ${workerId} started (${exchange.label})`,
  });
  console.log(`[worker] ${workerId} running (${database.label}, ${exchange.label})`);

  // Notifications have a queue of their own (decision 030): a slow channel never holds a slot an order job needs.
  runner = startRunner({ db: database.db, exchange, workerId, excludeTasks: [SEND_NOTIFICATION_TASK] });
  const activeRunner = runner;
  const notificationRunner = startRunner({
    db: database.db,
    exchange,
    workerId,
    tasks: [SEND_NOTIFICATION_TASK],
    concurrency: 2,
    pollMs: 250,
  });
  // The price leader turns activity into notifications and answers the owner's Telegram commands.
  const stopNotifier = startNotifier({
    db: database.db,
    workerId,
    appSecret: config.appSecret,
    onQueued: () => notificationRunner.poke(),
  });
  const stopTelegram = startTelegramCommands({ db: database.db, workerId, appSecret: config.appSecret });
  // Rules act on the active exchange's own prices (live Coinbase: the CDE product's book).
  // ... and size their closes in the active exchange's units (whole Coinbase contracts live).
  const products = tradingProductsFor(database.db, exchange);
  const stopPrices = startPriceLoop({
    db: database.db,
    workerId,
    exchange,
    products,
    maxAgeMs: config.PRICE_MAX_AGE_SECONDS * 1000,
  });
  // The price leader records the account's equity for the Performance charts (decision 031).
  const stopSnapshots = startEquitySnapshots({ db: database.db, workerId, exchange });
  // Orders resting on Coinbase (live) are booked when Coinbase reports them final.
  const stopOrderSync = startOrderSync({ db: database.db, exchange, workerId });
  // Positions on the exchange compared with the app's book; differences become drift alarms.
  const stopReconcile = startReconcile({
    db: database.db,
    exchange,
    workerId,
    intervalMs: config.RECONCILE_INTERVAL_SECONDS * 1000,
  });
  const stopHousekeeping = startHousekeeping(database.db, {
    eventsHours: config.EVENTS_RETENTION_HOURS,
    jobsDays: config.JOBS_RETENTION_DAYS,
    candleDays: config.CANDLES_RETENTION_DAYS,
  });
  let beating: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    beating = beat("running", { activeJobs: activeRunner.active }).catch((error) =>
      console.error(`[worker] heartbeat failed: ${(error as Error).message}`),
    );
  }, HEARTBEAT_MS);

  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    stopHousekeeping();
    stopCatalog();
    try {
      await stopPrices();
      await stopSnapshots();
      await stopOrderSync();
      await stopReconcile();
      exchange.stop();
      await stopTelegram();
      await stopNotifier();
      await activeRunner.stop();
      await notificationRunner.stop();
      wake?.close();
      // Beating until the tasks drained: a worker silent for 6 s has its jobs handed out again
      // (docs/operations.md, "Several processes"); the last beat in flight must not follow "stopped".
      clearInterval(timer);
      await beating;
      await beat("stopped");
      await recordActivity(database.db, {
        type: "system",
        level: "info",
        message: `Worker ${workerId} stopped (${why})`,
      });
    } finally {
      clearInterval(timer);
      await database.destroy();
    }
  };
  return { workerId, stop };
}

/**
 * Signals within this long of the first are the same stop request: a signal to the whole
 * process group (systemd's `KillMode=control-group`, Ctrl-C in a terminal) reaches this
 * process and `npm start` (scripts/start.ts), which passes a SIGTERM on a moment later. A
 * signal after it forces the exit (docs/operations.md, "Several processes").
 */
export const SAME_STOP_MS = 1_000;

if (import.meta.main) {
  let worker: Awaited<ReturnType<typeof runWorker>> | null = null;
  let stopSignal: string | null = null;
  let firstSignalAt = 0;
  const stop = (running: Awaited<ReturnType<typeof runWorker>>, name: string) => {
    console.log(`[worker] ${name}: stopping once running tasks finish`);
    running.stop(name).then(
      () => {
        console.log(`[worker] ${running.workerId} stopped`);
        process.exit(0);
      },
      (error) => {
        console.error(`[worker] stop failed: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  // Listening before the start: a signal during it stops the worker once it has started (its
  // heartbeat already says "running" by then, and must end with "stopped").
  for (const name of ["SIGINT", "SIGTERM"] as const) {
    process.on(name, () => {
      const now = performance.now();
      if (stopSignal !== null) {
        if (now - firstSignalAt < SAME_STOP_MS) return; // the group's signal, passed on by start.ts
        console.error(`[worker] ${name} again: exiting without waiting for running tasks`);
        process.exit(1);
      }
      stopSignal = name;
      firstSignalAt = now;
      if (worker) stop(worker, name);
    });
  }
  worker = await runWorker();
  if (stopSignal) stop(worker, stopSignal);
}
