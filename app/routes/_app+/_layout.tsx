// Every screen behind login: the session is checked here and again by each route's own
// loader (Remix runs loaders in parallel, so a layout check alone is not a guard).
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { Outlet, useLoaderData } from "@remix-run/react";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { AppShell } from "#app/components/layout/app-shell.tsx";
import { PermissionsProvider } from "#app/components/layout/permissions.tsx";
import { LiveProvider } from "#app/live/use-live-updates.tsx";
import { QueryProvider } from "#app/utils/use-api-query.tsx";
import { getSystemStatusForPage } from "#app/services/health.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const health = await getSystemStatusForPage(context);
  return json({ user: { username: user.username, role: user.role }, systemStatus: health.systemStatus });
}

export default function AppLayout() {
  const { user, systemStatus } = useLoaderData<typeof loader>();
  return (
    <QueryProvider>
      <LiveProvider>
        <PermissionsProvider role={user.role}>
          <AppShell user={user} status={systemStatus}>
            <Outlet />
          </AppShell>
        </PermissionsProvider>
      </LiveProvider>
    </QueryProvider>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
