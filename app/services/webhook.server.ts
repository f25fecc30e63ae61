// The TradingView webhook (DESIGN.md "The webhook contract"): authenticate with the shared
// secret, validate, deduplicate, then write the signal and its job in ONE transaction and
// answer. The exchange is never called here.
import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import { decryptSecret, encryptSecret, randomSecret, safeEqual } from "#app/core/crypto.ts";
import { parseWebhookSignal } from "#app/core/schemas/webhook-signal.ts";
import { type NewActivityLog, recordActivity } from "#db/queries/activity-logs.ts";
import { clearSettingsCache, getSetting, getSettingCached, setSetting } from "#db/queries/settings.ts";
import { findSignalsByDedupeKeys } from "#db/queries/signals.ts";
import { getEmergencyStop, getTradingConfig } from "#db/queries/trading-state.ts";
import { newId } from "#db/queries/util.ts";
import type { DB } from "#db/schema.ts";
import { BodyTooLargeError, readLimitedText } from "#app/utils/api.server.ts";
import { OverloadedError, signalWriterFor } from "./signal-writer.server.ts";

export const WEBHOOK_PLATFORM = "tradingview";
export const WEBHOOK_PATH = `/api/webhook/${WEBHOOK_PLATFORM}`;
export const WEBHOOK_SECRET_KEY = "webhook_secret";
export const MAX_BODY_BYTES = 64 * 1024;
/** Same body within this window = the same alert delivered twice. */
export const DEDUPE_WINDOW_MS = 60_000;

interface StoredSecret {
  encrypted: string;
  createdAt: string;
}

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

export async function rotateWebhookSecret(db: Kysely<DB>, appSecret: string, by: string): Promise<string> {
  const secret = randomSecret();
  await db.transaction().execute(async (trx) => {
    await setSetting(trx, WEBHOOK_SECRET_KEY, { encrypted: encryptSecret(secret, appSecret), createdAt: new Date().toISOString() });
    await recordActivity(trx, { type: "webhook", level: "warning", message: `Webhook secret rotated by ${by}` });
  });
  clearSettingsCache();
  return secret;
}

export type WebhookOutcome =
  | { status: 200; body: { success: true; signalId: string; status: "queued" | "skipped" | "duplicate"; duplicate?: true; reason?: string } }
  | { status: 400 | 401 | 413 | 503; body: { success: false; error: string; field?: string } };

function parseBody(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
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

async function handle(db: Kysely<DB>, input: WebhookInput): Promise<WebhookOutcome> {
  const now = input.now ?? Date.now();
  const writer = signalWriterFor(db);
  const reject = async (status: 400 | 401, error: string, field?: string) => {
    await writer.write({
      logs: [{ type: "webhook", level: "warning", message: `Webhook rejected: ${error}`, data: { ip: input.ip, field, status } }],
    });
    return { status, body: { success: false as const, error, ...(field ? { field } : {}) } };
  };

  const body = parseBody(input.rawBody);
  if (!body) return reject(400, "Request body must be a JSON object");

  const presented = typeof body.secret === "string" ? body.secret : input.token;
  const expected = await getWebhookSecretCached(db, input.appSecret);
  if (!presented || !safeEqual(presented, expected)) return reject(401, "Invalid or missing webhook secret");

  const parsed = parseWebhookSignal(body);
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

  const blockedBy = emergency.active
    ? "Emergency stop is active: signal stored, no order sent"
    : !config.autoTradingEnabled
      ? "Auto trading is disabled: signal stored, no order sent"
      : null;
  const id = newId();
  const label = `${signal.action.toUpperCase()} ${signal.quantity} ${signal.symbol}${signal.price ? ` @ ${signal.price}` : ""}`;
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
        status: blockedBy ? "skipped" : "queued",
        statusReason: blockedBy,
        createdAt: now,
      },
      job: { task: "execute-signal", payload: { signalId: id }, jobKey: `signal:${id}`, signalId: id, cancelledBecause: blockedBy },
      logs: [
        {
          type: "signal",
          level: blockedBy ? "warning" : "info",
          message: blockedBy ? `Signal received: ${label}. ${blockedBy}` : `Signal received: ${label}`,
          data: { signalId: id, action: signal.action, symbol: signal.symbol, quantity: signal.quantity, orderType: signal.orderType, price: signal.price, strategy: signal.strategy },
        },
      ],
      events: [
        {
          type: "new_signal",
          data: { id, action: signal.action, symbol: signal.symbol, quantity: signal.quantity, price: signal.price, orderType: signal.orderType, status: blockedBy ? "skipped" : "queued" },
        },
      ],
      duplicateLogs: [duplicateLog(null, input.ip)],
    });
    if (stored.duplicateOf) return duplicateOutcome(stored.duplicateOf);
  } catch (error) {
    if (error instanceof OverloadedError) return BUSY;
    // The commit failed: 503 makes TradingView deliver again.
    console.error(`[webhook] could not store signal: ${(error as Error).message}`);
    return { status: 503, body: { success: false, error: "Signal could not be stored, please retry" } };
  }
  return {
    status: 200,
    body: { success: true, signalId: id, status: blockedBy ? "skipped" : "queued", ...(blockedBy ? { reason: blockedBy } : {}) },
  };
}

function duplicateLog(signalId: string | null, ip: string | null): NewActivityLog {
  return { type: "webhook", level: "info", message: "Duplicate alert ignored (already received)", data: { signalId, ip } };
}

function duplicateOutcome(signalId: string): WebhookOutcome {
  return { status: 200, body: { success: true, signalId, status: "duplicate", duplicate: true } };
}

/** The webhook secret through the settings cache (rotation clears it in this process). */
async function getWebhookSecretCached(db: Kysely<DB>, appSecret: string): Promise<string> {
  const stored = await getSettingCached<StoredSecret>(db, WEBHOOK_SECRET_KEY);
  if (!stored) return getWebhookSecret(db, appSecret);
  let plain = decrypted.get(stored);
  if (plain === undefined) {
    plain = decryptSecret(stored.encrypted, appSecret);
    decrypted.set(stored, plain);
  }
  return plain;
}
const decrypted = new WeakMap<StoredSecret, string>();

/** Whatever happens, TradingView gets an answer before it gives up (~3 s). */
const DEADLINE_MS = 2000;

const json = (body: unknown, status: number) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" } });

/**
 * POST /api/webhook/tradingview as plain HTTP (mounted on Hono in server.ts, ahead of
 * Remix: the hot path skips route matching and the loader machinery). TradingView sends
 * JSON as application/json or text/plain; the secret comes in the body or `?token=`.
 */
export async function webhookHttp(
  db: Kysely<DB>,
  request: Request,
  platform: string,
  context: { appSecret: string; ip: string | null },
): Promise<Response> {
  if (platform !== WEBHOOK_PLATFORM) return json({ error: "Not found" }, 404);
  if (request.method === "GET" || request.method === "HEAD") return json({ error: "Method GET not allowed: TradingView sends POST" }, 405);
  if (request.method !== "POST") return json({ error: `Method ${request.method} not allowed` }, 405);
  const started = Date.now();
  let rawBody: string;
  try {
    rawBody = await readLimitedText(request, MAX_BODY_BYTES);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    await signalWriterFor(db)
      .write({ logs: [{ type: "webhook", level: "warning", message: "Webhook rejected: body larger than 64 KiB", data: { ip: context.ip, status: 413 } }] })
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
