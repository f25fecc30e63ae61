// Notifications (issue 13, decision 030), the screen's operations: channel settings (secrets
// AES-GCM encrypted like the exchange keys, never shown back, an audit entry per change), the
// general settings, "Send test message" and what the screen shows. The senders are in
// app/core/notifications/channels.ts (the worker uses them too).
import type { Kysely } from "kysely";
import { encryptSecret } from "#app/core/crypto.ts";
import { checkDestination, urlHost } from "#app/core/net/destination.ts";
import {
  type ChannelConfig,
  decryptChannelSecrets,
  secretValues,
  sendOnChannel,
} from "#app/core/notifications/channels.ts";
import {
  CHANNELS,
  CHANNEL_SECRETS,
  type Channel,
  type ChannelSecrets,
  DEFAULT_EVENTS,
  type EmailSettings,
  type NotificationEvent,
  type NotificationsConfig,
  secretHint,
} from "#app/core/notifications/events.ts";
import type {
  EmailFormValue,
  GeneralFormValue,
  TelegramFormValue,
  WebhookFormValue,
} from "#app/core/schemas/notifications.ts";
import { recordAudit } from "#db/queries/audit.ts";
import { cursorPageParams } from "#app/utils/api.server.ts";
import {
  NOTIFICATIONS_CONFIG_KEY,
  getChannelRow,
  getNotificationsConfig,
  listChannelRows,
  listDeliveries,
  loadChannelConfigs,
  recordDirectDelivery,
  saveChannelRow,
} from "#db/queries/notifications.ts";
import { setSetting } from "#db/queries/settings.ts";
import type { DB } from "#db/schema.ts";

export interface ChannelView {
  channel: Channel;
  enabled: boolean;
  configured: boolean;
  events: NotificationEvent[];
  settings: Record<string, unknown>;
  /** Per secret field: "saved" or its last 4 characters; absent when not saved. */
  secretHints: Record<string, string>;
  updatedAt: string | null;
  updatedBy: string | null;
}

export async function getNotificationSettings(
  db: Kysely<DB>,
): Promise<{ channels: ChannelView[]; config: NotificationsConfig }> {
  const rows = await listChannelRows(db);
  const channels = CHANNELS.map((channel): ChannelView => {
    const row = rows.find((r) => r.channel === channel);
    return {
      channel,
      enabled: row?.enabled ?? false,
      configured: Boolean(row),
      events: row?.events ?? DEFAULT_EVENTS,
      settings: row?.settings ?? {},
      secretHints: row?.secretHints ?? {},
      updatedAt: row ? new Date(row.updatedAt).toISOString() : null,
      updatedBy: row?.updatedBy ?? null,
    };
  });
  return { channels, config: await getNotificationsConfig(db) };
}

export type SaveOutcome = { ok: true; message: string } | { ok: false; error: string; field?: string };

/** Saves one channel: non-secret settings in clear, secrets (new ones; empty keeps) encrypted, an audit entry without secrets. */
async function saveChannel(
  db: Kysely<DB>,
  appSecret: string,
  by: string,
  channel: Channel,
  next: {
    enabled: boolean;
    events: NotificationEvent[];
    settings: Record<string, unknown>;
    secrets: ChannelSecrets;
    clear?: (keyof ChannelSecrets)[];
  },
  required: { field: keyof ChannelSecrets; label: string }[],
): Promise<SaveOutcome> {
  return db.transaction().execute(async (trx) => {
    const row = await getChannelRow(trx, channel);
    let stored: ChannelSecrets;
    try {
      stored = row ? decryptChannelSecrets(row.secretsEnc, appSecret) : {};
    } catch {
      // Saved under another APP_SECRET: whatever is entered now replaces it.
      stored = {};
    }
    const secrets: ChannelSecrets = { ...stored };
    for (const [key, value] of Object.entries(next.secrets) as [keyof ChannelSecrets, string | undefined][])
      if (value) secrets[key] = value;
    for (const key of next.clear ?? []) delete secrets[key];
    if (next.enabled) {
      const missing = required.find((r) => !secrets[r.field]);
      if (missing)
        return {
          ok: false,
          error: `${missing.label} is required to turn ${channel} notifications on`,
          field: missing.field,
        } as const;
    }
    const hints: Record<string, string> = {};
    for (const key of CHANNEL_SECRETS[channel]) {
      const value = secrets[key as keyof ChannelSecrets];
      if (value) hints[key] = secretHint(value);
    }
    const hasSecrets = Object.keys(secrets).length > 0;
    await saveChannelRow(trx, {
      channel,
      enabled: next.enabled,
      settings: next.settings,
      secretsEnc: hasSecrets ? encryptSecret(JSON.stringify(secrets), appSecret) : null,
      secretHints: hints,
      events: next.events,
      updatedBy: by,
    });
    // Secrets by name only: auditChanges writes "(changed)" for a field named like a secret.
    const secretFlags = (s: ChannelSecrets) =>
      Object.fromEntries(
        CHANNEL_SECRETS[channel].map((k) => [secretAuditName(k), s[k as keyof ChannelSecrets] ?? null]),
      );
    await recordAudit(trx, {
      actor: by,
      action: "notifications.update",
      target: `notifications:${channel}`,
      before: row ? { enabled: row.enabled, events: row.events, ...row.settings, ...secretFlags(stored) } : null,
      after: { enabled: next.enabled, events: next.events, ...next.settings, ...secretFlags(secrets) },
    });
    return {
      ok: true,
      message: `${channel === "email" ? "E-mail" : channel === "telegram" ? "Telegram" : "Webhook"} notifications saved`,
    } as const;
  });
}

/** Field names redact() treats as secrets, so the audit trail stores "(changed)", never a value. */
const secretAuditName = (key: string) =>
  key === "url"
    ? "urlSecret"
    : key === "botToken"
      ? "botToken"
      : key === "signingSecret"
        ? "signingSecret"
        : "password";

export function saveTelegram(
  db: Kysely<DB>,
  appSecret: string,
  by: string,
  value: TelegramFormValue,
): Promise<SaveOutcome> {
  return saveChannel(
    db,
    appSecret,
    by,
    "telegram",
    {
      enabled: value.enabled,
      events: value.events,
      settings: { chatId: value.chatId },
      secrets: { botToken: value.botToken },
    },
    [{ field: "botToken", label: "Bot token" }],
  );
}

/**
 * A new webhook URL or SMTP host must not point at loopback, private, link-local or metadata
 * addresses unless the admin allowed private destinations (docs/security.md). The check is
 * made again before each delivery (channels.ts).
 */
async function refusedDestination(
  db: Kysely<DB>,
  host: string,
  what: string,
  field: string,
): Promise<SaveOutcome | null> {
  const { allowPrivateDestinations } = await getNotificationsConfig(db);
  const check = await checkDestination(host, { allowPrivate: allowPrivateDestinations });
  return check.ok ? null : { ok: false, error: `${what} ${check.reason}`, field };
}

export async function saveWebhook(
  db: Kysely<DB>,
  appSecret: string,
  by: string,
  value: WebhookFormValue,
): Promise<SaveOutcome> {
  let host = "";
  if (value.url) {
    host = new URL(value.url).host;
    const refused = await refusedDestination(db, urlHost(value.url), "The webhook URL", "url");
    if (refused) return refused;
  }
  return getChannelRow(db, "webhook").then((row) =>
    saveChannel(
      db,
      appSecret,
      by,
      "webhook",
      {
        enabled: value.enabled,
        events: value.events,
        settings: { host: host || String(row?.settings.host ?? "") },
        secrets: { url: value.url, signingSecret: value.signingSecret },
        clear: value.clearSigningSecret && !value.signingSecret ? ["signingSecret"] : [],
      },
      [{ field: "url", label: "Webhook URL" }],
    ),
  );
}

export async function saveEmail(
  db: Kysely<DB>,
  appSecret: string,
  by: string,
  value: EmailFormValue,
): Promise<SaveOutcome> {
  const refused = await refusedDestination(db, value.host, "The SMTP host", "host");
  if (refused) return refused;
  const settings: EmailSettings = {
    host: value.host,
    port: value.port,
    secure: value.secure,
    user: value.user ?? "",
    from: value.from,
    to: value.to,
  };
  return saveChannel(
    db,
    appSecret,
    by,
    "email",
    { enabled: value.enabled, events: value.events, settings: { ...settings }, secrets: { password: value.password } },
    value.user ? [{ field: "password", label: "SMTP password" }] : [],
  );
}

export async function saveGeneral(db: Kysely<DB>, by: string, value: GeneralFormValue): Promise<SaveOutcome> {
  await db.transaction().execute(async (trx) => {
    const before = await getNotificationsConfig(trx);
    // Turning private destinations on is audited like every other change here (before/after).
    const after: NotificationsConfig = {
      rateLimitPerMinute: value.rateLimitPerMinute,
      dailySummaryTime: value.dailySummaryTime,
      allowPrivateDestinations: value.allowPrivateDestinations ?? before.allowPrivateDestinations,
    };
    await setSetting(trx, NOTIFICATIONS_CONFIG_KEY, after);
    await recordAudit(trx, {
      actor: by,
      action: "notifications.update",
      target: "notifications:general",
      before: { ...before },
      after: { ...after },
    });
  });
  return { ok: true, message: "Notification settings saved" };
}

/**
 * "Send test message": sent at once from this process (the answer says whether the channel
 * took it) and written to the delivery log either way. Uses the saved settings.
 */
export async function sendTestMessage(
  db: Kysely<DB>,
  appSecret: string,
  by: string,
  channel: Channel,
): Promise<SaveOutcome> {
  let configs: ChannelConfig[];
  try {
    configs = await loadChannelConfigs(db, appSecret);
  } catch {
    return {
      ok: false,
      error: "Saved notification secrets cannot be decrypted (APP_SECRET changed): enter them again",
    };
  }
  const config = configs.find((c) => c.channel === channel);
  if (!config) return { ok: false, error: "Save this channel's settings first" };
  const message = {
    kind: "test",
    title: "Test message from PerpDesk",
    body: `Sent by ${by} from the Notifications screen. If you read this, ${channel} notifications work.`,
  };
  try {
    await sendOnChannel(config, { ...message, createdAt: Date.now(), notificationId: "test" }, secretValues(configs));
    await recordDirectDelivery(db, { ...message, kind: "test" }, channel, { ok: true });
    return { ok: true, message: `Test message sent on ${channel}` };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    await recordDirectDelivery(db, { ...message, kind: "test" }, channel, { ok: false, error: reason });
    return { ok: false, error: `Test message on ${channel} failed: ${reason}` };
  }
}

/** The screen's (and GET /api/notifications') data: settings and one page of the delivery log (?before=<id>&limit=<n>). */
export async function loadNotificationsPage(db: Kysely<DB>, url: URL, maxLimit = 200) {
  const page = cursorPageParams(url);
  const [settings, log] = await Promise.all([
    getNotificationSettings(db),
    listDeliveries(db, { before: page.before, limit: Math.min(page.limit, maxLimit) }),
  ]);
  return { ...settings, log, firstPage: page.before == null };
}
