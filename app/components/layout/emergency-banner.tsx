// The emergency stop's banner on every signed-in page (issue 11): while the stop is active
// no one can miss it, and it says what still works. It reads the same /api/health query as
// the sidebar's status block (live system_status messages refresh both), so it appears and
// goes with the stop without a reload, and is rendered on the server too (no JavaScript).
import { useRouteLoaderData } from "@remix-run/react";
import type { SystemStatusEntry } from "#app/core/system-status.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import Typography from "@mui/material/Typography";
import { S } from "./emergency-banner.css.ts";
import { HEALTH_POLL_MS } from "./system-status.tsx";

/**
 * Whether the emergency stop is active (docs/spec/screens.md#states: the `system` component in warning), from
 * the layout's status and then the shared /api/health query.
 */
export function useEmergencyActive(initial?: SystemStatusEntry[]): boolean {
  const layout = useRouteLoaderData<{ systemStatus: SystemStatusEntry[] }>("routes/_app+/_layout");
  const start = initial ?? layout?.systemStatus ?? [];
  const { data } = useApiQuery<{ systemStatus: SystemStatusEntry[] }>("/api/health", {
    initialData: { systemStatus: start },
    refetchIntervalMs: HEALTH_POLL_MS,
  });
  return (data?.systemStatus ?? start).find((entry) => entry.component === "system")?.status === "warning";
}

export function EmergencyBanner({ initial }: { initial: SystemStatusEntry[] }) {
  if (!useEmergencyActive(initial)) return null;
  return (
    <div role="status" className={S.banner} data-testid="emergency-banner">
      <Typography variant="subtitle2">Emergency stop active</Typography>
      <Typography variant="body2" color="text.secondary">
        No new positions are opened. Stop-loss, take-profit, break-even, trailing stops and Close keep working. An admin
        resets it from the dashboard.
      </Typography>
    </div>
  );
}
