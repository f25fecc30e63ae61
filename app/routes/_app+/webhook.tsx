import { type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { NotBuiltYet, Screen } from "#app/components/screen.tsx";
import { requireAdmin } from "#app/utils/auth.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdmin(request, context);
  return null;
}

export default function Page() {
  return (
    <Screen title="Webhook Config">
      <NotBuiltYet what="The TradingView webhook URL, its secret, the setup steps and the signal format arrive with the webhook intake." />
    </Screen>
  );
}

export const meta: MetaFunction = () => [{ title: "Webhook Config · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
