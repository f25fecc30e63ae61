// What the Webhook Config screen and GET /api/webhook-config show.
import type { AppLoadContext } from "@remix-run/node";
import { publicOrigin } from "#app/utils/api.server.ts";
import { WEBHOOK_PATH, getWebhookSecret } from "./webhook.server.ts";

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

export async function getWebhookConfig(request: Request, context: AppLoadContext) {
  const secret = await getWebhookSecret(context.db, context.config.appSecret);
  const origin = publicOrigin(request, context);
  return {
    url: `${origin}${WEBHOOK_PATH}`,
    secret,
    path: WEBHOOK_PATH,
    port: context.config.PORT,
    alertMessage: alertTemplate(secret),
    maxBodyBytes: 64 * 1024,
  };
}
