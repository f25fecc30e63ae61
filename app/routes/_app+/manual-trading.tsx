// /manual-trading: the Manual Trading screen (docs/spec/screens.md, api.md#validation, api.md#errors). Its action is the
// dashboard's, limited to the place-order intent: a queued trade and 'Trade Executed' (JSON
// with JavaScript, a redirect with a flash toast without), or the messages of docs/spec/api.md#validation.
import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, json } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { ManualTradingScreen } from "#app/components/manual-trading/manual-trading-screen.tsx";
import { dashboardAction } from "#app/services/dashboard-actions.server.ts";
import { activeBalances } from "#app/services/exchange-connections.server.ts";
import { getSystemStatusForPage } from "#app/services/health.server.ts";
import { listOpenOrders } from "#app/services/orders.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";
import { getTradingConfig } from "#app/services/trading.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const [balance, config, health, orders] = await Promise.all([
    activeBalances(context.db).catch(() => null),
    getTradingConfig(context.db),
    getSystemStatusForPage(context),
    listOpenOrders(context.db),
  ]);
  return json({ balance, config, systemStatus: health.systemStatus, isAdmin: user.role === "admin", orders });
}

export async function action(args: ActionFunctionArgs) {
  return dashboardAction(args, { intents: ["place-order"] });
}

export default function Page() {
  return <ManualTradingScreen data={useLoaderData<typeof loader>()} />;
}

export const meta: MetaFunction = () => [{ title: "Manual Trading · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
