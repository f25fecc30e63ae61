// GET /api/health: each component checked for real, never assumed.
import { sql } from "kysely";
import type { AppLoadContext } from "@remix-run/node";
import { staleHeldPrices } from "#exchange/simulator/price-feed.ts";
import { sourceLabel } from "#app/core/price-source.ts";
import { type ComponentStatus, type SystemStatusEntry, overallStatus } from "#app/core/system-status.ts";
import { listStrategyHeartbeats } from "./heartbeats.server.ts";
import { settingsGeneration } from "#db/queries/settings.ts";
import { getEmergencyStop, getTradingConfig } from "#db/queries/trading-state.ts";
import { listHeartbeats } from "#db/queries/worker-heartbeats.ts";
import { getTradingCredentials } from "#exchange/credentials.ts";
import { type ExchangeMode, MODE_LABELS, getLastCoinbaseCall, modeFor } from "#exchange/factory.ts";
import { WEBHOOK_PATH, webhookSecretReadable } from "./webhook.server.ts";

export const WORKER_ONLINE_MS = 15_000;
export const WORKER_WARNING_MS = 60_000;
const SLOW_QUERY_MS = 500;

export async function checkDatabase(context: Pick<AppLoadContext, "db" | "database">): Promise<SystemStatusEntry> {
  const started = performance.now();
  const name = context.database.dialect === "mysql" ? "MySQL/MariaDB" : "SQLite (embedded)";
  try {
    await sql`select 1`.execute(context.db);
    const ms = Math.round(performance.now() - started);
    const status: ComponentStatus = ms > SLOW_QUERY_MS ? "warning" : "online";
    return { component: "database", status, message: `${name} answered in ${ms} ms` };
  } catch (error) {
    return { component: "database", status: "error", message: `${name} unreachable: ${(error as Error).message}` };
  }
}

export async function checkWorker(context: Pick<AppLoadContext, "db">, now = Date.now()): Promise<SystemStatusEntry> {
  try {
    const beats = (await listHeartbeats(context.db)).filter((b) => b.status === "running");
    const newest = beats[0];
    if (!newest) return { component: "worker", status: "error", message: "No worker is running" };
    const age = Math.max(0, now - newest.lastBeatAt);
    const alive = beats.filter((b) => now - b.lastBeatAt <= WORKER_ONLINE_MS).length;
    if (age <= WORKER_ONLINE_MS) {
      return {
        component: "worker",
        status: "online",
        message: `${alive} worker${alive === 1 ? "" : "s"} running, last heartbeat ${Math.round(age / 1000)} s ago`,
      };
    }
    const status: ComponentStatus = age <= WORKER_WARNING_MS ? "warning" : "error";
    return { component: "worker", status, message: `Last worker heartbeat ${Math.round(age / 1000)} s ago` };
  } catch (error) {
    return { component: "worker", status: "error", message: `Heartbeat unreadable: ${(error as Error).message}` };
  }
}

/** The intake answers whenever the web process and the database do; auto trading off is a warning. */
export async function checkWebhook(
  context: Pick<AppLoadContext, "db"> & { config?: { appSecret: string } },
): Promise<SystemStatusEntry> {
  try {
    if (context.config && !(await webhookSecretReadable(context.db, context.config.appSecret))) {
      return {
        component: "webhook",
        status: "error",
        message:
          "Webhook secret cannot be decrypted (APP_SECRET changed): signals are refused until it is restored or the secret rotated",
      };
    }
    const config = await getTradingConfig(context.db);
    if (!config.autoTradingEnabled) {
      return {
        component: "webhook",
        status: "warning",
        message: "Auto trading is off: signals are stored, not executed",
      };
    }
    // Issue 12: a strategy whose expected heartbeat alert did not come.
    const missed = (await listStrategyHeartbeats(context.db)).filter((h) => h.state === "missed");
    if (missed.length > 0) {
      return {
        component: "webhook",
        status: "warning",
        message: `Missed heartbeat from ${missed.map((h) => `strategy ${h.name}`).join(", ")}: its alerts may not be reaching the app`,
      };
    }
    return { component: "webhook", status: "online", message: `Accepting TradingView signals at ${WEBHOOK_PATH}` };
  } catch (error) {
    return { component: "webhook", status: "error", message: `Cannot store signals: ${(error as Error).message}` };
  }
}

/** docs/spec/screens.md#states: the `system` component is in warning while the emergency stop is active. */
export async function checkSystem(context: Pick<AppLoadContext, "db">): Promise<SystemStatusEntry> {
  try {
    const stop = await getEmergencyStop(context.db);
    return stop.active
      ? {
          component: "system",
          status: "warning",
          message: `Emergency stop active since ${stop.changedAt} (${stop.changedBy}): no new positions are opened; protection and closes keep working`,
        }
      : { component: "system", status: "online", message: "Trading enabled" };
  } catch (error) {
    return { component: "system", status: "error", message: `Trading state unreadable: ${(error as Error).message}` };
  }
}

/**
 * coinbase_api: which exchange trades (simulator / Coinbase sandbox on paper / Coinbase live,
 * core/exchange/factory.ts) and whether its last call worked. The simulator (and sandbox
 * paper trading) is healthy while prices move; live Coinbase by the last call any process made.
 */
export async function checkExchange(
  context: Pick<AppLoadContext, "config" | "db">,
  now = Date.now(),
): Promise<SystemStatusEntry> {
  let mode: ExchangeMode;
  try {
    mode = modeFor(await getTradingCredentials(context.db, context.config));
  } catch (error) {
    return {
      component: "coinbase_api",
      status: "error",
      message: `${MODE_LABELS.unavailable}: ${(error as Error).message}`,
    };
  }
  const label = MODE_LABELS[mode];
  try {
    // Issue 15: a held symbol without a price the rules may act on puts the component in warning.
    const exchangeName = mode === "coinbase-live" || mode === "unavailable" ? "coinbase" : "simulator";
    const stale = await staleHeldPrices(
      context.db,
      exchangeName,
      now,
      (context.config.PRICE_MAX_AGE_SECONDS ?? 15) * 1000,
    );
    if (stale.length > 0) {
      return {
        component: "coinbase_api",
        status: "warning",
        message: `${label}: price stale for ${stale.map((s) => `${s.symbol} (${s.reason})`).join(", ")}: protection rules paused for it`,
      };
    }
    const last = mode === "simulator" ? null : await getLastCoinbaseCall(context.db);
    const lastText = last
      ? `last Coinbase call ${last.method} ${last.path} ${Math.max(0, Math.round((now - last.at) / 1000))} s ago ${last.ok ? "worked" : `failed: ${last.message}`}`
      : "no Coinbase call yet";
    if (mode === "coinbase-live") {
      if (!last) return { component: "coinbase_api", status: "warning", message: `${label}: ${lastText}` };
      return { component: "coinbase_api", status: last.ok ? "online" : "error", message: `${label}: ${lastText}` };
    }
    const newest = await context.db
      .selectFrom("market_prices")
      .select(["updated_at", "source"])
      .orderBy("updated_at", "desc")
      .executeTakeFirst();
    if (!newest)
      return {
        component: "coinbase_api",
        status: "warning",
        message: `${label}: no prices yet (is the worker running?)`,
      };
    const age = Math.round((now - Number(newest.updated_at)) / 1000);
    const source = sourceLabel(newest.source);
    if (age > 30) return { component: "coinbase_api", status: "warning", message: `${label}: last price ${age} s ago` };
    if (mode === "coinbase-sandbox") {
      const status: ComponentStatus = last && !last.ok ? "warning" : "online";
      return { component: "coinbase_api", status, message: `${label} (${source}); ${lastText}` };
    }
    return {
      component: "coinbase_api",
      status: "online",
      message: `${label} on ${source}: no exchange credentials configured`,
    };
  } catch (error) {
    return { component: "coinbase_api", status: "error", message: `${label} unavailable: ${(error as Error).message}` };
  }
}

export async function getSystemStatus(context: AppLoadContext) {
  const database = await checkDatabase(context);
  const rest = await Promise.all([
    checkWorker(context),
    checkWebhook(context),
    checkSystem(context),
    checkExchange(context),
  ]);
  const systemStatus = [database, ...rest];
  return { status: overallStatus(systemStatus), systemStatus, checkedAt: new Date().toISOString() };
}

export type SystemStatus = Awaited<ReturnType<typeof getSystemStatus>>;

const PAGE_STATUS_MAX_AGE_MS = 1000;
const pageStatus = new WeakMap<
  object,
  { at: number; generation: number; pending: Promise<SystemStatus>; settled: boolean }
>();

/**
 * The system status for pages (the sidebar's block, the dashboard's cards): at most 1 s old,
 * shared by the requests of this process, and recomputed at once after a settings change
 * here (emergency stop, trading config, credentials). Every page load would otherwise run
 * the seven checks again, twice on the dashboard. GET /api/health always checks afresh.
 */
export function getSystemStatusForPage(context: AppLoadContext): Promise<SystemStatus> {
  const now = Date.now();
  const generation = settingsGeneration();
  const hit = pageStatus.get(context.db);
  // A check still running is shared whatever its age (slow checks never pile up); a finished
  // one is at most PAGE_STATUS_MAX_AGE_MS old.
  if (hit && hit.generation === generation && (!hit.settled || now - hit.at < PAGE_STATUS_MAX_AGE_MS))
    return hit.pending;
  const pending = getSystemStatus(context);
  const entry = { at: now, generation, pending, settled: false };
  pageStatus.set(context.db, entry);
  pending.then(
    () => {
      entry.settled = true;
    },
    // A failed check set is not kept (getSystemStatus reports failures as entries; this is for a throw).
    () => pageStatus.get(context.db) === entry && pageStatus.delete(context.db),
  );
  return pending;
}
