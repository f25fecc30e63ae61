// POST /api/webhook/tradingview: TradingView alerts (JSON, sent as application/json or
// text/plain). The secret comes in the body (`secret`) or the `token` query parameter.
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { MAX_BODY_BYTES, WEBHOOK_PLATFORM, handleWebhook } from "#app/services/webhook.server.ts";
import { jsonError, readBodyText } from "#app/utils/api.server.ts";
import { recordActivity } from "#db/queries/activity-logs.ts";

/** Whatever happens, TradingView gets an answer before it gives up (~3 s). */
const DEADLINE_MS = 2000;

export async function loader({ params }: LoaderFunctionArgs) {
  if (params.platform !== WEBHOOK_PLATFORM) return jsonError(404, "Not found");
  return jsonError(405, "Method GET not allowed: TradingView sends POST");
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  if (params.platform !== WEBHOOK_PLATFORM) return jsonError(404, "Not found");
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  let rawBody: string;
  try {
    rawBody = await readBodyText(request, MAX_BODY_BYTES);
  } catch (response) {
    if (response instanceof Response && response.status === 413) {
      await recordActivity(context.db, {
        type: "webhook",
        level: "warning",
        message: "Webhook rejected: body larger than 64 KiB",
        data: { ip: context.clientIp, status: 413 },
      });
      return json({ success: false, error: "Request body too large (limit 64 KiB)" }, { status: 413 });
    }
    throw response;
  }
  const token = new URL(request.url).searchParams.get("token");
  const outcome = await Promise.race([
    handleWebhook(context.db, { rawBody, token, appSecret: context.config.appSecret, ip: context.clientIp }),
    new Promise<null>((resolve) => setTimeout(() => resolve(null), DEADLINE_MS).unref?.()),
  ]);
  if (!outcome) {
    // If the commit lands after all, TradingView's retry is recognised as a duplicate.
    return json({ success: false, error: "Signal not confirmed in time, please retry" }, { status: 503 });
  }
  return json(outcome.body, { status: outcome.status, headers: { "Cache-Control": "no-store" } });
}
