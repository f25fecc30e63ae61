// /webhook: the Webhook Config screen (docs/spec/screens.md "Webhook Config", roles.md), admins only. The
// TradingView webhook URL and secret (copy, reveal, rotate), the setup steps with the port
// caveat, the ready-to-paste alert message, and the signal format with its answers.
// Rotating is a plain form post to this route's action, so it works without JavaScript.
import {
  type ActionFunctionArgs,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
  json,
  redirect,
} from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { WebhookScreen } from "#app/components/webhook/webhook-screen.tsx";
import { listSymbols } from "#app/core/products.ts";
import { protectionLines } from "#app/components/manual-trading/manual-protection.ts";
import { getTradingConfig } from "#app/services/trading.server.ts";
import { getSystemStatusForPage } from "#app/services/health.server.ts";
import {
  SECRET_UNREADABLE_MESSAGE,
  getWebhookConfig,
  readableWebhookSecret,
} from "#app/services/webhook-config.server.ts";
import {
  ROTATION_GRACE_LABELS,
  getStrictTickers,
  isRotationGrace,
  rotateWebhookSecret,
  saveStrictTickers,
} from "#app/services/webhook.server.ts";
import { allowlistView, saveAllowlist, validateAllowlist } from "#app/services/webhook-guard.server.ts";
import { requireAdmin } from "#app/services/sessions.server.ts";
import { redirectWithToast } from "#app/utils/toast.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";
import { parseAlertBuilderParams } from "#app/core/alerts/template.ts";
import { postedBuilder, sendTestAlert, testAlertFromUrl, testAlertSearch } from "#app/services/test-alert.server.ts";
import { HeartbeatExpectationSchema } from "#app/core/schemas/heartbeat.ts";
import { DEFAULT_STRATEGY_KEY } from "#app/core/types/heartbeats.ts";
import { listStrategyHeartbeats, setHeartbeatExpectation } from "#app/services/heartbeats.server.ts";
import { getLatencySummary } from "#app/services/signals.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdmin(request, context);
  const [config, health, allowlist, trading, strictTickers, latency, heartbeats] = await Promise.all([
    getWebhookConfig(request, context),
    getSystemStatusForPage(context),
    allowlistView(context.db, context.config.WEBHOOK_ALLOWLIST),
    getTradingConfig(context.db),
    getStrictTickers(context.db),
    getLatencySummary(context.db),
    listStrategyHeartbeats(context.db),
  ]);
  const heartbeat = heartbeats.find((h) => h.strategyKey === DEFAULT_STRATEGY_KEY) ?? null;
  // "Send test alert": the webhook's answer comes back in the address, the signal's state is read now.
  const { sent: testSent, initial: testInitial } = await testAlertFromUrl(context.db, new URL(request.url));
  const protection = protectionLines(trading, "signal");
  const url = new URL(request.url);
  const rotated = url.searchParams.has("rotated");
  const allowlistError = url.searchParams.get("allowlistError");
  const heartbeatError = url.searchParams.get("heartbeatError");
  return json(
    {
      config,
      systemStatus: health.systemStatus,
      rotated,
      allowlist,
      allowlistError,
      yourAddress: context.clientIp,
      trustProxy: context.config.TRUST_PROXY,
      protection,
      strictTickers,
      leverageApplies: trading.applyLeverageToSignals,
      latency,
      heartbeat,
      heartbeatError,
      now: Date.now(),
      testSent,
      testInitial,
      builderSearch: new URL(request.url).search,
    },
    { headers: NO_STORE },
  );
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  let form: FormData | null = null;
  try {
    form = await request.formData();
  } catch {
    // not a form body
  }
  const intent = form?.get("intent");
  if (intent === "allowlist") {
    if (context.config.WEBHOOK_ALLOWLIST) {
      return json(
        { error: "WEBHOOK_ALLOWLIST is set in the environment: change it there" },
        { status: 409, headers: NO_STORE },
      );
    }
    const checked = validateAllowlist(String(form?.get("allowlist") ?? "").slice(0, 4000));
    if (!checked.ok)
      return redirect(`/webhook?${new URLSearchParams({ allowlistError: checked.error })}`, { headers: NO_STORE });
    await saveAllowlist(context.db, user.username, checked.value);
    return redirectWithToast(
      context,
      "/webhook",
      checked.value
        ? {
            title: "Webhook senders limited",
            description: `Only ${checked.value} may post alerts now; others get 403.`,
          }
        : { title: "Webhook allowlist removed", description: "Any address with the secret may post alerts." },
      { headers: NO_STORE },
    );
  }
  if (intent === "strict-tickers") {
    const on = form?.get("value") === "on";
    await saveStrictTickers(context.db, user.username, on);
    return redirectWithToast(
      context,
      "/webhook",
      on
        ? {
            title: "Strict ticker mapping on",
            description: `Alerts must name ${listSymbols().join(", ")}; other tickers are refused with a 400.`,
          }
        : {
            title: "Strict ticker mapping off",
            description: "TradingView tickers map to the perpetual of their base asset.",
          },
      { headers: NO_STORE },
    );
  }
  if (intent === "test-alert") {
    const builder = postedBuilder(form?.get("builder") ?? null);
    const trading = await getTradingConfig(context.db);
    const { options } = parseAlertBuilderParams(builder, { leverageApplies: trading.applyLeverageToSignals });
    const secret = await readableWebhookSecret(context);
    // APP_SECRET changed: no alert can be signed until a new secret is generated (decision 041).
    if (secret === null)
      return redirectWithToast(
        context,
        "/webhook",
        { title: "No test alert sent", description: SECRET_UNREADABLE_MESSAGE, variant: "destructive" },
        { headers: NO_STORE },
      );
    const sent = await sendTestAlert(context.db, options, secret, { port: context.config.PORT });
    return redirect(`/webhook?${testAlertSearch(builder, sent)}#test-alert`, { headers: NO_STORE });
  }
  if (intent === "heartbeat") {
    if (form?.get("off")) {
      await setHeartbeatExpectation(context.db, DEFAULT_STRATEGY_KEY, null, user.username);
      return redirectWithToast(
        context,
        "/webhook",
        { title: "Heartbeat alarm off", description: "No heartbeat alert is expected any more." },
        { headers: NO_STORE },
      );
    }
    const parsed = HeartbeatExpectationSchema.safeParse({
      intervalSeconds: form?.get("intervalSeconds"),
      graceSeconds: form?.get("graceSeconds") ?? "",
    });
    if (!parsed.success)
      return redirect(
        `/webhook?${new URLSearchParams({ heartbeatError: parsed.error.issues[0]?.message ?? "Invalid interval" })}`,
        { headers: NO_STORE },
      );
    await setHeartbeatExpectation(context.db, DEFAULT_STRATEGY_KEY, parsed.data, user.username);
    return redirectWithToast(
      context,
      "/webhook",
      {
        title: "Heartbeat alarm on",
        description: `A heartbeat alert is expected every ${parsed.data.intervalSeconds} s: paste the heartbeat message into a TradingView alert.`,
      },
      { headers: NO_STORE },
    );
  }
  if (intent !== "rotate") return json({ error: "Unknown action" }, { status: 400, headers: NO_STORE });
  // A grace period keeps the old secret working while TradingView is updated (issue 25); none by default.
  const grace = form?.get("grace") ?? "none";
  if (!isRotationGrace(grace))
    return json({ error: "Grace period must be none, 15m, 1h or 24h" }, { status: 400, headers: NO_STORE });
  await rotateWebhookSecret(context.db, context.config.appSecret, user.username, { grace });
  return redirectWithToast(
    context,
    "/webhook?rotated=1",
    {
      title: "Webhook secret rotated",
      description:
        grace === "none"
          ? "The old secret no longer works: paste the new alert message into your TradingView alerts."
          : `The old secret keeps working for ${ROTATION_GRACE_LABELS[grace]}: paste the new alert message into your TradingView alerts before then.`,
    },
    { headers: NO_STORE },
  );
}

// The page carries the secret: never cached.
export const headers: HeadersFunction = () => NO_STORE;

export default function Page() {
  return <WebhookScreen data={useLoaderData<typeof loader>()} />;
}

export const meta: MetaFunction = () => [{ title: "Webhook Config · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
