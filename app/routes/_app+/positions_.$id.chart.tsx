// /positions/{id}/chart: one position's price chart (issue 13, decision 032), linked from each
// row and card of Futures Positions. Rendered on the server with its candles, levels and
// fills, so without JavaScript it shows the levels and the latest candles as tables; with
// JavaScript the chart draws and follows GET /api/positions/{id}/details every 10 s. For whoever
// may trade, an open position's marks offer Edit (decision 048): the Positions edit form on that
// field, which returns here after a save.
import Button from "@mui/material/Button";
import Paper from "@mui/material/Paper";
import Typography from "@mui/material/Typography";
import { type LoaderFunctionArgs, type MetaFunction, json } from "@remix-run/node";
import { Link as RemixLink, useLoaderData } from "@remix-run/react";
import { PriceChart } from "#app/components/charts/price-chart.tsx";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import type { PositionDetailsResponse } from "#app/components/positions/position-detail.tsx";
import { Screen } from "#app/components/screen.tsx";
import { getPositionDetails } from "#app/services/positions.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";
import { can } from "#app/core/auth/permissions.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.details.position.symbol ?? "Position"} chart · PerpDesk` },
];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const details = await getPositionDetails(context.db, params.id ?? "");
  if (!details) throw json({ error: "Position not found" }, { status: 404 });
  // Whoever may trade edits an open position from its marks (decision 048): the Positions edit form, back here.
  const canEdit = can(user.role, "positions.close");
  return json({ details, canEdit }, { headers: NO_STORE });
}

export const CHART_POLL_MS = 10_000;

export default function PositionChartRoute() {
  const { details: initial, canEdit } = useLoaderData<typeof loader>();
  const position = initial.position;
  const query = useApiQuery<PositionDetailsResponse & { position: typeof position }>(
    `/api/positions/${position.id}/details`,
    {
      initialData: initial as PositionDetailsResponse & { position: typeof position },
      refetchIntervalMs: CHART_POLL_MS,
    },
  );
  const details = query.data ?? initial;
  const p = details.position;
  return (
    <Screen
      title={`${p.symbol} ${p.side.toUpperCase()}`}
      actions={
        <Button component={RemixLink} to="/positions" size="small" variant="outlined">
          Futures Positions
        </Button>
      }
    >
      <Paper variant="outlined" sx={{ p: 2 }}>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }} data-testid="position-chart-facts">
          {p.status === "open" ? "Open" : "Closed"} · {p.remainingQuantity} of {p.quantity} · entry {p.entryPrice}
          {details.metrics.markPrice ? ` · mark ${details.metrics.markPrice}` : ""}
        </Typography>
        <PriceChart
          data={details.chart}
          edit={
            canEdit && p.status === "open" ? { id: p.id, back: `/positions/${encodeURIComponent(p.id)}/chart` } : null
          }
        />
      </Paper>
    </Screen>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
