// "Send test alert" on Webhook Config (issue 12): posts the message the builder shows (its
// placeholders filled with sample values, marked as a test) through the webhook route TradingView posts to;
// then shows each step as it happens: the webhook's answer, the signal's status and reason, and
// its latency timeline (polled until the worker has settled it). A plain form post: without
// JavaScript the page reloads with the webhook's answer and the state at that moment.
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import { Form } from "@remix-run/react";
import { type FormEvent, useRef, useState } from "react";
import type { SignalTimeline } from "#app/core/timeline.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { SignalTimelineView } from "../signals/signal-timeline.tsx";

export interface TestAlertSent {
  status: number;
  signalId: string | null;
  answer: string;
}

export interface SignalNow {
  signal: {
    id: string;
    status: string;
    statusReason: string | null;
    symbol: string;
    action: string;
    quantity: string;
    test: boolean;
  };
  timeline: SignalTimeline | null;
}

const FINAL = new Set(["executed", "failed", "skipped"]);

export function TestAlertCard({
  builderSearch,
  sent,
  initial,
  action = "/webhook",
  hidden = {},
  bare = false,
}: {
  builderSearch: string;
  sent: TestAlertSent | null;
  initial: SignalNow | null;
  /** The page whose action sends it (Webhook Config, or Strategies with the strategy's id). */
  action?: string;
  hidden?: Record<string, string>;
  /** Inside another card (a strategy's): the button and the steps only. */
  bare?: boolean;
}) {
  // With JavaScript the builder keeps its choices in the address bar: send what it shows now.
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    const input = event.currentTarget.elements.namedItem("builder") as HTMLInputElement | null;
    if (input) input.value = window.location.search;
  };
  const form = (
    <Form method="post" action={action} onSubmit={onSubmit}>
      <input type="hidden" name="intent" value="test-alert" />
      <input type="hidden" name="builder" value={builderSearch} />
      {Object.entries(hidden).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <Button
        type="submit"
        variant={bare ? "outlined" : "contained"}
        size={bare ? "small" : "medium"}
        data-testid="test-alert-send"
      >
        Send test alert
      </Button>
    </Form>
  );
  if (bare) {
    return (
      <Box sx={{ minWidth: 0 }} data-testid="test-alert-card">
        {form}
        {sent ? <TestAlertProgress sent={sent} initial={initial} /> : null}
      </Box>
    );
  }
  return (
    <Paper variant="outlined" sx={{ p: 2.5, minWidth: 0 }} data-testid="test-alert-card">
      <Typography variant="h3" component="h2" sx={{ mb: 2 }}>
        Send test alert
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 1.5 }}>
        Sends the message built above, its placeholders filled with sample values (a small buy at the current price,
        now) and marked as a test, to this server's webhook endpoint (the route TradingView posts to), as TradingView
        would. It goes through the whole pipeline and is traded on the simulator's test account whatever exchange is
        active, then closed again: no position, no P&amp;L.
      </Typography>
      {form}
      {sent ? <TestAlertProgress sent={sent} initial={initial} /> : null}
    </Paper>
  );
}

/** Settled, and (when it traded) its fill's hop written. */
const isComplete = (now: SignalNow | null) =>
  now !== null &&
  FINAL.has(now.signal.status) &&
  (now.signal.status !== "executed" || now.timeline?.lastHop === "filled");

/** How long the panel keeps polling: the worker's last stamps are written just after the outcome. */
const POLL_FOR_MS = 15_000;

function TestAlertProgress({ sent, initial }: { sent: TestAlertSent; initial: SignalNow | null }) {
  const accepted = sent.status === 200 && sent.signalId !== null;
  const [since] = useState(() => Date.now());
  // What the last poll said decides whether to poll again (until the last hop is written).
  const latest = useRef<SignalNow | null>(initial);
  const { data } = useApiQuery<SignalNow>(`/api/signals/${encodeURIComponent(sent.signalId ?? "none")}`, {
    initialData: initial ?? undefined,
    enabled: accepted && !isComplete(latest.current) && Date.now() - since < POLL_FOR_MS,
    refetchIntervalMs: 500,
  });
  const now = data ?? initial;
  latest.current = now;
  const status = now?.signal.status ?? null;
  const settled = status !== null && FINAL.has(status);
  return (
    <Stack spacing={1.5} sx={{ mt: 2 }} data-testid="test-alert-progress" data-settled={settled ? "yes" : "no"}>
      <Step n={1} label="Webhook answer" ok={accepted}>
        <Box component="code" sx={{ fontSize: 13, wordBreak: "break-all" }} data-testid="test-alert-answer">
          HTTP {sent.status || "—"}: {sent.answer}
        </Box>
      </Step>
      {accepted ? (
        <Step n={2} label="Signal" ok={status === "executed" ? true : settled ? false : null}>
          <Stack direction="row" spacing={1} sx={{ alignItems: "center", flexWrap: "wrap" }}>
            <Chip
              size="small"
              label={status ?? "…"}
              color={status === "executed" ? "success" : settled ? "error" : "default"}
              data-testid="test-alert-status"
            />
            <Typography variant="body2" data-testid="test-alert-reason">
              {now?.signal.statusReason ?? (settled ? "" : "Waiting for the worker…")}
            </Typography>
          </Stack>
        </Step>
      ) : (
        <Alert severity="error">
          {sent.signalId
            ? "The webhook refused the test alert (it is stored as failed, with the reason above): nothing was traded."
            : "The webhook did not store the test alert: nothing else happened."}
        </Alert>
      )}
      {accepted && now?.timeline ? (
        <Step n={3} label="Latency timeline" ok={null}>
          <SignalTimelineView timeline={now.timeline} />
        </Step>
      ) : null}
    </Stack>
  );
}

function Step({ n, label, ok, children }: { n: number; label: string; ok: boolean | null; children: React.ReactNode }) {
  return (
    <Box>
      <Typography variant="body2" sx={{ fontWeight: 600, mb: 0.5 }}>
        {n}. {label} {ok === true ? "✓" : ok === false ? "✗" : ""}
      </Typography>
      {children}
    </Box>
  );
}
