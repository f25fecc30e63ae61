// The latency timeline of one alert (issue 12): each hop of its path with its time (UTC, to
// the millisecond) and the time since the hop before it. Plain elements with static classes,
// server-rendered (readable without JavaScript); the page re-fetches it on live events, so
// the hops fill in as the worker reaches them.
import { useState } from "react";
import { type SignalTimeline, formatMs, latencyLine } from "#app/core/timeline.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { S } from "./signal-timeline.css.ts";
import { cls } from "../ui/cls.ts";

/** HH:MM:SS.mmm UTC: the same text on the server and in the browser (no hydration mismatch). */
const clock = (iso: string) => `${iso.slice(11, 23)} UTC`;

export function SignalTimelineView({ timeline, compact }: { timeline: SignalTimeline; compact?: boolean }) {
  const skew = timeline.steps[1]?.deltaMs != null && timeline.steps[1].deltaMs < 0;
  return (
    <div data-testid="signal-timeline" data-signal-id={timeline.signalId} data-last-hop={timeline.lastHop ?? ""}>
      {compact ? null : (
        <p className={S.head}>
          {timeline.totalMs !== null
            ? `Received → ${timeline.steps.find((s) => s.hop === timeline.lastHop)?.label.toLowerCase()}: ${formatMs(timeline.totalMs)}`
            : "Waiting for the first hops"}
        </p>
      )}
      <ol className={S.list} aria-label="Latency timeline">
        {timeline.steps.map((step) => (
          <li key={step.hop} className={S.step} data-testid="timeline-step" data-hop={step.hop}>
            <span className={cls(S.dot, step.at ? S.done : S.waiting)} aria-hidden="true" />
            <span className={S.label}>
              {step.label}
              {step.at ? (
                <time className={S.time} dateTime={step.at} title={step.at}>
                  {clock(step.at)}
                </time>
              ) : (
                <span className={S.time}>{step.hop === "fired" ? "not in the alert" : "not yet"}</span>
              )}
            </span>
            <span
              className={S.delta}
              data-testid="timeline-delta"
              title={step.deltaMs !== null ? "Time since the previous hop" : undefined}
            >
              {step.deltaMs === null
                ? ""
                : step.deltaMs >= 0
                  ? `+${formatMs(step.deltaMs)}`
                  : `−${formatMs(-step.deltaMs)}`}
            </span>
          </li>
        ))}
      </ol>
      {timeline.steps[0]?.at === null && !compact ? (
        <p className={S.head}>
          Add "timenow": "{"{{timenow}}"}" to the alert message to see TradingView's own delay (it has whole-second
          precision).
        </p>
      ) : null}
      {skew ? (
        <p className={S.warn}>
          TradingView's time is after ours: the clocks differ (timenow has whole-second precision).
        </p>
      ) : null}
      {!timeline.monotonic ? (
        <p className={S.warn}>Hops out of order: the worker's and the web server's clocks differ.</p>
      ) : null}
    </div>
  );
}

/**
 * A collapsed "Latency" line that opens the timeline (a native details element). The dashboard
 * sends only the line (`latency`); the hops load when the row is opened (GET /api/signals/{id},
 * following live updates), or come with the signal once the panel has polled the API. Without
 * JavaScript the opened line links to the timeline's own page, /signals/{id} (decision 043).
 */
export function SignalTimelineDetails({
  signalId,
  timeline,
  latency,
}: {
  signalId: string;
  timeline?: SignalTimeline | null;
  latency?: string | null;
}) {
  const [open, setOpen] = useState(false);
  const line = timeline ? latencyLine(timeline) : timeline === null ? null : latency;
  if (!line) return null;
  return (
    <details data-testid="signal-timeline-details" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary className={S.summary}>{line}</summary>
      {timeline ? (
        <SignalTimelineView timeline={timeline} compact />
      ) : (
        <TimelineOnDemand signalId={signalId} open={open} />
      )}
    </details>
  );
}

function TimelineOnDemand({ signalId, open }: { signalId: string; open: boolean }) {
  const { data } = useApiQuery<{ timeline: SignalTimeline | null }>(`/api/signals/${encodeURIComponent(signalId)}`, {
    enabled: open,
  });
  if (data?.timeline) return <SignalTimelineView timeline={data.timeline} compact />;
  return (
    // A plain link with MUI Link's look (pd-link): one per signal row (decision 043).
    <a
      href={`/signals/${encodeURIComponent(signalId)}`}
      className="pd-caption pd-link"
      data-testid="signal-timeline-link"
    >
      Open the latency timeline
    </a>
  );
}
