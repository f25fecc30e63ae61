// The dashboard header (docs/spec/screens.md): live connection status, the last-signal text, and
// Emergency Stop / Reset Emergency Stop (shown while the `system` component is in warning).
import Report from "@mui/icons-material/Report";
import RestartAlt from "@mui/icons-material/RestartAlt";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import Typography from "@mui/material/Typography";
import { useFetcher } from "@remix-run/react";
import { useEffect } from "react";
import type { Toast } from "#app/core/schemas/toast.ts";
import { useLive } from "#app/live/use-live-updates.tsx";
import { lastSignalLabel } from "#app/core/format.ts";
import { useHydrated, useNow } from "#app/utils/use-hydrated.ts";
import { useInvalidate } from "#app/utils/use-api-query.tsx";
import { useToast } from "../toaster.tsx";
import { useCan } from "../layout/permissions.tsx";
import { S } from "./dashboard-header.css.ts";
import { FLATTEN_CONFIRMED, confirmFlatten } from "../positions/flatten-confirm.tsx";

/** Posts an intent to the page's action: JSON + toast with JavaScript, a redirect without. */
export function useIntentFetcher(key: string, onDone?: () => void) {
  const fetcher = useFetcher<{ toast?: Toast | null }>({ key });
  const toast = useToast();
  useEffect(() => {
    if (fetcher.state === "idle" && fetcher.data?.toast) {
      toast(fetcher.data.toast);
      onDone?.();
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [fetcher.state, fetcher.data]);
  return fetcher;
}

export function JsMarker() {
  // Present only once hydrated: tells the action to answer JSON instead of redirecting.
  return useHydrated() ? <input type="hidden" name="_js" value="1" /> : null;
}

/**
 * Emergency Stop, or Reset Emergency Stop while it is active (a chip for roles that may not
 * reset). Posts to `action` (the dashboard's action by default: the page it is on).
 */
export function EmergencyControl({ emergencyActive, action }: { emergencyActive: boolean; action?: string }) {
  const invalidate = useInvalidate();
  const fetcher = useIntentFetcher("emergency", () =>
    invalidate("/api/dashboard/stats", "/api/health", "/api/signals", "/api/logs"),
  );
  const busy = fetcher.state !== "idle";
  const canReset = useCan("emergency.reset");
  const canFlatten = useCan("positions.close");
  const hydrated = useHydrated();
  return (
    <fetcher.Form method="post" action={action} className={S.controls}>
      <JsMarker />
      {/* Flattening asks first (decision 041): the dialog with JavaScript, which then sends confirm=1; the action's panel without. */}
      {canFlatten && hydrated ? (
        <input type="hidden" name={FLATTEN_CONFIRMED.name} value={FLATTEN_CONFIRMED.value} />
      ) : null}
      {canFlatten ? (
        <Button
          type="submit"
          name="intent"
          value={emergencyActive ? "flatten" : "emergency-stop-flatten"}
          variant="outlined"
          color="error"
          disabled={busy}
          data-testid="stop-and-flatten"
          onClick={(event) => confirmFlatten(emergencyActive ? "flatten" : "emergency-stop-flatten", event)}
        >
          {emergencyActive ? "Flatten all" : "Stop and flatten"}
        </Button>
      ) : null}
      {emergencyActive && !canReset ? (
        <Chip
          size="small"
          data-testid="emergency-active"
          label="Emergency stop active: an admin resets it"
          color="error"
          variant="outlined"
        />
      ) : emergencyActive ? (
        <Button
          type="submit"
          name="intent"
          value="reset-emergency-stop"
          variant="outlined"
          color="warning"
          startIcon={<RestartAlt />}
          disabled={busy}
        >
          Reset Emergency Stop
        </Button>
      ) : (
        <Button
          type="submit"
          name="intent"
          value="emergency-stop"
          variant="contained"
          color="error"
          startIcon={<Report />}
          disabled={busy}
        >
          Emergency Stop
        </Button>
      )}
    </fetcher.Form>
  );
}

export function DashboardHeader({
  emergencyActive,
  lastSignalAt,
}: {
  emergencyActive: boolean;
  lastSignalAt: string | null;
}) {
  const { connected } = useLive();
  const now = useNow(30_000);
  const hydrated = useHydrated();
  return (
    <div className={S.bar}>
      <Typography variant="h1">Dashboard</Typography>
      <Chip
        size="small"
        data-testid="connection-status"
        label={connected ? "Connected" : "Disconnected"}
        color={connected ? "success" : "default"}
        variant={connected ? "filled" : "outlined"}
      />
      <Typography
        variant="body2"
        color="text.secondary"
        data-testid="last-signal"
        key={hydrated ? "browser" : "server"}
        suppressHydrationWarning
      >
        {`Last signal: ${lastSignalLabel(lastSignalAt, now)}`}
      </Typography>
      <div className={S.spacer} />
      <EmergencyControl emergencyActive={emergencyActive} />
    </div>
  );
}
