// Notifications (issue 13, decision 030): channel settings, the notifications found by the
// notifier, and their deliveries, one row per (notification, channel), moved by the
// `send-notification` job: queued → sending → sent, or retrying / failed, or digested (folded
// into one digest message by the per-channel rate limit).
import { sql } from "kysely";
import { type ChannelConfig, decryptChannelSecrets } from "../../app/core/notifications/channels.ts";
import {
  type Channel,
  DEFAULT_NOTIFICATIONS_CONFIG,
  type DeliveryStatus,
  type NotificationEvent,
  type NotificationKind,
  type NotificationsConfig,
} from "../../app/core/notifications/events.ts";
import { getSetting } from "./settings.ts";
import { type Db, feedRowsAfter, isMysql, latestFeedId, newId, nowMs, parseJson, toIso } from "./util.ts";
import { enqueueJob } from "./jobs.ts";

export const SEND_NOTIFICATION_TASK = "send-notification";
export const NOTIFICATION_MAX_ATTEMPTS = 6;
export const RATE_WINDOW_MS = 60_000;

export interface ChannelRow {
  channel: Channel;
  enabled: boolean;
  settings: Record<string, unknown>;
  secretsEnc: string | null;
  secretHints: Record<string, string>;
  events: NotificationEvent[];
  updatedAt: number;
  updatedBy: string | null;
}

export async function listChannelRows(db: Db): Promise<ChannelRow[]> {
  const rows = await db.selectFrom("notification_channels").selectAll().execute();
  return rows.map((row) => ({
    channel: row.channel as Channel,
    enabled: Number(row.enabled) === 1,
    settings: parseJson<Record<string, unknown>>(row.settings, {}),
    secretsEnc: row.secrets_enc,
    secretHints: parseJson<Record<string, string>>(row.secret_hints, {}),
    events: parseJson<NotificationEvent[]>(row.events, []),
    updatedAt: Number(row.updated_at),
    updatedBy: row.updated_by,
  }));
}

/** Every channel with its secrets decrypted (the worker's and the test message's view). */
export async function loadChannelConfigs(db: Db, appSecret: string): Promise<ChannelConfig[]> {
  const [rows, { allowPrivateDestinations }] = await Promise.all([listChannelRows(db), getNotificationsConfig(db)]);
  return rows.map((row) => ({
    channel: row.channel,
    enabled: row.enabled,
    events: row.events,
    settings: row.settings,
    secrets: decryptChannelSecrets(row.secretsEnc, appSecret),
    allowPrivateDestinations,
  }));
}

export const NOTIFICATIONS_CONFIG_KEY = "notifications_config";

export async function getNotificationsConfig(db: Db): Promise<NotificationsConfig> {
  return {
    ...DEFAULT_NOTIFICATIONS_CONFIG,
    ...((await getSetting<Partial<NotificationsConfig>>(db, NOTIFICATIONS_CONFIG_KEY)) ?? {}),
  };
}

export async function getChannelRow(db: Db, channel: Channel): Promise<ChannelRow | null> {
  return (await listChannelRows(db)).find((row) => row.channel === channel) ?? null;
}

export async function saveChannelRow(db: Db, row: Omit<ChannelRow, "updatedAt">): Promise<void> {
  const values = {
    channel: row.channel,
    enabled: row.enabled ? 1 : 0,
    settings: JSON.stringify(row.settings),
    secrets_enc: row.secretsEnc,
    secret_hints: JSON.stringify(row.secretHints),
    events: JSON.stringify(row.events),
    updated_at: nowMs(),
    updated_by: row.updatedBy,
  };
  const { channel: _key, ...update } = values;
  const insert = db.insertInto("notification_channels").values(values);
  if (isMysql(db)) await insert.onDuplicateKeyUpdate(update).execute();
  else await insert.onConflict((oc) => oc.column("channel").doUpdateSet(update)).execute();
}

/** Serialises rate-limit decisions on one channel (MySQL row lock; SQLite's writer lock does it). */
async function lockChannel(db: Db, channel: Channel): Promise<void> {
  if (isMysql(db))
    await db.selectFrom("notification_channels").select("channel").where("channel", "=", channel).forUpdate().execute();
}

export interface NewNotification {
  kind: NotificationKind;
  title: string;
  body: string;
  /** One notification per source fact: a second insert with the same key is ignored. */
  dedupeKey?: string | null;
  channels: Channel[];
  createdAt?: number;
}

/**
 * The notification, one queued delivery per channel and its `send-notification` job (call
 * inside the transaction of whatever found it). Returns the id, or null when the dedupe key
 * was already used (or no channel wants it).
 */
export async function enqueueNotification(
  db: Db,
  notification: NewNotification,
  options: { runAt?: number } = {},
): Promise<string | null> {
  if (notification.channels.length === 0) return null;
  const id = newId();
  const now = notification.createdAt ?? nowMs();
  const inserted = await db
    .insertInto("notifications")
    .ignore()
    .values({
      id,
      kind: notification.kind,
      title: notification.title.slice(0, 255),
      body: notification.body.slice(0, 60_000),
      dedupe_key: notification.dedupeKey?.slice(0, 191) ?? null,
      created_at: now,
    })
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return null;
  const stamp = nowMs();
  await db
    .insertInto("notification_deliveries")
    .values(
      notification.channels.map((channel) => ({
        notification_id: id,
        channel,
        status: "queued",
        attempts: 0,
        created_at: stamp,
        updated_at: stamp,
      })),
    )
    .execute();
  for (const channel of notification.channels) {
    await enqueueJob(db, {
      task: SEND_NOTIFICATION_TASK,
      payload: { notificationId: id, channel },
      jobKey: `notify:${id}:${channel}`,
      maxAttempts: NOTIFICATION_MAX_ATTEMPTS,
      runAt: options.runAt,
    });
  }
  return id;
}

export interface StoredNotification {
  id: string;
  kind: string;
  title: string;
  body: string;
  createdAt: number;
}

export async function getNotification(db: Db, id: string): Promise<StoredNotification | null> {
  const row = await db.selectFrom("notifications").selectAll().where("id", "=", id).executeTakeFirst();
  return row
    ? { id: row.id, kind: row.kind, title: row.title, body: row.body, createdAt: Number(row.created_at) }
    : null;
}

export type Reservation =
  | { action: "send"; attempts: number; notification: StoredNotification; digestItems: StoredNotification[] }
  | { action: "done"; status: DeliveryStatus }
  | { action: "digested"; digestId: string };

/**
 * Decides, under the channel's lock, what one attempt of a delivery does:
 * - already sent, failed or digested (a retried or duplicate job): nothing ("done");
 * - the channel sent `limit` messages in the last minute: folded into the channel's pending
 *   digest (created, with its job due when the window reopens, if there is none);
 * - otherwise it is marked `sending` (the attempt counted, its time taking a place in the
 *   window) and the caller sends it. A digest is always sent: it was timed for the window.
 */
export async function reserveDelivery(
  db: Db,
  notificationId: string,
  channel: Channel,
  limit: number,
  now = nowMs(),
): Promise<Reservation> {
  return db.transaction().execute(async (trx) => {
    await lockChannel(trx, channel);
    const delivery = await trx
      .selectFrom("notification_deliveries")
      .selectAll()
      .where("notification_id", "=", notificationId)
      .where("channel", "=", channel)
      .executeTakeFirst();
    const notification = await getNotification(trx, notificationId);
    if (!delivery || !notification) return { action: "done", status: "failed" } as const;
    if (["sent", "failed", "digested"].includes(delivery.status))
      return { action: "done", status: delivery.status as DeliveryStatus } as const;
    if (notification.kind !== "digest" && notification.kind !== "test") {
      const recent = await trx
        .selectFrom("notification_deliveries")
        .select(["sent_at"])
        .where("channel", "=", channel)
        .where("status", "in", ["sent", "sending"])
        .where("sent_at", ">", now - RATE_WINDOW_MS)
        .orderBy("sent_at", "asc")
        .execute();
      if (recent.length >= limit) {
        const digestId = await pendingDigest(
          trx,
          channel,
          Number(recent[recent.length - limit]!.sent_at) + RATE_WINDOW_MS,
        );
        await trx
          .updateTable("notification_deliveries")
          .set({ status: "digested", digest_id: digestId, updated_at: now, last_error: null })
          .where("id", "=", delivery.id)
          .execute();
        return { action: "digested", digestId } as const;
      }
    }
    let digestItems: StoredNotification[] = [];
    if (notification.kind === "digest") {
      const rows = await trx
        .selectFrom("notification_deliveries as d")
        .innerJoin("notifications as n", "n.id", "d.notification_id")
        .select(["n.id", "n.kind", "n.title", "n.body", "n.created_at"])
        .where("d.digest_id", "=", notificationId)
        .where("d.channel", "=", channel)
        .orderBy("n.created_at", "asc")
        .orderBy("d.id", "asc")
        .execute();
      digestItems = rows.map((r) => ({
        id: r.id,
        kind: r.kind,
        title: r.title,
        body: r.body,
        createdAt: Number(r.created_at),
      }));
    }
    const attempts = Number(delivery.attempts) + 1;
    await trx
      .updateTable("notification_deliveries")
      .set({ status: "sending", attempts, sent_at: now, updated_at: now })
      .where("id", "=", delivery.id)
      .execute();
    return { action: "send", attempts, notification, digestItems } as const;
  });
}

/** The channel's digest still collecting (queued, not started), or a new one due at `dueAt`. */
async function pendingDigest(db: Db, channel: Channel, dueAt: number): Promise<string> {
  const open = await db
    .selectFrom("notification_deliveries as d")
    .innerJoin("notifications as n", "n.id", "d.notification_id")
    .select("n.id")
    .where("n.kind", "=", "digest")
    .where("d.channel", "=", channel)
    .where("d.status", "=", "queued")
    .orderBy("d.id", "desc")
    .executeTakeFirst();
  if (open) return open.id;
  const id = await enqueueNotification(
    db,
    { kind: "digest", title: "Digest", body: "", channels: [channel] },
    { runAt: dueAt },
  );
  return id!;
}

export async function markDeliverySent(db: Db, notificationId: string, channel: Channel): Promise<void> {
  const now = nowMs();
  await db
    .updateTable("notification_deliveries")
    .set({ status: "sent", sent_at: now, updated_at: now, last_error: null })
    .where("notification_id", "=", notificationId)
    .where("channel", "=", channel)
    .execute();
}

/** A failed attempt (the error already scrubbed): `retrying` while the job has attempts left, else `failed`. */
export async function markDeliveryFailed(
  db: Db,
  notificationId: string,
  channel: Channel,
  error: string,
  final: boolean,
): Promise<void> {
  const now = nowMs();
  await db
    .updateTable("notification_deliveries")
    .set({ status: final ? "failed" : "retrying", last_error: error.slice(0, 2000), updated_at: now, sent_at: null })
    .where("notification_id", "=", notificationId)
    .where("channel", "=", channel)
    .where("status", "!=", "sent")
    .execute();
}

/** A test message: its delivery row written as it ended (sent from the web process at once). */
export async function recordDirectDelivery(
  db: Db,
  notification: { kind: NotificationKind; title: string; body: string },
  channel: Channel,
  outcome: { ok: true } | { ok: false; error: string },
): Promise<string> {
  const id = newId();
  const now = nowMs();
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto("notifications")
      .values({
        id,
        kind: notification.kind,
        title: notification.title,
        body: notification.body,
        dedupe_key: null,
        created_at: now,
      })
      .execute();
    await trx
      .insertInto("notification_deliveries")
      .values({
        notification_id: id,
        channel,
        status: outcome.ok ? "sent" : "failed",
        attempts: 1,
        last_error: outcome.ok ? null : outcome.error.slice(0, 2000),
        created_at: now,
        updated_at: now,
        sent_at: outcome.ok ? now : null,
      })
      .execute();
  });
  return id;
}

export interface DeliveryLogEntry {
  id: number;
  notificationId: string;
  kind: string;
  title: string;
  channel: string;
  status: DeliveryStatus;
  attempts: number;
  lastError: string | null;
  digestId: string | null;
  createdAt: string;
  updatedAt: string;
  sentAt: string | null;
}

export const DELIVERY_PAGE_MAX = 200;

/** Newest first; `before` is the id cursor (the last id of the previous page). */
export async function listDeliveries(
  db: Db,
  options: { before?: number | null; limit?: number } = {},
): Promise<{ entries: DeliveryLogEntry[]; nextBefore: number | null }> {
  const limit = Math.min(Math.max(Math.trunc(options.limit ?? 25) || 25, 1), DELIVERY_PAGE_MAX);
  let query = db
    .selectFrom("notification_deliveries as d")
    .innerJoin("notifications as n", "n.id", "d.notification_id")
    .select([
      "d.id",
      "d.notification_id",
      "n.kind",
      "n.title",
      "d.channel",
      "d.status",
      "d.attempts",
      "d.last_error",
      "d.digest_id",
      "d.created_at",
      "d.updated_at",
      "d.sent_at",
    ])
    .orderBy("d.id", "desc")
    .limit(limit + 1);
  if (options.before != null) query = query.where("d.id", "<", options.before);
  const rows = await query.execute();
  const entries = rows.slice(0, limit).map((row) => ({
    id: Number(row.id),
    notificationId: row.notification_id,
    kind: row.kind,
    title: row.title,
    channel: row.channel,
    status: row.status as DeliveryStatus,
    attempts: Number(row.attempts),
    lastError: row.last_error,
    digestId: row.digest_id,
    createdAt: toIso(Number(row.created_at))!,
    updatedAt: toIso(Number(row.updated_at))!,
    sentAt: row.sent_at == null ? null : toIso(Number(row.sent_at)),
  }));
  return { entries, nextBefore: rows.length > limit ? entries[entries.length - 1]!.id : null };
}

/** Activity lines after `afterId`, oldest first (the notifier's tail). */
export async function activityAfter(db: Db, afterId: number, limit = 500) {
  const rows = await feedRowsAfter(db, "activity_logs", afterId, limit);
  return rows.map((r) => ({
    id: Number(r.id),
    type: r.type,
    level: r.level,
    message: r.message,
    data: parseJson<Record<string, unknown>>(r.data, {}),
    createdAt: Number(r.created_at),
  }));
}

export const latestActivityId = (db: Db): Promise<number> => latestFeedId(db, "activity_logs");

/** The id of the newest executed trade booked on a position (did this fill close it?). */
export async function lastExecutedTradeOfPosition(db: Db, positionId: string): Promise<string | null> {
  const row = await db
    .selectFrom("trades")
    .select("id")
    .where("position_id", "=", positionId)
    .where("status", "=", "executed")
    .orderBy("executed_at", "desc")
    .orderBy("created_at", "desc")
    .limit(1)
    .executeTakeFirst();
  return row?.id ?? null;
}

/** Executed trades (fills) since `since` (epoch ms). */
export async function countFillsSince(db: Db, since: number): Promise<number> {
  const row = await db
    .selectFrom("trades")
    .select(sql<number>`count(*)`.as("n"))
    .where("status", "=", "executed")
    .where("executed_at", ">=", since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export const NOTIFICATION_RETENTION_MS = 30 * 86_400_000;

/**
 * Deletes notifications older than `cutoff` whose deliveries are all over (sent, failed,
 * digested), with their deliveries; returns how many notifications went. One still queued or
 * retrying is kept whatever its age.
 */
export async function pruneNotifications(db: Db, cutoff: number, batch = 500): Promise<number> {
  const old = await db
    .selectFrom("notifications")
    .select("id")
    .where("created_at", "<", cutoff)
    .orderBy("created_at")
    .limit(batch)
    .execute();
  if (old.length === 0) return 0;
  const ids = old.map((r) => r.id);
  const open = await db
    .selectFrom("notification_deliveries")
    .select("notification_id")
    .where("notification_id", "in", ids)
    .where("status", "in", ["queued", "sending", "retrying"])
    .execute();
  const keep = new Set(open.map((r) => r.notification_id));
  const gone = ids.filter((id) => !keep.has(id));
  if (gone.length === 0) return 0;
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom("notification_deliveries").where("notification_id", "in", gone).execute();
    await trx.deleteFrom("notifications").where("id", "in", gone).execute();
  });
  return gone.length;
}
