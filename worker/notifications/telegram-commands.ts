// Telegram commands (decision 030): /status, /positions, /pnl and /stop, answered only in the
// configured chat (the owner's). The price leader long-polls getUpdates through grammy (one
// poller, so Telegram never sees two conflicting getUpdates); the update offset is a setting,
// so a restart does not answer a command twice. A message from any other chat gets no answer
// and changes nothing. /stop activates the emergency stop through the same service as the
// header button, with "telegram" as the audit entry's actor; no command can open a trade.
import { Bot, type Context } from "grammy";
import type { Update } from "grammy/types";
import type { Kysely } from "kysely";
import { scrub } from "../../app/core/notifications/format.ts";
import { SEND_TIMEOUT_MS, secretValues, telegramApiRoot } from "../../app/core/notifications/channels.ts";
import { activateEmergencyStop } from "../../db/queries/emergency-stop.ts";
import { loadChannelConfigs } from "../../db/queries/notifications.ts";
import { getSetting, setSetting } from "../../db/queries/settings.ts";
import type { DB } from "../../db/schema.ts";
import { isPriceLeader } from "../monitor/price-loop.ts";
import { pnlText, positionsText, statusText } from "./summaries.ts";

export const TELEGRAM_OFFSET_KEY = "telegram_update_offset";
export const TELEGRAM_ACTOR = "telegram";
const HELP =
  "Commands: /status, /positions, /pnl, /stop (emergency stop: no new positions; stops and closes keep working).";

/** The bot for one token and owner chat: grammy's command routing behind an owner-only gate. */
export function commandBot(db: Kysely<DB>, token: string, ownerChatId: string, secrets: () => string[]): Bot {
  const bot = new Bot(token, {
    client: {
      apiRoot: telegramApiRoot(),
      timeoutSeconds: 60,
      fetch: ((input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) =>
        globalThis.fetch(input, init)) as unknown as typeof fetch,
      sensitiveLogs: false,
    },
  });
  // Only the owner's chat: anything else ends here, unanswered.
  bot.use(async (ctx, next) => {
    if (
      String(ctx.chat?.id ?? "") !== ownerChatId &&
      (ctx.chat?.username ? `@${ctx.chat.username}` : "") !== ownerChatId
    )
      return;
    await next();
  });
  const answer = (ctx: Context, text: string) => ctx.reply(scrub(text, secrets()).slice(0, 4096));
  bot.command("status", async (ctx) => answer(ctx, await statusText(db)));
  bot.command("positions", async (ctx) => answer(ctx, await positionsText(db)));
  bot.command("pnl", async (ctx) => answer(ctx, await pnlText(db)));
  bot.command("stop", async (ctx) => {
    const result = await activateEmergencyStop(db, TELEGRAM_ACTOR);
    await answer(ctx, `${result.message}.`);
  });
  bot.command(["start", "help"], (ctx) => answer(ctx, HELP));
  bot.on("message", (ctx) => answer(ctx, HELP));
  bot.catch((error) => console.warn(`[worker] telegram command failed: ${scrub(error.message, secrets())}`));
  return bot;
}

/**
 * One long poll: fetches the updates after the stored offset, handles each, stores the new
 * offset. Returns how many updates were handled. `timeoutSeconds` 0 answers at once (tests).
 */
export async function pollTelegramOnce(
  db: Kysely<DB>,
  options: { appSecret: string; timeoutSeconds?: number; signal?: AbortSignal; bots?: Map<string, Bot> },
): Promise<number | null> {
  const configs = await loadChannelConfigs(db, options.appSecret);
  const telegram = configs.find((c) => c.channel === "telegram");
  const token = telegram?.secrets.botToken;
  const chatId = String(telegram?.settings.chatId ?? "");
  if (!telegram?.enabled || !token || !chatId) return null;
  const secrets = () => secretValues(configs);
  const cacheKey = `${token}|${chatId}`;
  let bot = options.bots?.get(cacheKey);
  if (!bot) {
    bot = commandBot(db, token, chatId, secrets);
    await bot.init(); // getMe: the bot's username, so "/status@my_bot" is routed too
    options.bots?.clear();
    options.bots?.set(cacheKey, bot);
  }
  const offset = (await getSetting<number>(db, TELEGRAM_OFFSET_KEY)) ?? 0;
  const updates: Update[] = await bot.api.getUpdates(
    { offset, timeout: options.timeoutSeconds ?? 25, allowed_updates: ["message"] },
    options.signal as Parameters<Bot["api"]["getUpdates"]>[1],
  );
  for (const update of updates) {
    await bot.handleUpdate(update);
    await setSetting(db, TELEGRAM_OFFSET_KEY, update.update_id + 1);
  }
  return updates.length;
}

/** Long-polls while this worker is the price leader and Telegram is set up; returns stop(). */
export function startTelegramCommands(options: {
  db: Kysely<DB>;
  workerId: string;
  appSecret: string;
  idleMs?: number;
}) {
  let running = true;
  const abort = new AbortController();
  const bots = new Map<string, Bot>();
  let lastError = "";
  const loop = (async () => {
    while (running) {
      let handled: number | null = null;
      const started = Date.now();
      try {
        if (await isPriceLeader(options.db, options.workerId)) {
          handled = await pollTelegramOnce(options.db, { appSecret: options.appSecret, signal: abort.signal, bots });
        }
        lastError = "";
      } catch (error) {
        if (!running) break;
        bots.clear();
        let secrets: string[] = [];
        try {
          secrets = secretValues(await loadChannelConfigs(options.db, options.appSecret));
        } catch {
          // undecryptable: nothing of it can be in the message either
        }
        const message = scrub((error as Error).message, secrets);
        if (message !== lastError) {
          lastError = message;
          console.warn(`[worker] telegram polling failed: ${message}`);
        }
        handled = null;
      }
      // Not set up, not the leader, or an error: look again later (a poll itself waits up to 25 s;
      // one that answered at once, e.g. a proxy that does not hold it, still waits a second).
      if (handled === null && running)
        await new Promise((resolve) => setTimeout(resolve, options.idleMs ?? Math.min(SEND_TIMEOUT_MS, 5_000)));
      else if (running && Date.now() - started < 1_000)
        await new Promise((resolve) => setTimeout(resolve, 1_000 - (Date.now() - started)));
    }
  })();
  return async () => {
    running = false;
    abort.abort();
    await loop;
  };
}
