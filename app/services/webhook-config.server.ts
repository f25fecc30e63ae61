// What the Webhook Config screen and GET /api/webhook-config show.
import type { AppLoadContext } from "@remix-run/node";
import { WEBHOOK_PATH, getWebhookSecret } from "./webhook.server.ts";

/** The app's public origin as the browser sees it (behind a trusted proxy: the forwarded host). */
export function publicOrigin(request: Request, context: AppLoadContext): string {
  const url = new URL(request.url);
  if (context.config.TRUST_PROXY) {
    const host = request.headers.get("x-forwarded-host")?.split(",")[0]?.trim();
    const proto = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim();
    if (host) return `${proto === "https" ? "https" : url.protocol.replace(":", "")}://${host}`;
  }
  return url.origin;
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
