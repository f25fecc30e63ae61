// The TradingView webhook (DESIGN.md "The webhook contract"): authenticate with the shared
// secret, validate, deduplicate, then write the signal and its job in ONE transaction and
// answer. The exchange is never called here.
import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import { decryptSecret, encryptSecret, randomSecret, safeEqual } from "#app/core/crypto.ts";
import { parseWebhookSignal } from "#app/core/schemas/webhook-signal.ts";
import { recordActivity } from "#db/queries/activity-logs.ts";
import { appendEvent } from "#db/queries/events.ts";
import { cancelJob, enqueueJob } from "#db/queries/jobs.ts";
import { getSetting, setSetting } from "#db/queries/settings.ts";
import { findSignalByDedupeKey, insertSignal } from "#db/queries/signals.ts";
import { getEmergencyStop, getTradingConfig } from "#db/queries/trading-state.ts";
import { isUniqueViolation } from "#db/queries/users.ts";
import { newId } from "#db/queries/util.ts";
import type { DB } from "#db/schema.ts";

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

export async function handleWebhook(
  db: Kysely<DB>,
  input: { rawBody: string; token: string | null; appSecret: string; ip: string | null; now?: number },
): Promise<WebhookOutcome> {
  const now = input.now ?? Date.now();
  const reject = async (status: 400 | 401, error: string, field?: string) => {
    await recordActivity(db, {
      type: "webhook",
      level: "warning",
      message: `Webhook rejected: ${error}`,
      data: { ip: input.ip, field, status },
    });
    return { status, body: { success: false as const, error, ...(field ? { field } : {}) } };
  };

  const body = parseBody(input.rawBody);
  if (!body) return reject(400, "Request body must be a JSON object");

  const presented = typeof body.secret === "string" ? body.secret : input.token;
  const expected = await getWebhookSecret(db, input.appSecret);
  if (!presented || !safeEqual(presented, expected)) return reject(401, "Invalid or missing webhook secret");

  const parsed = parseWebhookSignal(body);
  if (!parsed.ok) return reject(400, parsed.error, parsed.field);
  const signal = parsed.signal;

  const bodyHash = createHash("sha256").update(input.rawBody).digest("hex");
  const bucket = Math.floor(now / DEDUPE_WINDOW_MS);
  const dedupeKey = signal.alertId ? `id:${signal.alertId}` : `body:${bodyHash.slice(0, 48)}:${bucket}`;
  const previousKey = signal.alertId ? null : `body:${bodyHash.slice(0, 48)}:${bucket - 1}`;

  const duplicateOf = async () => {
    const same = await findSignalByDedupeKey(db, dedupeKey);
    if (same) return same;
    if (!previousKey) return null;
    const previous = await findSignalByDedupeKey(db, previousKey);
    return previous && now - Date.parse(previous.createdAt) < DEDUPE_WINDOW_MS ? previous : null;
  };

  const earlier = await duplicateOf();
  if (earlier) return duplicateAnswer(db, earlier.id, input.ip);

  const [config, emergency] = await Promise.all([getTradingConfig(db), getEmergencyStop(db)]);
  const blockedBy = emergency.active
    ? "Emergency stop is active: signal stored, no order sent"
    : !config.autoTradingEnabled
      ? "Auto trading is disabled: signal stored, no order sent"
      : null;

  const id = newId();
  try {
    const inserted = await db.transaction().execute(async (trx) => {
      const fresh = await insertSignal(trx, {
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
      });
      if (!fresh) return false;
      const job = await enqueueJob(trx, { task: "execute-signal", payload: { signalId: id }, jobKey: `signal:${id}`, signalId: id });
      if (blockedBy) await cancelJob(trx, job.id, blockedBy);
      const label = `${signal.action.toUpperCase()} ${signal.quantity} ${signal.symbol}${signal.price ? ` @ ${signal.price}` : ""}`;
      await recordActivity(trx, {
        type: "signal",
        level: blockedBy ? "warning" : "info",
        message: blockedBy ? `Signal received: ${label}. ${blockedBy}` : `Signal received: ${label}`,
        data: { signalId: id, action: signal.action, symbol: signal.symbol, quantity: signal.quantity, orderType: signal.orderType, price: signal.price, strategy: signal.strategy },
      });
      await appendEvent(trx, "new_signal", { id, action: signal.action, symbol: signal.symbol, quantity: signal.quantity, price: signal.price, orderType: signal.orderType, status: blockedBy ? "skipped" : "queued" });
      await appendEvent(trx, "dashboard_update", { reason: "signal" });
      return true;
    });
    if (!inserted) {
      const existing = await duplicateOf();
      return duplicateAnswer(db, existing?.id ?? id, input.ip);
    }
  } catch (error) {
    if (isUniqueViolation(error)) {
      const existing = await duplicateOf();
      if (existing) return duplicateAnswer(db, existing.id, input.ip);
    }
    // The commit failed: 503 makes TradingView deliver again.
    console.error(`[webhook] could not store signal: ${(error as Error).message}`);
    return { status: 503, body: { success: false, error: "Signal could not be stored, please retry" } };
  }
  return {
    status: 200,
    body: { success: true, signalId: id, status: blockedBy ? "skipped" : "queued", ...(blockedBy ? { reason: blockedBy } : {}) },
  };
}

async function duplicateAnswer(db: Kysely<DB>, signalId: string, ip: string | null): Promise<WebhookOutcome> {
  await recordActivity(db, {
    type: "webhook",
    level: "info",
    message: "Duplicate alert ignored (already received)",
    data: { signalId, ip },
  });
  return { status: 200, body: { success: true, signalId, status: "duplicate", duplicate: true } };
}
