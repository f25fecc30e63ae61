// The notification channels' senders (decision 030): Telegram through grammy, the outgoing
// webhook through fetch (with its optional HMAC signature), e-mail through nodemailer. Used by
// the worker's send-notification task and the screen's "Send test message". Every text and
// every error is scrubbed of the channels' secret values before it leaves or is stored.
import { Api } from "grammy";
import nodemailer from "nodemailer";
import { decryptSecret } from "../crypto.ts";
import { checkDestination, urlHost } from "../net/destination.ts";
import type { Channel, ChannelSecrets, EmailSettings, NotificationEvent } from "./events.ts";
import { type Message, SIGNATURE_HEADER, plainText, scrub, signBody, telegramText, webhookBody } from "./format.ts";

export const SEND_TIMEOUT_MS = 15_000;

/** The Telegram Bot API root (TELEGRAM_API_ROOT; tests point it at a fake). */
export const telegramApiRoot = () => (process.env.TELEGRAM_API_ROOT || "https://api.telegram.org").replace(/\/+$/, "");

/** A channel as the worker uses it: settings and decrypted secrets. */
export interface ChannelConfig {
  channel: Channel;
  enabled: boolean;
  events: NotificationEvent[];
  settings: Record<string, unknown>;
  secrets: ChannelSecrets;
  /** The admin setting that lets webhook and SMTP reach private addresses (docs/security.md). */
  allowPrivateDestinations?: boolean;
}

/** A channel's secrets, decrypted (throws DecryptError, which names no secret, under another APP_SECRET). */
export function decryptChannelSecrets(secretsEnc: string | null, appSecret: string): ChannelSecrets {
  if (!secretsEnc) return {};
  return JSON.parse(decryptSecret(secretsEnc, appSecret)) as ChannelSecrets;
}

/** Every secret value of every channel: what scrub() removes from any text that leaves. */
export function secretValues(configs: ChannelConfig[]): string[] {
  return configs.flatMap((c) =>
    Object.values(c.secrets).filter((v): v is string => typeof v === "string" && v.length > 0),
  );
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
      timer = setTimeout(
        () => reject(new SendError(`${what} did not answer within ${SEND_TIMEOUT_MS / 1000} s`)),
        SEND_TIMEOUT_MS,
      );
    }),
  ]).finally(() => clearTimeout(timer));
}

/** A grammy Api for a token, at the configured API root, through the global fetch (tests fake it). */
export function telegramApi(token: string): Api {
  return new Api(token, {
    apiRoot: telegramApiRoot(),
    timeoutSeconds: SEND_TIMEOUT_MS / 1000,
    fetch: ((input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) =>
      globalThis.fetch(input, init)) as unknown as typeof fetch,
    sensitiveLogs: false,
  });
}

/**
 * Sends one message on one channel. Throws SendError with a message free of secrets.
 * `allSecrets`: every channel's secret values (scrubbed from the text and from errors).
 */
export async function sendOnChannel(
  config: ChannelConfig,
  message: Message,
  allSecrets: string[] = secretValues([config]),
): Promise<void> {
  const clean = { ...message, title: scrub(message.title, allSecrets), body: scrub(message.body, allSecrets) };
  try {
    if (config.channel === "telegram") {
      const token = config.secrets.botToken;
      const chatId = String(config.settings.chatId ?? "");
      if (!token || !chatId) throw new SendError("Telegram is not set up: bot token and chat id are required", false);
      await withTimeout(
        telegramApi(token).sendMessage(chatId, telegramText(clean), { link_preview_options: { is_disabled: true } }),
        "Telegram",
      );
      return;
    }
    if (config.channel === "webhook") {
      const url = config.secrets.url;
      if (!url) throw new SendError("Webhook is not set up: the URL is required", false);
      // Checked again before each delivery: the name may resolve elsewhere since it was saved.
      const destination = await checkDestination(urlHost(url), {
        allowPrivate: Boolean(config.allowPrivateDestinations),
      });
      if (!destination.ok) throw new SendError(`Webhook refused: its host ${destination.reason}`, false);
      const body = webhookBody(clean);
      const headers: Record<string, string> = {
        "Content-Type": "application/json",
        "User-Agent": "PerpDesk-Notifications",
      };
      if (config.secrets.signingSecret) headers[SIGNATURE_HEADER] = signBody(body, config.secrets.signingSecret);
      const response = await fetch(url, {
        method: "POST",
        headers,
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
      if (response.ok) return;
      // The remote body is never read into an error: the delivery log and the retries' log
      // lines would echo whatever an internal endpoint answers (docs/security.md).
      await response.body?.cancel().catch(() => undefined);
      // 429 and 5xx: try again later; any other 4xx: the URL or the body is wrong for good.
      const retryable = response.status === 429 || response.status >= 500;
      throw new SendError(`Webhook answered HTTP ${response.status}`, retryable);
    }
    const email = config.settings as unknown as EmailSettings;
    if (!email.host || !email.to || !email.from)
      throw new SendError("E-mail is not set up: SMTP host, from and to are required", false);
    const destination = await checkDestination(email.host, { allowPrivate: Boolean(config.allowPrivateDestinations) });
    if (!destination.ok) throw new SendError(`SMTP refused: its host ${destination.reason}`, false);
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
      await withTimeout(
        transport.sendMail({
          from: email.from,
          to: email.to,
          subject: `[PerpDesk] ${clean.title}`.slice(0, 200),
          text: plainText(clean),
        }),
        "SMTP server",
      );
    } finally {
      transport.close();
    }
  } catch (error) {
    const raw = error instanceof Error ? error.message : String(error);
    const retryable =
      error instanceof SendError
        ? error.retryable
        : !/\b(401|403|404)\b|Unauthorized|chat not found|Invalid login|EAUTH/i.test(raw);
    const text = error instanceof SendError ? raw : describeFailure(config.channel, error);
    throw new SendError(scrub(text, allSecrets).slice(0, 500), retryable);
  }
}

const SMTP_CODES: Record<string, string> = {
  EAUTH: "login refused",
  ECONNECTION: "connection failed",
  ETIMEDOUT: "timed out",
  ESOCKET: "connection failed",
  EDNS: "host not found",
  ETLS: "TLS failed",
  EENVELOPE: "sender or recipient refused",
  EMESSAGE: "message refused",
  EPROTOCOL: "not an SMTP server",
  ECONNREFUSED: "connection refused",
};

/**
 * An error as the delivery log keeps it: built from the status code or error class only,
 * never from what the remote end said (an SMTP banner or an HTTP body could be anything an
 * internal service answers; docs/security.md, "Outgoing notifications"). Telegram's
 * description comes from the Bot API itself and is kept.
 */
function describeFailure(channel: ChannelConfig["channel"], error: unknown): string {
  const e = (error ?? {}) as {
    name?: string;
    code?: unknown;
    responseCode?: unknown;
    error_code?: unknown;
    description?: unknown;
    message?: unknown;
  };
  if (channel === "telegram") {
    if (typeof e.error_code === "number")
      return `Telegram answered ${e.error_code}${typeof e.description === "string" ? `: ${e.description.slice(0, 200)}` : ""}`;
    return `Telegram request failed (${typeof e.code === "string" ? e.code : (e.name ?? "error")})`;
  }
  if (channel === "webhook") {
    if (e.name === "TimeoutError" || e.name === "AbortError")
      return `Webhook did not answer within ${SEND_TIMEOUT_MS / 1000} s`;
    return `Webhook request failed (${typeof e.code === "string" && /^[A-Z_]+$/i.test(e.code) ? e.code : (e.name ?? "error")})`;
  }
  const code = typeof e.code === "string" && /^[A-Z_]+$/.test(e.code) ? e.code : null;
  const reply = typeof e.responseCode === "number" ? ` (reply ${e.responseCode})` : "";
  return `SMTP server: ${code ? `${SMTP_CODES[code] ?? "failed"} [${code}]` : "failed"}${reply}`;
}
