// One of the four paths of the Trade History screen (docs/spec/screens.md: /history, /trade-history,
// /trades, /signals): a thin route rendering the shared screen.
import { type LoaderFunctionArgs, type MetaFunction, json } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { TradeHistoryScreen } from "#app/components/trade-history/trade-history-screen.tsx";
import { loadTradeHistory } from "#app/services/trade-history.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return json(await loadTradeHistory(request, context));
}

export default function Page() {
  return <TradeHistoryScreen data={useLoaderData<typeof loader>()} />;
}

export const meta: MetaFunction = () => [{ title: "Trade History · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
