// The TradingView webhook (docs/spec/webhook.md): authenticate with the shared
// secret, validate, deduplicate, then write the signal and its job in ONE transaction and
// answer. The exchange is never called here.
import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import { DecryptError, decryptSecret, encryptSecret, randomSecret, safeEqual } from "#app/core/crypto.ts";
import { parseWebhookSignal } from "#app/core/schemas/webhook-signal.ts";
import { signalLabel } from "#app/core/signal-text.ts";
import { parseFireTime, plausibleFireTime } from "#app/core/timeline.ts";
import { type NewActivityLog, recordActivity } from "#db/queries/activity-logs.ts";
import { clearSettingsCache, getSetting, getSettingCached, setSetting } from "#db/queries/settings.ts";
import { findSignalsByDedupeKeys } from "#db/queries/signals.ts";
import { DEFAULT_STRATEGY_KEY, recordStrategyHeartbeat } from "#db/queries/heartbeats.ts";
import { type StoredStrategy, strategyForSecretCached } from "#db/queries/strategies.ts";
import { getEmergencyStop, getTradingConfig } from "#db/queries/trading-state.ts";
import { getOpenPosition } from "#db/queries/positions.ts";
import { mayReduce } from "#app/core/orders/exit-only.ts";
import { newId } from "#db/queries/util.ts";
import type { DB } from "#db/schema.ts";
import { BodyTooLargeError, readLimitedText } from "#app/utils/api.server.ts";
import { OverloadedError, signalWriterFor } from "./signal-writer.server.ts";
import { RejectionTally, activeAllowlist, addressAllowed } from "./webhook-guard.server.ts";
import { recordAudit } from "#db/queries/audit.ts";
import { ROTATION_GRACES, type RotationGrace } from "#app/core/webhook-rotation.ts";

export const WEBHOOK_PLATFORM = "tradingview";
export const WEBHOOK_PATH = `/api/webhook/${WEBHOOK_PLATFORM}`;
export const WEBHOOK_SECRET_KEY = "webhook_secret";
export const MAX_BODY_BYTES = 64 * 1024;
/** Same body within this window = the same alert delivered twice. */
export const DEDUPE_WINDOW_MS = 60_000;
/** Webhook Config's "Strict ticker mapping": only exact product symbols are accepted. */
export const STRICT_TICKERS_SETTING = "webhook_strict_tickers";

interface StoredSecret {
  encrypted: string;
  createdAt: string;
  /**
   * The secret before the last rotation, still accepted until `until` (epoch ms) when the admin
   * chose a grace period (issue 25): encrypted like the current one. Absent: none.
   */
  previous?: { encrypted: string; until: number } | null;
}

export {
  ROTATION_GRACES,
  ROTATION_GRACE_LABELS,
  type RotationGrace,
  isRotationGrace,
} from "#app/core/webhook-rotation.ts";

/** The webhook secret, created on first use (encrypted at rest with APP_SECRET). */
export async function getWebhookSecret(db: Kysely<DB>, appSecret: string): Promise<string> {
  const stored = await getSetting<StoredSecret>(db, WEBHOOK_SECRET_KEY);
  if (stored) return decryptSecret(stored.encrypted, appSecret);
  const secret = randomSecret();
  await db
    .insertInto("settings")
    .ignore()
    .values({
      key: WEBHOOK_SECRET_KEY,
      value: JSON.stringify({ encrypted: encryptSecret(secret, appSecret), createdAt: new Date().toISOString() }),
      updated_at: Date.now(),
    })
    .execute();
  // Another process may have won the race: read back what is stored.
  const winner = (await getSetting<StoredSecret>(db, WEBHOOK_SECRET_KEY))!;
  return decryptSecret(winner.encrypted, appSecret);
}

/**
 * A new webhook secret. With a grace period (`grace`, default none) the secret it replaces keeps
 * working until now + the period, so live alerts are not lost while TradingView is updated;
 * after it, it is refused like any wrong secret. A previous secret this APP_SECRET cannot read
 * gets no grace (it could not be checked). `now`: the clock, injectable for tests.
 */
export async function rotateWebhookSecret(
  db: Kysely<DB>,
  appSecret: string,
  by: string,
  options: { grace?: RotationGrace; now?: number } = {},
): Promise<string> {
  const secret = randomSecret();
  const now = options.now ?? Date.now();
  const graceMs = ROTATION_GRACES[options.grace ?? "none"];
  await db.transaction().execute(async (trx) => {
    const stored = graceMs > 0 ? await getSetting<StoredSecret>(trx, WEBHOOK_SECRET_KEY) : null;
    let readable = false;
    if (stored) {
      try {
        decryptSecret(stored.encrypted, appSecret);
        readable = true;
      } catch (error) {
        if (!(error instanceof DecryptError)) throw error;
      }
    }
    const previous = stored && readable ? { encrypted: stored.encrypted, until: now + graceMs } : null;
    await setSetting(trx, WEBHOOK_SECRET_KEY, {
      encrypted: encryptSecret(secret, appSecret),
      createdAt: new Date(now).toISOString(),
      previous,
    } satisfies StoredSecret);
    const until = previous ? new Date(previous.until).toISOString() : null;
    await recordActivity(trx, {
      type: "webhook",
      level: "warning",
      message: until
        ? `Webhook secret rotated by ${by}: the previous secret keeps working until ${until}`
        : `Webhook secret rotated by ${by}`,
    });
    await recordAudit(trx, {
      actor: by,
      action: "webhook_secret.rotate",
      target: "webhook_secret",
      before: { secret: "previous" },
      after: { secret: "new", previousValidUntil: until },
    });
  });
  clearSettingsCache();
  return secret;
}

/** Until when the previous secret is still accepted (epoch ms), or null: none, or its grace is over. */
export async function previousSecretUntil(db: Kysely<DB>, now = Date.now()): Promise<number | null> {
  const stored = await getSetting<StoredSecret>(db, WEBHOOK_SECRET_KEY);
  const until = stored?.previous?.until;
  return typeof until === "number" && until > now ? until : null;
}

export type WebhookOutcome =
  | {
      status: 200;
      body: {
        success: true;
        signalId: string;
        status: "queued" | "skipped" | "duplicate";
        duplicate?: true;
        reason?: string;
      };
    }
  // A heartbeat alert: `expected` says whether the strategy is set up to send them.
  | { status: 200; body: { success: true; heartbeat: true; expected: boolean } }
  | { status: 400 | 401 | 413 | 429 | 503; body: { success: false; error: string; field?: string } }
  // A strategy's secret naming a symbol the strategy may not trade: stored as failed, refused.
  | { status: 403; body: { success: false; error: string; signalId: string; status: "failed" } };

function parseBody(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * A string with an unpaired UTF-16 surrogate (JSON can spell one as "\ud800"): databases
 * store it as U+FFFD, so the signal read back would not match what was written.
 */
function hasBrokenText(value: unknown, depth = 0): boolean {
  if (typeof value === "string")
    return /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(value);
  if (depth > 20 || value === null || typeof value !== "object") return false;
  return Object.entries(value).some(([key, v]) => hasBrokenText(key) || hasBrokenText(v, depth + 1));
}

/** The payload kept on the signal: what TradingView sent, minus the secret. */
function storedPayload(body: Record<string, unknown>): Record<string, unknown> {
  const { secret: _secret, token: _token, ...rest } = body;
  return rest;
}

export interface WebhookInput {
  rawBody: string;
  token: string | null;
  appSecret: string;
  ip: string | null;
  now?: number;
}

export async function handleWebhook(db: Kysely<DB>, input: WebhookInput): Promise<WebhookOutcome> {
  try {
    return await handle(db, input);
  } catch (error) {
    if (error instanceof OverloadedError) return BUSY;
    throw error;
  }
}

const BUSY: WebhookOutcome = { status: 503, body: { success: false, error: "Server busy, please retry" } };
const TOO_MANY_REJECTIONS: WebhookOutcome = {
  status: 429,
  body: { success: false, error: "Too many rejected requests from this address: wait a minute" },
};

const tallies = new WeakMap<object, RejectionTally>();
/** This process's rejection tally for the database, with its once-a-minute summary writer. */
export function tallyFor(db: Kysely<DB>): RejectionTally {
  let tally = tallies.get(db);
  if (!tally) {
    const created = new RejectionTally();
    tally = created;
    tallies.set(db, created);
    const timer = setInterval(() => void flushRejections(db).catch(() => undefined), 15_000);
    (timer as { unref?: () => void }).unref?.();
  }
  return tally;
}

/** Writes the summary lines of finished minutes (all of them with `all`, e.g. at shutdown or in tests). */
export async function flushRejections(db: Kysely<DB>, all = false): Promise<number> {
  const lines = tallyFor(db).flush(all);
  if (lines.length > 0) await signalWriterFor(db).write({ logs: lines });
  return lines.length;
}

/**
 * The stored webhook secret cannot be decrypted (APP_SECRET changed): answer 503 (TradingView
 * retries), log it once per process and mark the webhook component in error.
 */
const unreadableLogged = new WeakSet<object>();
async function secretUnreadable(db: Kysely<DB>, writer: ReturnType<typeof signalWriterFor>): Promise<WebhookOutcome> {
  if (!unreadableLogged.has(db)) {
    unreadableLogged.add(db);
    await writer
      .write({
        logs: [
          {
            type: "webhook",
            level: "error",
            message:
              "Webhook secret cannot be decrypted: APP_SECRET has changed since it was stored. Restore APP_SECRET, or rotate the secret on Webhook Config and update your TradingView alerts.",
            data: {},
          },
        ],
      })
      .catch(() => undefined);
  }
  return {
    status: 503,
    body: {
      success: false,
      error:
        "Webhook secret unreadable on the server (APP_SECRET changed): the operator must restore APP_SECRET or rotate the secret",
    },
  };
}

async function handle(db: Kysely<DB>, input: WebhookInput): Promise<WebhookOutcome> {
  const now = input.now ?? Date.now();
  const writer = signalWriterFor(db);
  const tally = tallyFor(db);
  // Rejections are tallied (webhook-guard.server.ts): one line per source and reason a
  // minute, and a source rejected too often gets 429 with nothing written.
  const reject = async (status: 400 | 401, error: string, field?: string): Promise<WebhookOutcome> => {
    if (tally.limited(input.ip)) {
      tally.record(input.ip, status, error);
      return TOO_MANY_REJECTIONS;
    }
    const line = tally.record(input.ip, status, error);
    if (line) await writer.write({ logs: [{ ...line, data: { ...line.data, ...(field ? { field } : {}) } }] });
    return { status, body: { success: false as const, error, ...(field ? { field } : {}) } };
  };

  const body = parseBody(input.rawBody);
  if (!body) return reject(400, "Request body must be a JSON object");
  if (hasBrokenText(body)) return reject(400, "Request body contains text that is not valid Unicode");

  const presented = typeof body.secret === "string" ? body.secret : input.token;
  let expected: string | null = null;
  try {
    expected = await getWebhookSecretCached(db, input.appSecret);
  } catch (error) {
    if (!(error instanceof DecryptError)) throw error;
  }
  if (!presented) return reject(401, "Invalid or missing webhook secret");
  // The global secret is the "default" strategy; any other secret must be a strategy's
  // (docs/decisions/027-strategies.md), found through a per-process cache.
  let strategy: StoredStrategy | null = null;
  // The secret before the last rotation, during the grace period the admin chose (issue 25).
  const graceAccepted =
    expected === null || !safeEqual(presented, expected)
      ? await previousSecretMatches(db, input.appSecret, presented, now)
      : false;
  if (!graceAccepted && (expected === null || !safeEqual(presented, expected))) {
    strategy = await strategyForSecretCached(db, presented);
    if (!strategy)
      return expected === null ? secretUnreadable(db, writer) : reject(401, "Invalid or missing webhook secret");
  }

  // A heartbeat alert (issue 12): proof the strategy's alerts still arrive; no signal, no order.
  if (body.action === "heartbeat") {
    const expected = await recordStrategyHeartbeat(db, strategy?.id ?? DEFAULT_STRATEGY_KEY, now);
    return { status: 200, body: { success: true, heartbeat: true, expected } };
  }

  const strict = (await getSettingCached<boolean>(db, STRICT_TICKERS_SETTING)) === true;
  const parsed = parseWebhookSignal(body, { strict });
  if (!parsed.ok) return reject(400, parsed.error, parsed.field);
  const signal = parsed.signal;

  const bodyHash = createHash("sha256").update(input.rawBody).digest("hex");
  const bucket = Math.floor(now / DEDUPE_WINDOW_MS);
  const dedupeKey = signal.alertId ? `id:${signal.alertId}` : `body:${bodyHash.slice(0, 48)}:${bucket}`;
  const previousKey = signal.alertId ? null : `body:${bodyHash.slice(0, 48)}:${bucket - 1}`;

  // One read for both windows (this minute's key and, for body hashes, the last minute's).
  const [earlier, config, emergency] = await Promise.all([
    findSignalsByDedupeKeys(db, previousKey ? [dedupeKey, previousKey] : [dedupeKey]),
    getTradingConfig(db, { cached: true }),
    getEmergencyStop(db, { cached: true }),
  ]);
  const same =
    earlier.find((s) => s.dedupeKey === dedupeKey) ??
    earlier.find((s) => s.dedupeKey === previousKey && now - Date.parse(s.createdAt) < DEDUPE_WINDOW_MS);
  if (same) {
    await writer.write({ logs: [duplicateLog(same.id, input.ip)] });
    return duplicateOutcome(same.id);
  }

  // A strategy's secret trades only the strategy's symbols: anything else is refused (stored failed).
  const refusedBy =
    strategy && strategy.allowedSymbols.length > 0 && !strategy.allowedSymbols.includes(signal.symbol)
      ? `${signal.symbol} is not allowed for strategy ${strategy.name}`
      : null;
  // The emergency stop blocks entries, never exits (docs/decisions/019): an alert that may reduce
  // the open position is queued, and the worker sends only that reduction, reduce-only.
  const exitDuringStop = emergency.active && !refusedBy && mayReduce(await getOpenPosition(db, signal.symbol), signal);
  const blockedBy = refusedBy
    ? refusedBy
    : strategy && !strategy.enabled
      ? `Strategy ${strategy.name} is disabled: signal stored, no order sent`
      : emergency.active && !exitDuringStop
        ? "Emergency stop is active: signal stored, no order sent"
        : !config.autoTradingEnabled
          ? "Auto trading is disabled: signal stored, no order sent"
          : null;
  const strategyId = strategy?.id ?? null;
  const status = refusedBy ? "failed" : blockedBy ? "skipped" : "queued";
  const id = newId();
  // A target alert is named by its target, not its ignored quantity (issue 25).
  const label = signalLabel({ ...signal, payload: body });
  try {
    const stored = await writer.write({
      signal: {
        id,
        action: signal.action,
        symbol: signal.symbol,
        orderType: signal.orderType,
        price: signal.price,
        quantity: signal.quantity,
        payload: storedPayload(body),
        strategy: signal.strategy,
        signalTime: signal.timestamp,
        dedupeKey,
        status,
        statusReason: blockedBy,
        createdAt: now,
        strategyId,
      },
      job: {
        task: "execute-signal",
        payload: { signalId: id },
        jobKey: `signal:${id}`,
        signalId: id,
        cancelledBecause: blockedBy,
      },
      logs: [
        {
          type: "signal",
          level: refusedBy ? "error" : blockedBy ? "warning" : "info",
          message: `Signal received${strategy ? ` (strategy ${strategy.name})` : ""}: ${label}${blockedBy ? `. ${blockedBy}` : exitDuringStop ? `. ${EXIT_DURING_STOP}` : ""}`,
          data: {
            signalId: id,
            action: signal.action,
            symbol: signal.symbol,
            quantity: signal.quantity,
            orderType: signal.orderType,
            price: signal.price,
            strategy: signal.strategy,
            ...(strategyId ? { strategyId } : {}),
            ...(refusedBy ? { notified: true } : {}),
          },
        },
      ],
      // A refusal (403) is decided here: its notification is queued with the signal, in its transaction (issue 25, decision 046).
      ...(refusedBy
        ? {
            notification: {
              kind: "alert_failed" as const,
              title: `Alert refused: ${label}`,
              body: `Alert ${label}${strategy ? ` (strategy ${strategy.name})` : ""} refused: ${refusedBy}`,
            },
          }
        : {}),
      events: [
        {
          type: "new_signal",
          data: {
            id,
            action: signal.action,
            symbol: signal.symbol,
            quantity: signal.quantity,
            price: signal.price,
            orderType: signal.orderType,
            status,
            ...(strategyId ? { strategyId } : {}),
          },
        },
      ],
      duplicateLogs: [duplicateLog(null, input.ip)],
      timeline: { firedAt: plausibleFireTime(parseFireTime(body.timenow) ?? signal.timestamp, now), receivedAt: now },
    });
    if (stored.duplicateOf) return duplicateOutcome(stored.duplicateOf);
  } catch (error) {
    if (error instanceof OverloadedError) return BUSY;
    // The commit failed: 503 makes TradingView deliver again.
    console.error(`[webhook] could not store signal: ${(error as Error).message}`);
    return { status: 503, body: { success: false, error: "Signal could not be stored, please retry" } };
  }
  if (refusedBy) return { status: 403, body: { success: false, error: refusedBy, signalId: id, status: "failed" } };
  return {
    status: 200,
    body: {
      success: true,
      signalId: id,
      status: blockedBy ? "skipped" : "queued",
      ...(blockedBy ? { reason: blockedBy } : {}),
    },
  };
}

const EXIT_DURING_STOP =
  "Emergency stop is active: queued as an exit, only the part that reduces the open position is sent (reduce-only)";

function duplicateLog(signalId: string | null, ip: string | null): NewActivityLog {
  return {
    type: "webhook",
    level: "info",
    message: "Duplicate alert ignored (already received)",
    data: { signalId, ip },
  };
}

function duplicateOutcome(signalId: string): WebhookOutcome {
  return { status: 200, body: { success: true, signalId, status: "duplicate", duplicate: true } };
}

/** The webhook secret through the settings cache (rotation clears it in this process). */
/** Whether `presented` is the previous secret and its grace period has not ended at `now`. */
async function previousSecretMatches(
  db: Kysely<DB>,
  appSecret: string,
  presented: string,
  now: number,
): Promise<boolean> {
  const stored = await getSettingCached<StoredSecret>(db, WEBHOOK_SECRET_KEY);
  const previous = stored?.previous;
  if (!previous || !(previous.until > now)) return false;
  let plain = decryptedPrevious.get(previous);
  if (plain?.appSecret !== appSecret) {
    try {
      plain = { appSecret, plain: decryptSecret(previous.encrypted, appSecret) };
    } catch (error) {
      if (error instanceof DecryptError) return false;
      throw error;
    }
    decryptedPrevious.set(previous, plain);
  }
  return safeEqual(presented, plain.plain);
}
const decryptedPrevious = new WeakMap<object, { appSecret: string; plain: string }>();

async function getWebhookSecretCached(db: Kysely<DB>, appSecret: string): Promise<string> {
  const stored = await getSettingCached<StoredSecret>(db, WEBHOOK_SECRET_KEY);
  if (!stored) return getWebhookSecret(db, appSecret);
  const cached = decrypted.get(stored);
  if (cached?.appSecret === appSecret) return cached.plain;
  const plain = decryptSecret(stored.encrypted, appSecret);
  decrypted.set(stored, { appSecret, plain });
  return plain;
}
const decrypted = new WeakMap<StoredSecret, { appSecret: string; plain: string }>();

/** False when a stored webhook secret exists and this APP_SECRET cannot decrypt it (health). */
export async function webhookSecretReadable(db: Kysely<DB>, appSecret: string): Promise<boolean> {
  try {
    await getWebhookSecretCached(db, appSecret);
    return true;
  } catch (error) {
    if (error instanceof DecryptError) return false;
    throw error;
  }
}

/** Whatever happens, TradingView gets an answer before it gives up (~3 s). */
const DEADLINE_MS = 2000;

const json = (body: unknown, status: number) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" },
  });

/**
 * POST /api/webhook/tradingview as plain HTTP (mounted on Hono in server.ts, ahead of
 * Remix: the hot path skips route matching and the loader machinery). TradingView sends
 * JSON as application/json or text/plain; the secret comes in the body or `?token=`.
 */
export async function webhookHttp(
  db: Kysely<DB>,
  request: Request,
  platform: string,
  context: { appSecret: string; ip: string | null; allowlist?: string },
): Promise<Response> {
  if (platform !== WEBHOOK_PLATFORM) return json({ error: "Not found" }, 404);
  const allowlist = await activeAllowlist(db, context.allowlist);
  if (!addressAllowed(context.ip, allowlist)) {
    const tally = tallyFor(db);
    const line = tally.limited(context.ip)
      ? (tally.record(context.ip, 403, "sender not in the allowlist"), null)
      : tally.record(context.ip, 403, "sender not in the allowlist");
    if (line)
      await signalWriterFor(db)
        .write({ logs: [line] })
        .catch(() => undefined);
    return json({ success: false, error: "Sender address not allowed" }, 403);
  }
  if (request.method === "GET" || request.method === "HEAD")
    return json({ error: "Method GET not allowed: TradingView sends POST" }, 405);
  if (request.method !== "POST") return json({ error: `Method ${request.method} not allowed` }, 405);
  const started = Date.now();
  let rawBody: string;
  try {
    rawBody = await readLimitedText(request, MAX_BODY_BYTES);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    const line = tallyFor(db).record(context.ip, 413, "body larger than 64 KiB");
    if (line)
      await signalWriterFor(db)
        .write({ logs: [line] })
        .catch(() => undefined);
    return json({ success: false, error: "Request body too large (limit 64 KiB)" }, 413);
  }
  const token = new URL(request.url).searchParams.get("token");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    handleWebhook(db, { rawBody, token, appSecret: context.appSecret, ip: context.ip, now: started }),
    new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), Math.max(0, DEADLINE_MS - (Date.now() - started)));
    }),
  ]);
  clearTimeout(timer);
  // If the commit lands after all, TradingView's retry is recognised as a duplicate.
  if (!outcome) return json({ success: false, error: "Signal not confirmed in time, please retry" }, 503);
  return json(outcome.body, outcome.status);
}

/** Webhook Config's "Strict ticker mapping" (issue 11): on, only the products' own symbols are accepted. */
export async function getStrictTickers(db: Kysely<DB>): Promise<boolean> {
  return (await getSetting<boolean>(db, STRICT_TICKERS_SETTING)) === true;
}

export async function saveStrictTickers(db: Kysely<DB>, by: string, on: boolean): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const before = (await getSetting<boolean>(trx, STRICT_TICKERS_SETTING)) === true;
    await setSetting(trx, STRICT_TICKERS_SETTING, on);
    // Unchanged (turning off what is off): no audit row (issue 23).
    await recordAudit(trx, {
      actor: by,
      action: "strict_tickers.update",
      target: "strict_tickers",
      before: { strictTickers: before },
      after: { strictTickers: on },
    });
    await recordActivity(trx, {
      type: "system",
      level: "info",
      message: on
        ? `${by} turned strict ticker mapping on: alerts must name a product (BTC-PERP ...); other tickers are refused with a 400`
        : `${by} turned strict ticker mapping off: TradingView tickers (BINANCE:ETHUSDT, ETHUSDT.P ...) map to their perpetual`,
      data: { by, strictTickers: on },
    });
  });
  clearSettingsCache();
}
