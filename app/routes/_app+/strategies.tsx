// /strategies: the Strategies screen (issue 12, docs/decisions/027-strategies.md). Every role
// reads; admins create, edit, enable/disable, rotate and delete through this route's action
// (plain form posts, so it works without JavaScript), with the services /api/strategies uses.
import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, json, redirect } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { Screen } from "#app/components/screen.tsx";
import { parseStrategyForm } from "#app/core/schemas/strategy-form.ts";
import { StrategiesScreen } from "#app/components/strategies/strategies-screen.tsx";
import { StrategyStatsTable } from "#app/components/strategies/strategy-stats.tsx";
import { can } from "#app/core/auth/permissions.ts";
import {
  StrategyError,
  changeStrategy,
  createStrategy,
  getStrategyStatistics,
  listStrategyViews,
  removeStrategy,
  rotateStrategySecret,
  updateStrategy,
} from "#app/services/strategies.server.ts";
import { TICKER, parseAlertBuilderParams } from "#app/core/alerts/template.ts";
import { HeartbeatExpectationSchema } from "#app/core/schemas/heartbeat.ts";
import { postedBuilder, sendTestAlert, testAlertFromUrl, testAlertSearch } from "#app/services/test-alert.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";
import { listStrategyHeartbeats, setHeartbeatExpectation } from "#app/services/heartbeats.server.ts";
import { requirePermission, requireUser } from "#app/services/sessions.server.ts";
import { redirectWithToast } from "#app/utils/toast.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const url = new URL(request.url);
  const [strategies, stats, heartbeats, test] = await Promise.all([
    listStrategyViews(request, context, user.role),
    getStrategyStatistics(context.db),
    listStrategyHeartbeats(context.db),
    testAlertFromUrl(context.db, url),
  ]);
  const edit = url.searchParams.get("edit");
  const extras = {
    heartbeats: Object.fromEntries(heartbeats.map((h) => [h.strategyKey, h])),
    now: Date.now(),
    builderSearch: url.search,
    test: { strategyId: url.searchParams.get("testStrategy"), ...test },
  };
  return json(
    {
      strategies,
      stats,
      canManage: can(user.role, "strategies.manage"),
      editing: strategies.some((s) => s.id === edit) ? edit : null,
      extras,
    },
    { headers: NO_STORE },
  );
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requirePermission(request, context, "strategies.manage");
  const formData = await request.formData();
  const intent = String(formData.get("intent") ?? "");
  const id = String(formData.get("id") ?? "");
  const done = (title: string, description: string, to = "/strategies") =>
    redirectWithToast(context, to, { title, description }, { headers: NO_STORE });
  const refused = (error: unknown) => {
    if (!(error instanceof StrategyError)) throw error;
    return redirectWithToast(
      context,
      "/strategies",
      { title: "Strategy not changed", description: error.message, variant: "destructive" },
      { headers: NO_STORE },
    );
  };
  if (intent === "create" || intent === "update") {
    const submission = parseStrategyForm(formData);
    if (submission.status !== "success")
      return json(
        { result: submission.reply(), editing: intent === "update" ? id : null },
        { status: 400, headers: NO_STORE },
      );
    try {
      if (intent === "create") {
        const { strategy } = await createStrategy(
          context.db,
          context.config.appSecret,
          submission.value,
          user.username,
        );
        return done("Strategy Created", `Strategy ${strategy.name} created: paste its alert message into TradingView`);
      }
      const saved = await updateStrategy(context.db, id, submission.value, user.username);
      return done("Strategy Saved", `Strategy ${saved.name} saved`);
    } catch (error) {
      if (error instanceof StrategyError && error.status !== 404) {
        return json(
          {
            result: submission.reply({ fieldErrors: { [error.field ?? "name"]: [error.message] } }),
            editing: intent === "update" ? id : null,
          },
          { status: error.status, headers: NO_STORE },
        );
      }
      return refused(error);
    }
  }
  if (intent === "heartbeat" || intent === "test-alert") {
    const strategy = (await listStrategyViews(request, context, user.role)).find((s) => s.id === id);
    if (!strategy) return refused(new StrategyError(404, "Strategy not found"));
    if (intent === "heartbeat") {
      if (formData.get("off")) {
        await setHeartbeatExpectation(context.db, id, null, user.username);
        return done("Heartbeat alarm off", `No heartbeat is expected from ${strategy.name} any more`);
      }
      const parsed = HeartbeatExpectationSchema.safeParse({
        intervalSeconds: formData.get("intervalSeconds"),
        graceSeconds: formData.get("graceSeconds") ?? "",
      });
      if (!parsed.success)
        return refused(new StrategyError(400, parsed.error.issues[0]?.message ?? "Invalid interval"));
      await setHeartbeatExpectation(context.db, id, parsed.data, user.username);
      return done(
        "Heartbeat alarm on",
        `${strategy.name} must send a heartbeat alert every ${parsed.data.intervalSeconds} s`,
      );
    }
    // Send test alert with the strategy's own secret and builder (issue 12).
    const builder = postedBuilder(formData.get("builder"));
    const parsed = parseAlertBuilderParams(builder, {
      prefix: String(formData.get("prefix") ?? "alert"),
      strategy: strategy.name,
    });
    // {{ticker}}: the test trades a product the strategy may trade (its first allowed one).
    const options =
      parsed.options.symbol === TICKER && strategy.allowedSymbols.length > 0
        ? { ...parsed.options, symbol: strategy.allowedSymbols[0]! }
        : parsed.options;
    if (!strategy.secret)
      return refused(
        new StrategyError(409, `The secret of ${strategy.name} cannot be read (APP_SECRET changed): rotate it`),
      );
    const sent = await sendTestAlert(context.db, options, strategy.secret, { port: context.config.PORT });
    return redirect(`/strategies?${testAlertSearch(builder, sent, { testStrategy: id })}`, { headers: NO_STORE });
  }
  try {
    if (intent === "toggle") {
      const views = await listStrategyViews(request, context, user.role);
      const current = views.find((s) => s.id === id);
      if (!current) throw new StrategyError(404, "Strategy not found");
      const saved = await changeStrategy(context.db, id, { enabled: !current.enabled }, user.username);
      return done(
        saved.enabled ? "Strategy Enabled" : "Strategy Disabled",
        `Strategy ${saved.name} is ${saved.enabled ? "enabled" : "disabled: its alerts are stored, not traded"}`,
      );
    }
    if (intent === "rotate") {
      await rotateStrategySecret(context.db, context.config.appSecret, id, user.username);
      return done("Secret Rotated", "The old secret stops working now: update the strategy's TradingView alerts");
    }
    if (intent === "delete") {
      await removeStrategy(context.db, id, user.username);
      return done("Strategy Deleted", "Its secret no longer works");
    }
  } catch (error) {
    return refused(error);
  }
  return json({ error: "Unknown action" }, { status: 400, headers: NO_STORE });
}

export default function StrategiesPage() {
  const data = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>() as
    | { result?: Parameters<typeof StrategiesScreen>[0]["lastResult"]; editing?: string | null }
    | undefined;
  return (
    <Screen title="Strategies">
      <StrategyStatsTable stats={data.stats} />
      <StrategiesScreen
        strategies={data.strategies}
        canManage={data.canManage}
        lastResult={answer?.result}
        editing={answer?.editing ?? data.editing}
        extras={data.extras}
      />
    </Screen>
  );
}

export const meta: MetaFunction = () => [{ title: "Strategies · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
