// /signals/{id}: one alert's latency timeline (issue 12), rendered on the server. The dashboard's
// signal rows link here when their timeline is opened without JavaScript; with JavaScript they
// load the same timeline from GET /api/signals/{id} in place (decision 043).
import Button from "@mui/material/Button";
import Paper from "@mui/material/Paper";
import Typography from "@mui/material/Typography";
import { type LoaderFunctionArgs, type MetaFunction, json } from "@remix-run/node";
import { Link as RemixLink, useLoaderData } from "@remix-run/react";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { Screen } from "#app/components/screen.tsx";
import { SignalTimelineView } from "#app/components/signals/signal-timeline.tsx";
import { getSignalNow } from "#app/services/test-alert.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.signal.symbol ?? "Signal"} latency · PerpDesk` },
];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const now = await getSignalNow(context.db, params.id ?? "");
  if (!now) throw json({ error: "Signal not found" }, { status: 404 });
  return json(now, { headers: NO_STORE });
}

export default function SignalLatencyRoute() {
  const { signal, timeline } = useLoaderData<typeof loader>();
  return (
    <Screen
      title={`${signal.action.toUpperCase()} ${signal.symbol}`}
      actions={
        <Button component={RemixLink} to="/dashboard" size="small" variant="outlined">
          Dashboard
        </Button>
      }
    >
      <Paper variant="outlined" sx={{ p: 2, maxWidth: 560 }}>
        <Typography variant="h3" component="h2" sx={{ mb: 1 }}>
          Signal latency timeline
        </Typography>
        {timeline ? (
          <SignalTimelineView timeline={timeline} />
        ) : (
          <Typography variant="body2" color="text.secondary" data-testid="signal-timeline-empty">
            No hops recorded for this signal.
          </Typography>
        )}
      </Paper>
    </Screen>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
