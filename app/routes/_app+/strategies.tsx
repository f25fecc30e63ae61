// /strategies: the Strategies screen (issue 12, docs/decisions/027-strategies.md). Every role
// reads; admins create, edit, enable/disable, rotate and delete through this route's action
// (plain form posts, so it works without JavaScript), with the services /api/strategies uses.
import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, json } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { Screen } from "#app/components/screen.tsx";
import { parseStrategyForm } from "#app/components/strategies/form-schema.ts";
import { StrategiesScreen } from "#app/components/strategies/strategies-screen.tsx";
import { StrategyStatsTable } from "#app/components/strategies/strategy-stats.tsx";
import { can } from "#app/core/auth/permissions.ts";
import { StrategyError, changeStrategy, createStrategy, getStrategyStatistics, listStrategyViews, removeStrategy, rotateStrategySecret, updateStrategy } from "#app/services/strategies.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";
import { requirePermission, requireUser } from "#app/utils/auth.server.ts";
import { redirectWithToast } from "#app/utils/toast.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const [strategies, stats] = await Promise.all([listStrategyViews(request, context, user.role), getStrategyStatistics(context.db)]);
  const edit = new URL(request.url).searchParams.get("edit");
  return json({ strategies, stats, canManage: can(user.role, "strategies.manage"), editing: strategies.some((s) => s.id === edit) ? edit : null }, { headers: NO_STORE });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requirePermission(request, context, "strategies.manage");
  const formData = await request.formData();
  const intent = String(formData.get("intent") ?? "");
  const id = String(formData.get("id") ?? "");
  const done = (title: string, description: string, to = "/strategies") => redirectWithToast(context, to, { title, description }, { headers: NO_STORE });
  const refused = (error: unknown) => {
    if (!(error instanceof StrategyError)) throw error;
    return redirectWithToast(context, "/strategies", { title: "Strategy not changed", description: error.message, variant: "destructive" }, { headers: NO_STORE });
  };
  if (intent === "create" || intent === "update") {
    const submission = parseStrategyForm(formData);
    if (submission.status !== "success") return json({ result: submission.reply(), editing: intent === "update" ? id : null }, { status: 400, headers: NO_STORE });
    try {
      if (intent === "create") {
        const { strategy } = await createStrategy(context.db, context.config.appSecret, submission.value, user.username);
        return done("Strategy Created", `Strategy ${strategy.name} created: paste its alert message into TradingView`);
      }
      const saved = await updateStrategy(context.db, id, submission.value, user.username);
      return done("Strategy Saved", `Strategy ${saved.name} saved`);
    } catch (error) {
      if (error instanceof StrategyError && error.status !== 404) {
        return json({ result: submission.reply({ fieldErrors: { [error.field ?? "name"]: [error.message] } }), editing: intent === "update" ? id : null }, { status: error.status, headers: NO_STORE });
      }
      return refused(error);
    }
  }
  try {
    if (intent === "toggle") {
      const views = await listStrategyViews(request, context, user.role);
      const current = views.find((s) => s.id === id);
      if (!current) throw new StrategyError(404, "Strategy not found");
      const saved = await changeStrategy(context.db, id, { enabled: !current.enabled }, user.username);
      return done(saved.enabled ? "Strategy Enabled" : "Strategy Disabled", `Strategy ${saved.name} is ${saved.enabled ? "enabled" : "disabled: its alerts are stored, not traded"}`);
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
  const answer = useActionData<typeof action>() as { result?: Parameters<typeof StrategiesScreen>[0]["lastResult"]; editing?: string | null } | undefined;
  return (
    <Screen title="Strategies">
      <StrategyStatsTable stats={data.stats} />
      <StrategiesScreen strategies={data.strategies} canManage={data.canManage} lastResult={answer?.result} editing={answer?.editing ?? data.editing} />
    </Screen>
  );
}

export const meta: MetaFunction = () => [{ title: "Strategies · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
