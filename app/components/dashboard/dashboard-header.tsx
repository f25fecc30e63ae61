// The dashboard header (docs/spec/screens.md): live connection status, the last-signal text, and
// Emergency Stop / Reset Emergency Stop (shown while the `system` component is in warning).
import { useFetcher } from "@remix-run/react";
import { useEffect } from "react";
import type { Toast } from "#app/core/schemas/toast.ts";
import { useLive } from "#app/live/use-live-updates.tsx";
import { lastSignalLabel } from "#app/core/format.ts";
import { useHydrated, useNow } from "#app/utils/use-hydrated.ts";
import { useInvalidate } from "#app/utils/use-api-query.tsx";
import { useToast } from "../toaster.tsx";
import { LeanChip, LeanIcon, T, cls } from "../ui/lean.tsx";
import { useCan } from "../layout/permissions.tsx";
import { LeanButton } from "../ui/lean-button.tsx";
import { S } from "./dashboard-header.css.ts";
import { FLATTEN_CONFIRMED, confirmFlatten } from "../positions/flatten-confirm.tsx";

// Material icons' paths: Report and RestartAlt.
const REPORT = "M15.73 3H8.27L3 8.27v7.46L8.27 21h7.46L21 15.73V8.27zM12 17.3c-.72 0-1.3-.58-1.3-1.3s.58-1.3 1.3-1.3 1.3.58 1.3 1.3-.58 1.3-1.3 1.3m1-4.3h-2V7h2z";
const RESTART =
  "M12 5V2L8 6l4 4V7c3.31 0 6 2.69 6 6 0 2.97-2.17 5.43-5 5.91v2.02c3.95-.49 7-3.85 7-7.93 0-4.42-3.58-8-8-8m-6 8c0-1.65.67-3.15 1.76-4.24L6.34 7.34C4.9 8.79 4 10.79 4 13c0 4.08 3.05 7.44 7 7.93v-2.02c-2.83-.48-5-2.94-5-5.91";

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
  const fetcher = useIntentFetcher("emergency", () => invalidate("/api/dashboard/stats", "/api/health", "/api/signals", "/api/logs"));
  const busy = fetcher.state !== "idle";
  const canReset = useCan("emergency.reset");
  const canFlatten = useCan("positions.close");
  const hydrated = useHydrated();
  return (
    <fetcher.Form method="post" action={action} className={S.controls}>
      <JsMarker />
      {/* Flattening asks first (decision 041): the dialog with JavaScript, which then sends confirm=1; the action's panel without. */}
      {canFlatten && hydrated ? <input type="hidden" name={FLATTEN_CONFIRMED.name} value={FLATTEN_CONFIRMED.value} /> : null}
      {canFlatten ? (
        <LeanButton
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
        </LeanButton>
      ) : null}
      {emergencyActive && !canReset ? (
        <LeanChip data-testid="emergency-active" label="Emergency stop active: an admin resets it" color="error" variant="outlined" />
      ) : emergencyActive ? (
        <LeanButton type="submit" name="intent" value="reset-emergency-stop" variant="outlined" color="warning" startIcon={<LeanIcon d={RESTART} />} disabled={busy}>
          Reset Emergency Stop
        </LeanButton>
      ) : (
        <LeanButton type="submit" name="intent" value="emergency-stop" variant="contained" color="error" startIcon={<LeanIcon d={REPORT} />} disabled={busy}>
          Emergency Stop
        </LeanButton>
      )}
    </fetcher.Form>
  );
}

export function DashboardHeader({ emergencyActive, lastSignalAt }: { emergencyActive: boolean; lastSignalAt: string | null }) {
  const { connected } = useLive();
  const now = useNow(30_000);
  const hydrated = useHydrated();
  return (
    <div className={S.bar}>
      <h1 className={T.h1}>Dashboard</h1>
      <LeanChip data-testid="connection-status" label={connected ? "Connected" : "Disconnected"} color={connected ? "success" : undefined} variant={connected ? "filled" : "outlined"} />
      <p className={cls(T.body2, T.muted)} data-testid="last-signal" key={hydrated ? "browser" : "server"} suppressHydrationWarning>
        {`Last signal: ${lastSignalLabel(lastSignalAt, now)}`}
      </p>
      <div className={S.spacer} />
      <EmergencyControl emergencyActive={emergencyActive} />
    </div>
  );
}
