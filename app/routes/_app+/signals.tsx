import { type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { TradeHistoryScreen } from "#app/components/screens/trade-history.tsx";
import { requireUser } from "#app/utils/auth.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return null;
}

export default function Page() {
  return <TradeHistoryScreen />;
}

export const meta: MetaFunction = () => [{ title: "Trade History · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
