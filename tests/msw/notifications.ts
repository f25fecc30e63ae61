// Fakes of the notification channels (decision 030): MSW handlers of the Telegram Bot API
// (getMe, sendMessage, getUpdates) and of a Discord-style incoming webhook, and a real local
// SMTP server (smtp-server) that accepts one login and keeps every message it receives.
import { http, HttpResponse, delay } from "msw";
import { SMTPServer } from "smtp-server";

export const TELEGRAM_ROOT = "https://telegram.fake";
export const DISCORD_URL = "https://discord.fake/api/webhooks/1234567890/fake-webhook-token-abcdefghijklmnop";

export interface SentTelegram {
  token: string;
  chatId: string;
  text: string;
  raw: string;
}

export interface ReceivedWebhook {
  body: string;
  json: Record<string, unknown>;
  signature: string | null;
}

export interface TelegramUpdate {
  update_id: number;
  message: {
    message_id: number;
    date: number;
    text: string;
    chat: { id: number; type: "private" };
    from: { id: number; is_bot: false; first_name: string };
    entities?: { type: "bot_command"; offset: number; length: number }[];
  };
}

export function createNotificationFakes() {
  const state = {
    telegram: [] as SentTelegram[],
    webhook: [] as ReceivedWebhook[],
    webhookCalls: 0,
    /** The next N webhook calls answer 500 (the body quotes the URL, as some servers do). */
    webhookFailures: 0,
    /** Each webhook call first waits this long (a slow endpoint). */
    webhookDelayMs: 0,
    /** The next N sendMessage calls answer 502. */
    telegramFailures: 0,
    updates: [] as TelegramUpdate[],
    getUpdatesOffsets: [] as number[],
  };
  let nextUpdate = 1;
  const handlers = [
    http.post(new RegExp(`^${TELEGRAM_ROOT.replace(/\./g, "\\.")}/bot([^/]+)/(\\w+)$`), async ({ request }) => {
      const match = new URL(request.url).pathname.match(/^\/bot([^/]+)\/(\w+)$/)!;
      const [, token, method] = match;
      const raw = await request.text();
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      if (method === "getMe")
        return HttpResponse.json({
          ok: true,
          result: {
            id: 777,
            is_bot: true,
            first_name: "PerpDesk",
            username: "perpdesk_fake_bot",
            can_join_groups: false,
            can_read_all_group_messages: false,
            supports_inline_queries: false,
          },
        });
      if (method === "sendMessage") {
        if (state.telegramFailures > 0) {
          state.telegramFailures--;
          return HttpResponse.json({ ok: false, error_code: 502, description: "Bad Gateway" }, { status: 502 });
        }
        state.telegram.push({
          token: decodeURIComponent(token!),
          chatId: String(body.chat_id),
          text: String(body.text),
          raw,
        });
        return HttpResponse.json({
          ok: true,
          result: {
            message_id: state.telegram.length,
            date: Math.floor(Date.now() / 1000),
            chat: { id: Number(body.chat_id), type: "private" },
            text: body.text,
          },
        });
      }
      if (method === "getUpdates") {
        const offset = Number(body.offset ?? 0);
        state.getUpdatesOffsets.push(offset);
        return HttpResponse.json({ ok: true, result: state.updates.filter((u) => u.update_id >= offset) });
      }
      return HttpResponse.json({ ok: false, error_code: 404, description: "Not Found: method" }, { status: 404 });
    }),
    http.post(DISCORD_URL, async ({ request }) => {
      state.webhookCalls++;
      const body = await request.text();
      if (state.webhookDelayMs > 0) await delay(state.webhookDelayMs);
      if (state.webhookFailures > 0) {
        state.webhookFailures--;
        return new HttpResponse(
          `upstream error while posting to ${DISCORD_URL} with ${request.headers.get("X-PerpDesk-Signature")}`,
          { status: 500 },
        );
      }
      state.webhook.push({
        body,
        json: JSON.parse(body) as Record<string, unknown>,
        signature: request.headers.get("X-PerpDesk-Signature"),
      });
      return new HttpResponse(null, { status: 204 });
    }),
  ];
  return {
    state,
    handlers,
    /** A message in a chat, as Telegram hands it to getUpdates. */
    queueMessage(chatId: number, text: string) {
      const command = text.startsWith("/")
        ? [{ type: "bot_command" as const, offset: 0, length: text.split(" ")[0]!.length }]
        : undefined;
      state.updates.push({
        update_id: nextUpdate++,
        message: {
          message_id: nextUpdate,
          date: Math.floor(Date.now() / 1000),
          text,
          chat: { id: chatId, type: "private" },
          from: { id: chatId, is_bot: false, first_name: "Someone" },
          entities: command,
        },
      });
    },
  };
}

export interface SmtpMessage {
  user: string | undefined;
  from: string;
  to: string[];
  raw: string;
}

/** A local SMTP server on a free port that accepts `user`/`password` and keeps each message. */
export async function startSmtpSink(user: string, password: string) {
  const messages: SmtpMessage[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    authOptional: false,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) return callback(null, { user: auth.username });
      return callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        messages.push({
          user: session.user as string | undefined,
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve((server.server.address() as { port: number }).port));
  });
  return { port, messages, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
