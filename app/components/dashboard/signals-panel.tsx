// The Signals panel (docs/spec/screens.md Dashboard): a 'Live' badge and the latest signals.
import ArrowDownward from "@mui/icons-material/ArrowDownward";
import ArrowUpward from "@mui/icons-material/ArrowUpward";
import Chip from "@mui/material/Chip";
import { HydratedTooltip } from "../ui/hydrated-tooltip.tsx";
import Typography from "@mui/material/Typography";
import type { SignalRow } from "#app/core/dashboard-view.ts";
import { useLive } from "#app/live/use-live-updates.tsx";
import { formatPrice, signalAge } from "#app/core/format.ts";
import { signalCaption } from "#app/core/signal-text.ts";
import { useHydrated, useNow } from "#app/utils/use-hydrated.ts";
import { PanelCard } from "../ui/panel-card.tsx";
import { StatusLabel } from "../trade-status-chip.tsx";
import { S } from "./signals-panel.css.ts";
import { SignalTimelineDetails } from "../signals/signal-timeline.tsx";
import { PlainIcon } from "../ui/plain-icon.tsx";
import type { SignalTimeline } from "#app/core/timeline.ts";

export const SIGNALS_POLL_MS = 60_000;

// The rows' text is plain elements with the static row classes (app/styles/rows.css.ts), not a
// Typography each: a styled component per element is what server rendering the dashboard costs
// (decision 043). The status chips and icons are MUI's; a chip's reason is in MUI's Tooltip,
// which renders it as the chip's aria-label on the server too.

function StatusBadge({ signal }: { signal: SignalRow }) {
  if (signal.processed) return <StatusLabel color="success" label="EXECUTED" />;
  if (signal.status === "queued") return <StatusLabel color="warning" label="PENDING" />;
  // Stored but not executed (emergency stop, auto trading off, refused): say so. A cancelled
  // order's signal is CANCELLED, neutral like skipped, not a red FAILED (issue 25).
  const reason = signal.statusReason ?? "";
  const chip = (
    <StatusLabel color={signal.status === "failed" ? "error" : undefined} label={signal.status.toUpperCase()} />
  );
  // The Tooltip renders the chip with the reason as its aria-label, on the server too.
  return reason ? <HydratedTooltip title={reason}>{chip}</HydratedTooltip> : chip;
}

/**
 * A signal as the panel gets it: from the page, the fields the row shows (SignalRow) and its
 * latency line; from GET /api/signals, the whole signal and its timeline.
 */
export type PanelSignal = SignalRow & { timeline?: SignalTimeline | null; latency?: string | null };

export function SignalsPanel({ signals }: { signals: PanelSignal[] }) {
  const now = useNow(30_000);
  const { connected } = useLive();
  const hydrated = useHydrated();
  return (
    <PanelCard
      data-testid="signals-panel"
      title="Signals"
      action={
        <Chip
          size="small"
          label="Live"
          color={connected ? "success" : "default"}
          variant={connected ? "filled" : "outlined"}
          data-testid="signals-live-badge"
        />
      }
      flush
      contentClassName={S.list}
    >
      {signals.length === 0 ? (
        <div className={S.empty}>
          <Typography>No signals received yet</Typography>
          <Typography variant="body2" color="text.secondary">
            Waiting for TradingView webhooks...
          </Typography>
        </div>
      ) : (
        signals.map((signal) => {
          const buy = signal.action === "buy";
          return (
            <div key={signal.id} data-testid="signal-row" className={S.row}>
              <div className={`${S.icon} ${buy ? "pd-c-primary" : "pd-c-error"}`}>
                {/* Plain SVG with SvgIcon's rules (decision 043). */}
                <PlainIcon icon={buy ? ArrowUpward : ArrowDownward} />
              </div>
              <div className={S.main}>
                <div className={S.head}>
                  <p className="pd-body1 pd-bold">{`${signal.action.toUpperCase()} Signal`}</p>
                  {signal.payload?.test === true ? (
                    <span
                      className="pd-caption pd-bold pd-c-warning"
                      title="Sent by Send test alert: traded on the simulator's test account, no position"
                      data-testid="signal-test"
                    >
                      TEST
                    </span>
                  ) : null}
                  <StatusBadge signal={signal} />
                  <span
                    className="pd-caption pd-ml-auto"
                    key={hydrated ? "browser" : "server"}
                    suppressHydrationWarning
                  >
                    {signalAge(signal.createdAt, now)}
                  </span>
                </div>
                <p className="pd-body2">
                  {signal.symbol}
                  <SentTicker signal={signal} />
                  {` · ${signal.orderType}${signal.price ? ` · ${formatPrice(signal.price)}` : ""}`}
                </p>
                <span className="pd-caption pd-mono pd-muted">{JSON.stringify(signalCaption(signal))}</span>
                <SignalTimelineDetails signalId={signal.id} timeline={signal.timeline} latency={signal.latency} />
              </div>
            </div>
          );
        })
      )}
    </PanelCard>
  );
}

/** The ticker the alert sent, beside the product it became, when they differ (issue 11). */
function SentTicker({ signal }: { signal: Pick<SignalRow, "symbol" | "payload"> }) {
  const sent = typeof signal.payload?.symbol === "string" ? signal.payload.symbol.trim() : "";
  if (!sent || sent.toUpperCase() === signal.symbol) return null;
  return <span className="pd-muted" data-testid="signal-ticker">{` (alert: ${sent.slice(0, 40)})`}</span>;
}
