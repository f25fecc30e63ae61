// The dashboard header (SPEC.md §2): live connection status, the last-signal text, and
// Emergency Stop / Reset Emergency Stop (shown while the `system` component is in warning).
import ReportIcon from "@mui/icons-material/Report";
import RestartAltIcon from "@mui/icons-material/RestartAlt";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import Typography from "@mui/material/Typography";
import { useFetcher } from "@remix-run/react";
import { useEffect } from "react";
import type { Toast } from "#app/core/schemas/toast.ts";
import { useLive } from "#app/live/use-live-updates.tsx";
import { lastSignalLabel } from "#app/utils/format.ts";
import { useHydrated, useNow } from "#app/utils/use-hydrated.ts";
import { useInvalidate } from "#app/utils/use-api-query.tsx";
import { useToast } from "../toaster.tsx";

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

export function DashboardHeader({ emergencyActive, lastSignalAt }: { emergencyActive: boolean; lastSignalAt: string | null }) {
  const { connected } = useLive();
  const now = useNow(30_000);
  const invalidate = useInvalidate();
  const fetcher = useIntentFetcher("emergency", () => invalidate("/api/dashboard/stats", "/api/health", "/api/signals", "/api/logs"));
  const busy = fetcher.state !== "idle";
  return (
    <Box sx={{ display: "flex", alignItems: "center", gap: 2, flexWrap: "wrap", mb: 3 }}>
      <Typography variant="h1" component="h1">
        Dashboard
      </Typography>
      <Chip
        data-testid="connection-status"
        size="small"
        label={connected ? "Connected" : "Disconnected"}
        color={connected ? "success" : "default"}
        variant={connected ? "filled" : "outlined"}
      />
      <Typography variant="body2" color="text.secondary" data-testid="last-signal">
        {`Last signal: ${lastSignalLabel(lastSignalAt, now)}`}
      </Typography>
      <Box sx={{ flex: 1 }} />
      <fetcher.Form method="post">
        <JsMarker />
        {emergencyActive ? (
          <Button type="submit" name="intent" value="reset-emergency-stop" variant="outlined" color="warning" startIcon={<RestartAltIcon />} disabled={busy}>
            Reset Emergency Stop
          </Button>
        ) : (
          <Button type="submit" name="intent" value="emergency-stop" variant="contained" color="error" startIcon={<ReportIcon />} disabled={busy}>
            Emergency Stop
          </Button>
        )}
      </fetcher.Form>
    </Box>
  );
}
