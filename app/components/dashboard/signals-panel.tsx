// The Signals panel (docs/spec/screens.md Dashboard): a 'Live' badge and the latest signals.
import Tooltip from "@mui/material/Tooltip";
import type { Signal } from "#app/core/types/signals.ts";
import { useLive } from "#app/live/use-live-updates.tsx";
import { formatPrice, signalAge } from "#app/core/format.ts";
import { useHydrated, useNow } from "#app/utils/use-hydrated.ts";
import { CARD, LeanCard, LeanChip, LeanIcon, T, cls } from "../ui/lean.tsx";
import { S } from "./signals-panel.css.ts";
import { SignalTimelineDetails } from "../signals/signal-timeline.tsx";
import type { SignalTimeline } from "#app/core/timeline.ts";

export const SIGNALS_POLL_MS = 60_000;

// The rows are plain elements with the lean classes (components/ui/lean.tsx) instead of an
// MUI Box, Typography and Chip each: a styled component per element is what server rendering
// the dashboard cost (docs/benchmarks.md, "Pages (T5)"). The chips' Tooltips mount after
// hydration; before it the reason is the chip's aria-label, as a closed Tooltip renders it.
const ARROW_UP = "m4 12 1.41 1.41L11 7.83V20h2V7.83l5.58 5.59L20 12l-8-8z";
const ARROW_DOWN = "m20 12-1.41-1.41L13 16.17V4h-2v12.17l-5.58-5.59L4 12l8 8z";

function StatusBadge({ signal }: { signal: Signal }) {
  if (signal.processed) return <LeanChip color="success" label="EXECUTED" />;
  if (signal.status === "queued") return <LeanChip color="warning" label="PENDING" />;
  // Stored but not executed (emergency stop, auto trading off, refused): say so.
  const reason = signal.statusReason ?? "";
  const chip = <LeanChip color={signal.status === "failed" ? "error" : undefined} label={signal.status.toUpperCase()} />;
  // The Tooltip renders the chip with the reason as its aria-label, on the server too.
  return reason ? <Tooltip title={reason}>{chip}</Tooltip> : chip;
}

/** A signal as the panel gets it: from the page, its latency line; from GET /api/signals, its whole timeline. */
export type PanelSignal = Signal & { timeline?: SignalTimeline | null; latency?: string | null };

export function SignalsPanel({ signals }: { signals: PanelSignal[] }) {
  const now = useNow(30_000);
  const { connected } = useLive();
  const hydrated = useHydrated();
  return (
    <LeanCard
      data-testid="signals-panel"
      title="Signals"
      action={<LeanChip label="Live" color={connected ? "success" : undefined} variant={connected ? "filled" : "outlined"} data-testid="signals-live-badge" />}
      contentClassName={cls(CARD.flush, S.list)}
    >
      {signals.length === 0 ? (
        <div className={S.empty}>
          <p className={T.body1}>No signals received yet</p>
          <p className={cls(T.body2, T.muted)}>Waiting for TradingView webhooks...</p>
        </div>
      ) : (
        signals.map((signal) => {
          const buy = signal.action === "buy";
          return (
            <div key={signal.id} data-testid="signal-row" className={S.row}>
              <div className={`${S.icon} ${buy ? "pd-c-primary" : "pd-c-error"}`}>
                <LeanIcon d={buy ? ARROW_UP : ARROW_DOWN} medium />
              </div>
              <div className={S.main}>
                <div className={S.head}>
                  <p className="pd-body1 pd-bold">{signal.action.toUpperCase()} Signal</p>
                  {signal.payload?.test === true ? (
                    <span className="pd-caption pd-bold pd-c-warning" title="Sent by Send test alert: traded on the simulator's test account, no position" data-testid="signal-test">
                      TEST
                    </span>
                  ) : null}
                  <StatusBadge signal={signal} />
                  <span className="pd-caption pd-ml-auto" key={hydrated ? "browser" : "server"} suppressHydrationWarning>
                    {signalAge(signal.createdAt, now)}
                  </span>
                </div>
                <p className="pd-body2">
                  {signal.symbol}
                  <SentTicker signal={signal} /> · {signal.orderType}
                  {signal.price ? ` · ${formatPrice(signal.price)}` : ""}
                </p>
                <span className="pd-caption pd-mono pd-muted">{JSON.stringify({ action: signal.action, symbol: signal.symbol, price: signal.price ?? undefined, qty: signal.quantity })}</span>
                <SignalTimelineDetails signalId={signal.id} timeline={signal.timeline} latency={signal.latency} />
              </div>
            </div>
          );
        })
      )}
    </LeanCard>
  );
}

/** The ticker the alert sent, beside the product it became, when they differ (issue 11). */
function SentTicker({ signal }: { signal: Pick<Signal, "symbol" | "payload"> }) {
  const sent = typeof signal.payload?.symbol === "string" ? signal.payload.symbol.trim() : "";
  if (!sent || sent.toUpperCase() === signal.symbol) return null;
  return <span className="pd-muted" data-testid="signal-ticker">{` (alert: ${sent.slice(0, 40)})`}</span>;
}
