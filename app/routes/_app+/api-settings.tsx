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
    <Screen title="API Settings">
      <NotBuiltYet what="The API key and secret form, Test Connection and the environment setup instructions arrive with the Coinbase connector." />
    </Screen>
  );
}

export const meta: MetaFunction = () => [{ title: "API Settings · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
