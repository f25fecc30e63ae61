// The notifier (decision 030): on the price leader (the live worker with the smallest id),
// once a second, it tails `activity_logs` by id and turns the lines that are events into
// notifications; it also watches the other workers' heartbeats (worker down) and sends the
// daily summary at its UTC time. The cursor, the webhook-rejection tally and the summary day
// are one setting written in the same transaction as the notifications they produced, so a
// restart neither loses nor repeats one; each notification also has a unique dedupe key, so two
// workers briefly both leading cannot send one twice.
import type { Kysely } from "kysely";
import { type LogLine, classifyLogLine, rejectedCount } from "../../app/core/notifications/classify.ts";
import type { NotificationEvent } from "../../app/core/notifications/events.ts";
import { toFixed } from "../../app/core/decimal.ts";
import { type ChannelConfig, channelsFor } from "../../app/core/notifications/channels.ts";
import {
  NOTIFICATION_RETENTION_MS,
  activityAfter,
  enqueueNotification,
  getNotificationsConfig,
  lastExecutedTradeOfPosition,
  latestActivityId,
  loadChannelConfigs,
  pruneNotifications,
} from "../../db/queries/notifications.ts";
import { getPosition } from "../../db/queries/positions.ts";
import { getSetting, setSetting } from "../../db/queries/settings.ts";
import { getTrade } from "../../db/queries/trades.ts";
import { listHeartbeats } from "../../db/queries/worker-heartbeats.ts";
import type { DB } from "../../db/schema.ts";
import { isPriceLeader } from "../monitor/price-loop.ts";
import { dailySummary } from "./summaries.ts";

export const NOTIFIER_STATE_KEY = "notifier_state";
/** A hole in the ids younger than this may be a transaction still committing: wait for it. */
export const GAP_WAIT_MS = 5_000;
/** Webhook rejections are told once per this window (with how many and why). */
export const REJECT_WINDOW_MS = 60_000;
/** A running worker whose heartbeat is older than this is down. */
export const WORKER_DOWN_MS = 30_000;

export interface NotifierState {
  lastId: number;
  rejected: { count: number; since: number; reasons: string[] } | null;
  lastSummaryDay: string;
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const summaryDue = (now: number, time: string) => {
  const [h, m] = time.split(":").map(Number);
  const at = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate(), h, m);
  return now >= at;
};

async function loadState(db: Kysely<DB>, now: number, summaryTime: string): Promise<NotifierState> {
  const stored = await getSetting<NotifierState>(db, NOTIFIER_STATE_KEY);
  if (stored && typeof stored.lastId === "number") return stored;
  // First start: history is not news; today's summary counts as sent when its time has passed.
  return {
    lastId: await latestActivityId(db),
    rejected: null,
    lastSummaryDay: summaryDue(now, summaryTime) ? dayOf(now) : dayOf(now - 86_400_000),
  };
}

interface Found {
  event: NotificationEvent;
  title: string;
  body: string;
  dedupeKey: string;
  createdAt?: number;
}

/**
 * A fill that left its position closed: the position's realized P&L as the screens show it.
 * `flippedFrom`: the position a flip closed (the fill's trade belongs to the new one, issue 25).
 */
async function closedPosition(db: Kysely<DB>, tradeId: string, flippedFrom?: string): Promise<Found | null> {
  const trade = await getTrade(db, tradeId);
  if (!trade) return null;
  if (!flippedFrom && (!trade.positionId || trade.realizedPnl === null)) return null;
  const position = await getPosition(db, flippedFrom ?? trade.positionId!);
  if (position?.status !== "closed") return null;
  if (!flippedFrom && (await lastExecutedTradeOfPosition(db, position.id)) !== trade.id) return null;
  const pnl = toFixed(position.realizedPnl, 2);
  const signed = pnl.startsWith("-") ? `-$${pnl.slice(1)}` : `+$${pnl}`;
  return {
    event: "position_closed",
    title: `Position closed: ${position.side.toUpperCase()} ${position.symbol}, P&L ${signed}`,
    body: `${position.side.toUpperCase()} ${position.quantity} ${position.symbol} opened at ${position.entryPrice}, closed at ${trade.executedPrice ?? trade.price}. Realized P&L ${signed} (net of fees${position.funding !== "0" ? " and funding" : ""}).`,
    dedupeKey: `position-closed:${position.id}`,
  };
}

/**
 * One pass: reads what happened since the cursor and commits the notifications with the new
 * state. Returns how many notifications were queued. `now` and `selfId` are for tests.
 */
export async function notifyOnce(
  db: Kysely<DB>,
  options: { appSecret: string; workerId?: string; now?: number },
): Promise<number> {
  const now = options.now ?? Date.now();
  const general = await getNotificationsConfig(db);
  let configs: ChannelConfig[];
  try {
    configs = await loadChannelConfigs(db, options.appSecret);
  } catch {
    configs = []; // undecryptable secrets: the screen says so; the cursor still moves on
  }
  const state = await loadState(db, now, general.dailySummaryTime);
  // A state never stored (first start) is written at once, so its cursor holds from now on.
  const before = (await getSetting(db, NOTIFIER_STATE_KEY)) ? JSON.stringify(state) : "";
  const found: Found[] = [];

  // 1. The activity log since the cursor, stopping at a young hole in the ids.
  const lines = await activityAfter(db, state.lastId);
  let lastId = state.lastId;
  for (const line of lines) {
    if (line.id !== lastId + 1 && now - line.createdAt < GAP_WAIT_MS) break;
    lastId = line.id;
    const detected = classifyLogLine(line as LogLine);
    if (!detected) continue;
    if (detected.event === "webhook_rejected") {
      const tally = state.rejected ?? { count: 0, since: line.createdAt, reasons: [] };
      tally.count += rejectedCount(line as LogLine);
      const reason = line.message.replace(/^Webhook rejected( \d+ times in one minute from one source)?: /, "");
      if (!tally.reasons.includes(reason) && tally.reasons.length < 5) tally.reasons.push(reason);
      state.rejected = tally;
      continue;
    }
    found.push({
      event: detected.event,
      title: detected.title,
      body: detected.body,
      dedupeKey: `log:${line.id}:${detected.event}`,
      createdAt: line.createdAt,
    });
    if (detected.tradeId) {
      const closed = await closedPosition(db, detected.tradeId);
      if (closed) found.push({ ...closed, createdAt: line.createdAt });
      // A flip closed one position and opened the other: the closed side is notified too.
      const flipped = detected.closedPositionId
        ? await closedPosition(db, detected.tradeId, detected.closedPositionId)
        : null;
      if (flipped) found.push({ ...flipped, createdAt: line.createdAt });
    }
  }
  state.lastId = lastId;

  // 2. Webhook rejections, aggregated: one message per window.
  if (state.rejected && now - state.rejected.since >= REJECT_WINDOW_MS) {
    const r = state.rejected;
    found.push({
      event: "webhook_rejected",
      title: `Webhook rejected ${r.count} request${r.count === 1 ? "" : "s"}`,
      body: `${r.count} webhook request${r.count === 1 ? " was" : "s were"} rejected since ${new Date(r.since).toISOString().slice(11, 19)} UTC. Reasons: ${r.reasons.join("; ")}`,
      dedupeKey: `rejected:${r.since}`,
    });
    state.rejected = null;
  }

  // 3. Workers that stopped beating without saying they stopped.
  for (const beat of await listHeartbeats(db)) {
    if (beat.status !== "running" || beat.workerId === options.workerId || now - beat.lastBeatAt <= WORKER_DOWN_MS)
      continue;
    found.push({
      event: "worker_down",
      title: `Worker down: ${beat.workerId}`,
      body: `Worker ${beat.workerId} (${beat.hostname}, pid ${beat.pid}) has not written a heartbeat for ${Math.round((now - beat.lastBeatAt) / 1000)} s and did not stop cleanly. Jobs it held are handed to another worker once their lease runs out.`,
      dedupeKey: `worker-down:${beat.workerId}:${beat.lastBeatAt}`,
    });
  }

  // 4. The daily summary at its UTC time, once a day.
  if (state.lastSummaryDay !== dayOf(now) && summaryDue(now, general.dailySummaryTime)) {
    state.lastSummaryDay = dayOf(now);
    if (channelsFor(configs, "daily_summary").length > 0) {
      const summary = await dailySummary(db, now);
      found.push({ event: "daily_summary", ...summary, dedupeKey: `daily:${dayOf(now)}` });
    }
  }

  let queued = 0;
  if (found.length === 0 && JSON.stringify(state) === before) return 0; // nothing new: no write
  await db.transaction().execute(async (trx) => {
    for (const item of found) {
      const channels = channelsFor(configs, item.event);
      const id = await enqueueNotification(trx, {
        kind: item.event,
        title: item.title,
        body: item.body,
        dedupeKey: item.dedupeKey,
        channels,
        createdAt: item.createdAt,
      });
      if (id) queued++;
    }
    await setSetting(trx, NOTIFIER_STATE_KEY, state);
  });
  return queued;
}

/** Runs notifyOnce every `intervalMs` while this worker is the leader; returns stop(). */
export function startNotifier(options: {
  db: Kysely<DB>;
  workerId: string;
  appSecret: string;
  intervalMs?: number;
  onQueued?: () => void;
}) {
  let running = true;
  let lastError = "";
  let lastPrune = 0;
  let wake: (() => void) | null = null;
  const loop = (async () => {
    while (running) {
      try {
        if (await isPriceLeader(options.db, options.workerId)) {
          const queued = await notifyOnce(options.db, { appSecret: options.appSecret, workerId: options.workerId });
          if (queued > 0) options.onQueued?.();
          // The delivery log keeps 30 days (hourly, a batch at a time).
          if (Date.now() - lastPrune > 3_600_000) {
            lastPrune = Date.now();
            await pruneNotifications(options.db, Date.now() - NOTIFICATION_RETENTION_MS);
          }
        }
        lastError = "";
      } catch (error) {
        const message = (error as Error).message;
        if (message !== lastError) {
          lastError = message;
          console.error(`[worker] notifier pass failed: ${message}`);
        }
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.intervalMs ?? 1_000);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  })();
  return async () => {
    running = false;
    (wake as (() => void) | null)?.();
    await loop;
  };
}
