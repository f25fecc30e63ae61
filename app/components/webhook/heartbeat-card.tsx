// Missed-alert detection on Webhook Config (issue 12): expect a heartbeat alert from the default
// strategy (the global secret) every N seconds; shows its state and the alert to paste. A plain
// form post (intent "heartbeat"), so it works without JavaScript.
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { Form } from "@remix-run/react";
import type { StrategyHeartbeat } from "#app/core/types/heartbeats.ts";

const mono = { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace", fontSize: 13 } as const;

/** "12 s", "4 min", "2 h" */
export function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

export function heartbeatStateText(
  h: Pick<StrategyHeartbeat, "state" | "lastAt" | "missedSince" | "dueAt">,
  now: number,
): string {
  if (h.state === "missed") return `Missed: none since ${h.lastAt ? `${ago(now - h.lastAt)} ago` : "it was set up"}`;
  if (h.state === "ok") return `OK: last ${ago(now - (h.lastAt ?? now))} ago, next due within ${ago(h.dueAt - now)}`;
  return `Waiting for the first heartbeat (due within ${ago(h.dueAt - now)})`;
}

export function HeartbeatCard({
  heartbeat,
  secret,
  revealed,
  now,
  error,
}: {
  heartbeat: StrategyHeartbeat | null;
  secret: string;
  revealed: boolean;
  now: number;
  error: string | null;
}) {
  const message = JSON.stringify({ secret: revealed ? secret : "•".repeat(12), action: "heartbeat" });
  const color = heartbeat?.state === "missed" ? "error" : heartbeat?.state === "ok" ? "success" : "default";
  return (
    <Paper variant="outlined" sx={{ p: 2.5, minWidth: 0 }} data-testid="heartbeat-card">
      <Typography variant="h3" component="h2" sx={{ mb: 2 }}>
        Missed-alert alarm
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 1.5 }}>
        A second TradingView alert on the same chart that fires on every bar close (or at a set interval) with the
        message below proves the strategy's alerts still arrive. When none comes within the interval plus a grace, the
        webhook status turns to warning and an error is logged and pushed live.
      </Typography>
      <Stack direction="row" spacing={1} sx={{ alignItems: "center", mb: 1.5, flexWrap: "wrap" }}>
        <Chip
          size="small"
          color={color}
          label={heartbeat ? heartbeat.state.toUpperCase() : "OFF"}
          data-testid="heartbeat-state"
        />
        <Typography variant="body2" data-testid="heartbeat-text">
          {heartbeat ? heartbeatStateText(heartbeat, now) : "No heartbeat expected."}
        </Typography>
      </Stack>
      <Box
        component="pre"
        sx={{
          ...mono,
          p: 1.5,
          m: 0,
          mb: 1.5,
          borderRadius: 1,
          bgcolor: "action.hover",
          whiteSpace: "pre-wrap",
          wordBreak: "break-all",
        }}
        data-testid="heartbeat-message"
      >
        {message}
      </Box>
      {error ? (
        <Alert severity="error" sx={{ mb: 1.5 }}>
          {error}
        </Alert>
      ) : null}
      <Form
        method="post"
        action="/webhook"
        style={{ display: "flex", gap: 8, flexWrap: "wrap", alignItems: "flex-start" }}
      >
        <input type="hidden" name="intent" value="heartbeat" />
        <TextField
          name="intervalSeconds"
          label="Every (seconds)"
          size="small"
          type="number"
          defaultValue={heartbeat?.intervalSeconds ?? 3600}
          slotProps={{ htmlInput: { min: 60, step: 1, "data-testid": "heartbeat-interval" } }}
          sx={{ width: 150 }}
        />
        <TextField
          name="graceSeconds"
          label="Grace (seconds)"
          size="small"
          type="number"
          defaultValue={heartbeat?.graceSeconds ?? ""}
          placeholder="auto"
          slotProps={{ htmlInput: { min: 0, step: 1, "data-testid": "heartbeat-grace" } }}
          sx={{ width: 150 }}
        />
        <Button type="submit" variant="outlined" data-testid="heartbeat-save">
          Expect heartbeat
        </Button>
        {heartbeat ? (
          <Button type="submit" name="off" value="1" color="inherit" data-testid="heartbeat-off">
            Stop expecting
          </Button>
        ) : null}
      </Form>
    </Paper>
  );
}
