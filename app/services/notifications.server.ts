// Notifications (issue 13, decision 030): channel settings (secrets AES-GCM encrypted like the
// exchange keys, never shown back), the senders of each channel, the test message, and what
// the screen shows. Secrets never leave this module in an answer, a log line, a message or a
// stored error: every error text is scrubbed of each channel's secret values first.
import type { Kysely } from "kysely";
import { Api } from "grammy";
import nodemailer from "nodemailer";
import { decryptSecret, encryptSecret } from "#app/core/crypto.ts";
import {
  CHANNELS,
  CHANNEL_SECRETS,
  type Channel,
  type ChannelSecrets,
  DEFAULT_EVENTS,
  DEFAULT_NOTIFICATIONS_CONFIG,
  type EmailSettings,
  type NotificationEvent,
  type NotificationsConfig,
  secretHint,
} from "#app/core/notifications/events.ts";
import { type Message, SIGNATURE_HEADER, plainText, scrub, signBody, telegramText, webhookBody } from "#app/core/notifications/format.ts";
import type { EmailFormValue, GeneralFormValue, TelegramFormValue, WebhookFormValue } from "#app/core/schemas/notifications.ts";
import { recordAudit } from "#db/queries/audit.ts";
import { type ChannelRow, getChannelRow, listChannelRows, recordDirectDelivery, saveChannelRow } from "#db/queries/notifications.ts";
import { getSetting, setSetting } from "#db/queries/settings.ts";
import type { DB } from "#db/schema.ts";

export const NOTIFICATIONS_CONFIG_KEY = "notifications_config";
export const SEND_TIMEOUT_MS = 15_000;

/** The Telegram Bot API root (TELEGRAM_API_ROOT; tests point it at a fake). */
export const telegramApiRoot = () => (process.env.TELEGRAM_API_ROOT || "https://api.telegram.org").replace(/\/+$/, "");

export async function getNotificationsConfig(db: Kysely<DB>): Promise<NotificationsConfig> {
  return { ...DEFAULT_NOTIFICATIONS_CONFIG, ...((await getSetting<Partial<NotificationsConfig>>(db, NOTIFICATIONS_CONFIG_KEY)) ?? {}) };
}

/** A channel as the worker uses it: settings and decrypted secrets. */
export interface ChannelConfig {
  channel: Channel;
  enabled: boolean;
  events: NotificationEvent[];
  settings: Record<string, unknown>;
  secrets: ChannelSecrets;
}

function decrypt(row: ChannelRow, appSecret: string): ChannelSecrets {
  if (!row.secretsEnc) return {};
  return JSON.parse(decryptSecret(row.secretsEnc, appSecret)) as ChannelSecrets;
}

export async function loadChannelConfigs(db: Kysely<DB>, appSecret: string): Promise<ChannelConfig[]> {
  const rows = await listChannelRows(db);
  return rows.map((row) => ({ channel: row.channel, enabled: row.enabled, events: row.events, settings: row.settings, secrets: decrypt(row, appSecret) }));
}

/** Every secret value of every channel: what scrub() removes from any text that leaves. */
export function secretValues(configs: ChannelConfig[]): string[] {
  return configs.flatMap((c) => Object.values(c.secrets).filter((v): v is string => typeof v === "string" && v.length > 0));
}

/** The channels switched on for an event (enabled, and the event ticked). */
export function channelsFor(configs: ChannelConfig[], event: NotificationEvent): Channel[] {
  return configs.filter((c) => c.enabled && c.events.includes(event)).map((c) => c.channel);
}

export class SendError extends Error {
  /** false: retrying cannot help (bad settings, the channel refused the request for good). */
  constructor(
    message: string,
    readonly retryable = true,
  ) {
    super(message);
  }
}

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new SendError(`${what} did not answer within ${SEND_TIMEOUT_MS / 1000} s`)), SEND_TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** A grammy Api for a token, at the configured API root, through the global fetch (tests fake it). */
export function telegramApi(token: string): Api {
  return new Api(token, {
    apiRoot: telegramApiRoot(),
    timeoutSeconds: SEND_TIMEOUT_MS / 1000,
    fetch: ((input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => globalThis.fetch(input, init)) as unknown as typeof fetch,
    sensitiveLogs: false,
  });
}

/**
 * Sends one message on one channel. Throws SendError with a message free of secrets.
 * `allSecrets`: every channel's secret values (scrubbed from the text and from errors).
 */
export async function sendOnChannel(config: ChannelConfig, message: Message, allSecrets: string[] = secretValues([config])): Promise<void> {
  const clean = { ...message, title: scrub(message.title, allSecrets), body: scrub(message.body, allSecrets) };
  try {
    if (config.channel === "telegram") {
      const token = config.secrets.botToken;
      const chatId = String(config.settings.chatId ?? "");
      if (!token || !chatId) throw new SendError("Telegram is not set up: bot token and chat id are required", false);
      await withTimeout(telegramApi(token).sendMessage(chatId, telegramText(clean), { link_preview_options: { is_disabled: true } }), "Telegram");
      return;
    }
    if (config.channel === "webhook") {
      const url = config.secrets.url;
      if (!url) throw new SendError("Webhook is not set up: the URL is required", false);
      const body = webhookBody(clean);
      const headers: Record<string, string> = { "Content-Type": "application/json", "User-Agent": "PerpDesk-Notifications" };
      if (config.secrets.signingSecret) headers[SIGNATURE_HEADER] = signBody(body, config.secrets.signingSecret);
      const response = await fetch(url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(SEND_TIMEOUT_MS) });
      if (response.ok) return;
      const text = (await response.text().catch(() => "")).slice(0, 200);
      // 429 and 5xx: try again later; any other 4xx: the URL or the body is wrong for good.
      const retryable = response.status === 429 || response.status >= 500;
      throw new SendError(`Webhook answered HTTP ${response.status}${text ? `: ${text}` : ""}`, retryable);
    }
    const email = config.settings as unknown as EmailSettings;
    if (!email.host || !email.to || !email.from) throw new SendError("E-mail is not set up: SMTP host, from and to are required", false);
    const transport = nodemailer.createTransport({
      host: email.host,
      port: Number(email.port) || 587,
      secure: Boolean(email.secure),
      auth: email.user ? { user: email.user, pass: config.secrets.password ?? "" } : undefined,
      connectionTimeout: SEND_TIMEOUT_MS,
      greetingTimeout: SEND_TIMEOUT_MS,
      socketTimeout: SEND_TIMEOUT_MS,
    });
    try {
      await withTimeout(transport.sendMail({ from: email.from, to: email.to, subject: `[PerpDesk] ${clean.title}`.slice(0, 200), text: plainText(clean) }), "SMTP server");
    } finally {
      transport.close();
    }
  } catch (error) {
    const raw = error instanceof Error ? error.message : String(error);
    const retryable = error instanceof SendError ? error.retryable : !/\b(401|403|404)\b|Unauthorized|chat not found|Invalid login|EAUTH/i.test(raw);
    throw new SendError(scrub(raw, allSecrets).slice(0, 500), retryable);
  }
}

// ---------------------------------------------------------------------------------------
// The screen
// ---------------------------------------------------------------------------------------

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

export async function getNotificationSettings(db: Kysely<DB>): Promise<{ channels: ChannelView[]; config: NotificationsConfig }> {
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
  next: { enabled: boolean; events: NotificationEvent[]; settings: Record<string, unknown>; secrets: ChannelSecrets; clear?: (keyof ChannelSecrets)[] },
  required: { field: keyof ChannelSecrets; label: string }[],
): Promise<SaveOutcome> {
  return db.transaction().execute(async (trx) => {
    const row = await getChannelRow(trx, channel);
    let stored: ChannelSecrets;
    try {
      stored = row ? decrypt(row, appSecret) : {};
    } catch {
      // Saved under another APP_SECRET: whatever is entered now replaces it.
      stored = {};
    }
    const secrets: ChannelSecrets = { ...stored };
    for (const [key, value] of Object.entries(next.secrets) as [keyof ChannelSecrets, string | undefined][]) if (value) secrets[key] = value;
    for (const key of next.clear ?? []) delete secrets[key];
    if (next.enabled) {
      const missing = required.find((r) => !secrets[r.field]);
      if (missing) return { ok: false, error: `${missing.label} is required to turn ${channel} notifications on`, field: missing.field } as const;
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
    const secretFlags = (s: ChannelSecrets) => Object.fromEntries(CHANNEL_SECRETS[channel].map((k) => [secretAuditName(k), s[k as keyof ChannelSecrets] ?? null]));
    await recordAudit(trx, {
      actor: by,
      action: "notifications.update",
      target: `notifications:${channel}`,
      before: row ? { enabled: row.enabled, events: row.events, ...row.settings, ...secretFlags(stored) } : null,
      after: { enabled: next.enabled, events: next.events, ...next.settings, ...secretFlags(secrets) },
    });
    return { ok: true, message: `${channel === "email" ? "E-mail" : channel === "telegram" ? "Telegram" : "Webhook"} notifications saved` } as const;
  });
}

/** Field names redact() treats as secrets, so the audit trail stores "(changed)", never a value. */
const secretAuditName = (key: string) => (key === "url" ? "urlSecret" : key === "botToken" ? "botToken" : key === "signingSecret" ? "signingSecret" : "password");

export function saveTelegram(db: Kysely<DB>, appSecret: string, by: string, value: TelegramFormValue): Promise<SaveOutcome> {
  return saveChannel(db, appSecret, by, "telegram", { enabled: value.enabled, events: value.events, settings: { chatId: value.chatId }, secrets: { botToken: value.botToken } }, [{ field: "botToken", label: "Bot token" }]);
}

export function saveWebhook(db: Kysely<DB>, appSecret: string, by: string, value: WebhookFormValue): Promise<SaveOutcome> {
  let host = "";
  if (value.url) host = new URL(value.url).host;
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

export function saveEmail(db: Kysely<DB>, appSecret: string, by: string, value: EmailFormValue): Promise<SaveOutcome> {
  const settings: EmailSettings = { host: value.host, port: value.port, secure: value.secure, user: value.user ?? "", from: value.from, to: value.to };
  return saveChannel(db, appSecret, by, "email", { enabled: value.enabled, events: value.events, settings: { ...settings }, secrets: { password: value.password } }, value.user ? [{ field: "password", label: "SMTP password" }] : []);
}

export async function saveGeneral(db: Kysely<DB>, by: string, value: GeneralFormValue): Promise<SaveOutcome> {
  await db.transaction().execute(async (trx) => {
    const before = await getNotificationsConfig(trx);
    const after: NotificationsConfig = { rateLimitPerMinute: value.rateLimitPerMinute, dailySummaryTime: value.dailySummaryTime };
    await setSetting(trx, NOTIFICATIONS_CONFIG_KEY, after);
    await recordAudit(trx, { actor: by, action: "notifications.update", target: "notifications:general", before: { ...before }, after: { ...after } });
  });
  return { ok: true, message: "Notification settings saved" };
}

/**
 * "Send test message": sent at once from this process (the answer says whether the channel
 * took it) and written to the delivery log either way. Uses the saved settings.
 */
export async function sendTestMessage(db: Kysely<DB>, appSecret: string, by: string, channel: Channel): Promise<SaveOutcome> {
  let configs: ChannelConfig[];
  try {
    configs = await loadChannelConfigs(db, appSecret);
  } catch {
    return { ok: false, error: "Saved notification secrets cannot be decrypted (APP_SECRET changed): enter them again" };
  }
  const config = configs.find((c) => c.channel === channel);
  if (!config) return { ok: false, error: "Save this channel's settings first" };
  const message = { kind: "test", title: "Test message from PerpDesk", body: `Sent by ${by} from the Notifications screen. If you read this, ${channel} notifications work.` };
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
