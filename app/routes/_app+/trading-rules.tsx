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
    <Screen title="Trading Rules">
      <NotBuiltYet what="Take-profit levels, stop-loss, break-even, trailing stop, amount control and the system switches arrive with the rules engine." />
    </Screen>
  );
}

export const meta: MetaFunction = () => [{ title: "Trading Rules · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
