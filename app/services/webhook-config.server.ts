// What the Webhook Config screen and GET /api/webhook-config show.
import type { AppLoadContext } from "@remix-run/node";
import { DecryptError } from "#app/core/crypto.ts";
import { publicOrigin } from "#app/utils/api.server.ts";
import { WEBHOOK_PATH, getWebhookSecret, previousSecretUntil } from "./webhook.server.ts";

/**
 * What Webhook Config says when the stored secret was encrypted under another APP_SECRET (the
 * webhook then answers 503 and sends the operator here; decision 041). The page and the API
 * answer normally with this instead of the secret, and offer a new one.
 */
export const SECRET_UNREADABLE_MESSAGE =
  "The stored webhook secret cannot be read with the current APP_SECRET (it was changed since the secret was saved). Restore the previous APP_SECRET, or generate a new secret here and paste the new alert message into your TradingView alerts.";

/** The webhook secret, or null when this APP_SECRET cannot decrypt the stored one. */
export async function readableWebhookSecret(context: AppLoadContext): Promise<string | null> {
  try {
    return await getWebhookSecret(context.db, context.config.appSecret);
  } catch (error) {
    if (error instanceof DecryptError) return null;
    throw error;
  }
}

/** The alert message to paste into TradingView: its placeholders, and our secret. */
export function alertTemplate(secret: string): string {
  return JSON.stringify(
    {
      secret,
      action: "{{strategy.order.action}}",
      symbol: "{{ticker}}",
      quantity: "{{strategy.order.contracts}}",
      order_type: "market",
      price: "{{close}}",
      timestamp: "{{timenow}}",
      strategy: "{{strategy.order.id}}",
    },
    null,
    2,
  );
}

/**
 * `secret` and `alertMessage` are null, `secretReadable` false and `secretError` says why, when
 * the stored secret cannot be decrypted (APP_SECRET changed); rotating makes a readable one.
 */
export async function getWebhookConfig(request: Request, context: AppLoadContext) {
  const secret = await readableWebhookSecret(context);
  const origin = publicOrigin(request, context);
  const until = await previousSecretUntil(context.db);
  return {
    url: `${origin}${WEBHOOK_PATH}`,
    secret,
    secretReadable: secret !== null,
    secretError: secret === null ? SECRET_UNREADABLE_MESSAGE : null,
    path: WEBHOOK_PATH,
    port: context.config.PORT,
    alertMessage: secret === null ? null : alertTemplate(secret),
    maxBodyBytes: 64 * 1024,
    /** Until when the secret before the last rotation still works (ISO), or null (issue 25). */
    previousSecretUntil: until === null ? null : new Date(until).toISOString(),
  };
}
