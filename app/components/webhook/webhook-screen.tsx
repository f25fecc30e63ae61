// The Webhook Config screen (docs/spec/screens.md "Webhook Config", roles.md): the TradingView webhook URL and
// secret (copy, reveal, rotate), the setup steps with the port caveat, the ready-to-paste alert
// message and builder, test alerts, the allowlist, the signal format and defaults, the
// heartbeat alarm and the alert latency. Data and form posts: app/routes/_app+/webhook.tsx.
import ContentCopyIcon from "@mui/icons-material/ContentCopy";
import VisibilityIcon from "@mui/icons-material/Visibility";
import VisibilityOffIcon from "@mui/icons-material/VisibilityOff";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import IconButton from "@mui/material/IconButton";
import InputAdornment from "@mui/material/InputAdornment";
import Link from "@mui/material/Link";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableContainer from "@mui/material/TableContainer";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import TextField from "@mui/material/TextField";
import Tooltip from "@mui/material/Tooltip";
import Typography from "@mui/material/Typography";
import type { SerializeFrom } from "@remix-run/node";
import { Form, Link as RemixLink, useNavigation } from "@remix-run/react";
import { type ReactNode, useState } from "react";
import { AlertBuilder } from "#app/components/alert-builder/alert-builder.tsx";
import { ProtectionTable } from "#app/components/manual-trading/protection-table.tsx";
import { Screen } from "#app/components/screen.tsx";
import { LatencySummaryTable } from "#app/components/signals/latency-summary.tsx";
import { useCopy } from "#app/components/use-copy.ts";
import { HeartbeatCard } from "#app/components/webhook/heartbeat-card.tsx";
import { TestAlertCard } from "#app/components/webhook/test-alert-card.tsx";
import { TRADINGVIEW_ADDRESSES } from "#app/core/net/tradingview.ts";
import { listSymbols, resolveSymbol } from "#app/core/products.ts";
import type { SystemStatusEntry } from "#app/core/system-status.ts";
import { ROTATION_GRACE_LABELS } from "#app/core/webhook-rotation.ts";
import type { loader } from "#app/routes/_app+/webhook.tsx";
import type { AllowlistView } from "#app/services/webhook-guard.server.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";

export type WebhookScreenData = SerializeFrom<typeof loader>;

const HEALTH_POLL_MS = 30_000;

const mask = (secret: string) => "•".repeat(Math.min(Math.max(secret.length, 8), 32));

function CopyButton({ label, onClick, testId }: { label: string; onClick: () => void; testId: string }) {
  return (
    <Tooltip title={label}>
      <IconButton aria-label={label} onClick={onClick} edge="end" size="small" data-testid={testId}>
        <ContentCopyIcon fontSize="small" />
      </IconButton>
    </Tooltip>
  );
}

function Card({ title, children, testId }: { title: string; children: ReactNode; testId?: string }) {
  return (
    <Paper variant="outlined" sx={{ p: 2.5, minWidth: 0 }} data-testid={testId}>
      <Typography variant="h3" component="h2" sx={{ mb: 2 }}>
        {title}
      </Typography>
      {children}
    </Paper>
  );
}

const mono = { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace", fontSize: 13 } as const;
const Code = ({ children }: { children: ReactNode }) => (
  <Box component="code" sx={{ ...mono, px: 0.5, borderRadius: 0.5, bgcolor: "action.hover" }}>
    {children}
  </Box>
);

function StatusBadge({ entry }: { entry: SystemStatusEntry | undefined }) {
  const online = entry?.status === "online";
  const color = online ? "success" : entry?.status === "warning" ? "warning" : "error";
  return (
    <Stack
      direction="row"
      spacing={1}
      sx={{ alignItems: "center" }}
      data-testid="webhook-status"
      data-status={online ? "online" : "offline"}
    >
      <Chip label={online ? "Online" : "Offline"} color={color} size="small" sx={{ fontWeight: 600 }} />
      <Typography variant="body2" color="text.secondary" data-testid="webhook-status-message">
        {entry?.message ?? "No status reported for the webhook"}
      </Typography>
    </Stack>
  );
}

function EndpointCard({
  url,
  secret,
  revealed,
  onToggleReveal,
  previousUntil,
}: {
  url: string;
  secret: string;
  revealed: boolean;
  onToggleReveal: () => void;
  previousUntil: string | null;
}) {
  const copy = useCopy();
  const rotating = useRotating();
  return (
    <Card title="Webhook endpoint" testId="webhook-endpoint">
      <Stack spacing={2}>
        <WebhookUrlField
          url={url}
          adornment={
            <InputAdornment position="end">
              <CopyButton label="Copy webhook URL" onClick={() => copy(url, "Webhook URL")} testId="copy-webhook-url" />
            </InputAdornment>
          }
        />
        <TextField
          label="Secret"
          value={revealed ? secret : mask(secret)}
          fullWidth
          helperText="Sent as the secret field of the alert message (or as ?token= in the URL)."
          slotProps={{
            input: {
              readOnly: true,
              sx: mono,
              endAdornment: (
                <InputAdornment position="end">
                  <Tooltip title={revealed ? "Hide secret" : "Reveal secret"}>
                    <IconButton
                      aria-label={revealed ? "Hide secret" : "Reveal secret"}
                      onClick={onToggleReveal}
                      size="small"
                      data-testid="reveal-secret"
                    >
                      {revealed ? <VisibilityOffIcon fontSize="small" /> : <VisibilityIcon fontSize="small" />}
                    </IconButton>
                  </Tooltip>
                  <CopyButton label="Copy secret" onClick={() => copy(secret, "Secret")} testId="copy-secret" />
                </InputAdornment>
              ),
            },
            htmlInput: { "data-testid": "webhook-secret", "data-revealed": revealed ? "true" : "false" },
          }}
        />
        <Form
          method="post"
          onSubmit={(event) => {
            const grace = new FormData(event.currentTarget).get("grace");
            const when = grace === "none" ? "stops working at once" : "keeps working for the grace period, then stops";
            if (
              !window.confirm(
                `Rotate the webhook secret? The current secret ${when}; every TradingView alert needs the new alert message.`,
              )
            ) {
              event.preventDefault();
            }
          }}
        >
          <input type="hidden" name="intent" value="rotate" />
          <Stack direction="row" spacing={1.5} useFlexGap sx={{ alignItems: "center", flexWrap: "wrap" }}>
            <TextField
              select
              name="grace"
              label="Old secret keeps working"
              size="small"
              defaultValue="none"
              slotProps={{
                select: { native: true },
                inputLabel: { shrink: true },
                htmlInput: { "data-testid": "rotate-grace" },
              }}
            >
              {(Object.keys(ROTATION_GRACE_LABELS) as (keyof typeof ROTATION_GRACE_LABELS)[]).map((key) => (
                <option key={key} value={key}>
                  {ROTATION_GRACE_LABELS[key]}
                </option>
              ))}
            </TextField>
            <Button type="submit" variant="outlined" color="warning" disabled={rotating} data-testid="rotate-secret">
              {rotating ? "Rotating..." : "Rotate secret"}
            </Button>
          </Stack>
          <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }} data-testid="previous-secret-until">
            {previousUntil
              ? `The previous secret keeps working until ${previousUntil.replace("T", " ").slice(0, 19)} UTC: update your TradingView alerts before then.`
              : "Without a grace period the old secret stops working immediately."}
          </Typography>
        </Form>
      </Stack>
    </Card>
  );
}

/** Whether the page is posting a secret rotation (its button waits meanwhile). */
function useRotating() {
  const navigation = useNavigation();
  return navigation.state !== "idle" && navigation.formData?.get("intent") === "rotate";
}

/** The webhook URL, read-only, with what stands at its end (the copy button). */
function WebhookUrlField({ url, adornment }: { url: string; adornment?: ReactNode }) {
  return (
    <TextField
      label="Webhook URL"
      value={url}
      fullWidth
      slotProps={{
        input: { readOnly: true, sx: mono, ...(adornment ? { endAdornment: adornment } : {}) },
        htmlInput: { "data-testid": "webhook-url" },
      }}
    />
  );
}

/**
 * The stored secret was encrypted under another APP_SECRET (decision 041): say so, and offer a
 * new one (the same rotate post as the endpoint card, so it works without JavaScript).
 */
function UnreadableSecretCard({ url, message }: { url: string; message: string }) {
  const rotating = useRotating();
  return (
    <Card title="Webhook endpoint" testId="webhook-endpoint">
      <Stack spacing={2}>
        <WebhookUrlField url={url} />
        <Alert severity="error" data-testid="secret-unreadable">
          {message}
        </Alert>
        <Form method="post">
          <input type="hidden" name="intent" value="rotate" />
          <Button type="submit" variant="contained" color="warning" disabled={rotating} data-testid="rotate-secret">
            {rotating ? "Generating..." : "Generate a new secret"}
          </Button>
        </Form>
      </Stack>
    </Card>
  );
}

function PortNote({ url, port }: { url: string; port: number }) {
  let standardPort = false;
  let local = false;
  try {
    const parsed = new URL(url);
    standardPort = parsed.port === "";
    local = ["localhost", "127.0.0.1", "[::1]"].includes(parsed.hostname);
  } catch {
    // keep the defaults
  }
  return (
    <Alert severity={standardPort && !local ? "info" : "warning"} data-testid="port-note" sx={{ mt: 2 }}>
      {`TradingView only delivers webhooks to ports 80 and 443. This app listens on port ${port}, so it needs a reverse proxy (TLS on 443 forwarding to port ${port}) or a port mapping (80 → ${port}) in front of it; with a proxy set `}
      <Code>TRUST_PROXY=true</Code>
      {" so the URL above shows the public address. See “Reverse proxy” in "}
      <Code>docs/operations.md</Code>
      {"."}
      {local ? " The URL above points at this machine: TradingView must reach it from the internet." : null}
    </Alert>
  );
}

function SetupCard({ url, port }: { url: string; port: number }) {
  return (
    <Card title="TradingView setup" testId="webhook-setup">
      <Box component="ol" sx={{ m: 0, pl: 2.5, "& li": { mb: 0.75 } }} data-testid="setup-steps">
        <li>In TradingView, open the chart with your strategy and create an alert (Alerts → Create alert).</li>
        <li>
          On the alert's Notifications tab, enable <strong>Webhook URL</strong>.
        </li>
        <li>Paste the webhook URL from this page into the Webhook URL field.</li>
        <li>Paste the alert message below into the alert's Message field, replacing what is there.</li>
        <li>Save the alert (Create). Each fill of the strategy now sends a signal here.</li>
      </Box>
      <PortNote url={url} port={port} />
    </Card>
  );
}

function AlertMessageCard({ message, secret, revealed }: { message: string; secret: string; revealed: boolean }) {
  const copy = useCopy();
  const shown = revealed ? message : message.split(secret).join(mask(secret));
  return (
    <Card title="Alert message" testId="alert-message-card">
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
        Ready to paste: your secret is filled in{revealed ? "" : " (hidden here, included when copied)"}; the{" "}
        <Code>{"{{…}}"}</Code> placeholders are filled by TradingView when the alert fires.
      </Typography>
      <Box sx={{ position: "relative" }}>
        <Box
          component="pre"
          data-testid="alert-message"
          sx={{
            ...mono,
            m: 0,
            p: 2,
            pr: 6,
            borderRadius: 1,
            bgcolor: "background.default",
            border: 1,
            borderColor: "divider",
            overflowX: "auto",
            whiteSpace: "pre",
          }}
        >
          {shown}
        </Box>
        <Box sx={{ position: "absolute", top: 8, right: 16 }}>
          <CopyButton
            label="Copy alert message"
            onClick={() => copy(message, "Alert message")}
            testId="copy-alert-message"
          />
        </Box>
      </Box>
      <Typography variant="body2" color="text.secondary" sx={{ mt: 1.5 }}>
        For limit orders set <Code>"order_type": "limit"</Code> and keep <Code>price</Code>.
      </Typography>
    </Card>
  );
}

const FIELDS: { field: string; required: string; values: ReactNode }[] = [
  { field: "action", required: "required", values: "buy or sell" },
  {
    field: "symbol",
    required: "required",
    values: (
      <>
        {listSymbols().join(", ")}, or TradingView tickers such as <Code>BTCUSDT.P</Code>
      </>
    ),
  },
  { field: "quantity", required: "required", values: "a number greater than 0" },
  { field: "order_type", required: "required", values: "market or limit" },
  {
    field: "price",
    required: "required for limit orders",
    values: "a number greater than 0 (optional for market orders)",
  },
  {
    field: "timestamp",
    required: "optional",
    values:
      "ISO date or epoch time (without it, the arrival time counts). An entry older than 30 s is not chased: it is skipped; a signal that reduces an open position still runs.",
  },
  { field: "strategy", required: "optional", values: "text, kept with the signal" },
  {
    field: "id / alert_id",
    required: "optional",
    values:
      "deduplicates: an alert whose id was already received is not stored again (without an id, an identical body within 60 s counts as a duplicate)",
  },
  {
    field: "secret",
    required: "required",
    values: (
      <>
        the secret above, or <Code>?token=</Code> on the URL instead
      </>
    ),
  },
];

function SignalFormatCard({ maxBodyBytes }: { maxBodyBytes: number }) {
  const kib = Math.round(maxBodyBytes / 1024);
  const answers: [string, ReactNode][] = [
    [
      "200",
      <>
        <Code>"status": "queued"</Code>: stored and queued for execution
      </>,
    ],
    [
      "200",
      <>
        <Code>"status": "skipped"</Code>: stored, not executed (emergency stop or auto trading off; the reason is given)
      </>,
    ],
    [
      "200",
      <>
        <Code>"status": "duplicate"</Code>: already received, nothing new stored
      </>,
    ],
    [
      "400",
      <>
        invalid JSON or an invalid field; the answer names the field (<Code>"field": "quantity"</Code>)
      </>,
    ],
    ["401", "missing or wrong secret"],
    ["413", `body over ${kib} KiB`],
  ];
  return (
    <Card title="Signal format" testId="signal-format">
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
        POST a JSON object (sent as <Code>application/json</Code> or <Code>text/plain</Code>) to the webhook URL.
      </Typography>
      <TableContainer>
        <Table size="small" aria-label="Signal fields">
          <TableHead>
            <TableRow>
              <TableCell>Field</TableCell>
              <TableCell>Accepted values</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {FIELDS.map((row) => (
              <TableRow key={row.field} data-field={row.field}>
                <TableCell sx={{ verticalAlign: "top", width: "34%" }}>
                  <Box sx={{ ...mono, fontWeight: 600 }}>{row.field}</Box>
                  <Typography
                    variant="caption"
                    color={row.required === "optional" ? "text.secondary" : "warning.light"}
                  >
                    {row.required}
                  </Typography>
                </TableCell>
                <TableCell sx={{ verticalAlign: "top" }}>{row.values}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </TableContainer>
      <Typography variant="subtitle2" component="h3" sx={{ mt: 3, mb: 1 }}>
        Answers
      </Typography>
      <TableContainer>
        <Table size="small" aria-label="Webhook answers">
          <TableBody>
            {answers.map(([status, text], i) => (
              <TableRow key={i}>
                <TableCell sx={{ ...mono, width: 64 }}>{status}</TableCell>
                <TableCell>{text}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </TableContainer>
      <Typography variant="body2" color="text.secondary" sx={{ mt: 1.5 }}>
        Every signal and every rejected call is written to the{" "}
        <Link component={RemixLink} to="/logs">
          Activity Logs
        </Link>
        .
      </Typography>
    </Card>
  );
}

/** TradingView tickers as alerts send them, and the product each becomes (resolveSymbol). */
const TICKER_EXAMPLES = ["BINANCE:ETHUSDT", "ETHUSDT.P", "COINBASE:BTC-USD", "BTCUSD", "SOLUSDC", "XRP-PERP"];

/** What a position opened by a signal gets (issue 11), and how tickers map to products. */
function SignalDefaultsCard({
  protection,
  strict,
}: {
  protection: { label: string; value: string; on: boolean }[];
  strict: boolean;
}) {
  return (
    <Card title="What a signal gets" testId="signal-defaults">
      <Typography color="text.secondary" sx={{ mb: 1 }}>
        A position opened by an alert carries this protection (Trading Rules, signal switches):
      </Typography>
      <ProtectionTable lines={protection} label="Protection for signal positions" testId="signal-protection-line" />
      <Typography color="text.secondary" sx={{ mt: 2, mb: 1 }}>
        {strict ? (
          <>
            Strict ticker mapping is <b>on</b>: an alert must name the product itself ({listSymbols().join(", ")}); any
            other ticker is refused with a 400, so an alert copied onto another chart cannot trade the wrong product:
          </>
        ) : (
          <>
            Tickers map to the perpetual of their base asset (exchange prefix, quote currency and <code>.P</code> are
            dropped); any other base is refused with a 400:
          </>
        )}
      </Typography>
      <Table size="small" aria-label="Ticker mapping">
        <TableBody>
          {TICKER_EXAMPLES.map((ticker) => (
            <TableRow key={ticker} data-testid="ticker-mapping">
              <TableCell sx={{ fontFamily: "monospace" }}>{ticker}</TableCell>
              <TableCell>
                → {(strict && !listSymbols().includes(ticker) ? null : resolveSymbol(ticker)?.symbol) ?? "refused"}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <Form method="post" action="/webhook" style={{ marginTop: 16 }}>
        <input type="hidden" name="intent" value="strict-tickers" />
        <input type="hidden" name="value" value={strict ? "off" : "on"} />
        <Button type="submit" variant="outlined" size="small" data-testid="strict-tickers-toggle">
          {strict ? "Turn strict mapping off" : "Turn strict mapping on"}
        </Button>
      </Form>
    </Card>
  );
}

/** Who may post alerts: anyone with the secret, TradingView's published addresses, or a list. */
function AllowlistCard({
  allowlist,
  error,
  yourAddress,
  trustProxy,
}: {
  allowlist: AllowlistView;
  error: string | null;
  yourAddress: string | null;
  trustProxy: boolean;
}) {
  const fromEnv = allowlist.source === "env";
  return (
    <Card title="Allowed senders" testId="allowlist-card">
      <Typography color="text.secondary" sx={{ mb: 1.5 }}>
        Optional: only these addresses may post alerts, even with the secret. <code>tradingview</code> stands for
        TradingView's published webhook addresses ({TRADINGVIEW_ADDRESSES.join(", ")}). Empty: any address with the
        secret.
      </Typography>
      <Typography sx={{ mb: 1.5 }} data-testid="allowlist-state">
        {allowlist.addresses.length === 0
          ? "Now: any address with the secret."
          : `Now: ${allowlist.addresses.length} address${allowlist.addresses.length === 1 ? "" : "es"} (${allowlist.addresses.join(", ")}).`}
      </Typography>
      {fromEnv ? (
        <Alert severity="info">Set by the WEBHOOK_ALLOWLIST environment variable: change it there and restart.</Alert>
      ) : (
        <Form method="post" action="/webhook" style={{ display: "grid", gap: 8 }}>
          <input type="hidden" name="intent" value="allowlist" />
          <TextField
            name="allowlist"
            label="Addresses"
            size="small"
            defaultValue={allowlist.value}
            error={Boolean(error)}
            helperText={error ?? 'Comma separated, e.g. "tradingview" or "tradingview, 203.0.113.7"'}
            slotProps={{ htmlInput: { "data-testid": "allowlist-input", maxLength: 4000 } }}
          />
          <Box>
            <Button type="submit" variant="outlined" data-testid="allowlist-save">
              Save allowed senders
            </Button>
          </Box>
        </Form>
      )}
      <Typography variant="body2" color="text.secondary" sx={{ mt: 1.5 }}>
        This app sees your own requests coming from {yourAddress ?? "an unknown address"}.{" "}
        {trustProxy
          ? "Behind your proxy it reads the sender from X-Forwarded-For (TRUST_PROXY is on)."
          : "If that is your proxy's address, turn TRUST_PROXY on first, or every alert would be refused."}
      </Typography>
    </Card>
  );
}

export function WebhookScreen({ data }: { data: WebhookScreenData }) {
  const {
    config,
    systemStatus,
    rotated,
    allowlist,
    allowlistError,
    yourAddress,
    trustProxy,
    protection,
    strictTickers,
    leverageApplies,
    latency,
    heartbeat,
    heartbeatError,
    now,
    testSent,
    testInitial,
    builderSearch,
  } = data;
  const { data: health } = useApiQuery<{ systemStatus: SystemStatusEntry[] }>("/api/health", {
    initialData: { systemStatus },
    refetchIntervalMs: HEALTH_POLL_MS,
  });
  const webhook = (health?.systemStatus ?? systemStatus).find((entry) => entry.component === "webhook");
  // The reveal toggle belongs to one secret: right after a rotation the new one is shown.
  const [toggled, setToggled] = useState<{ secret: string; revealed: boolean } | null>(null);
  const revealed = toggled?.secret === config.secret ? toggled.revealed : rotated;
  const secret = config.secret;

  return (
    <Screen title="Webhook Config" badge={<StatusBadge entry={webhook} />}>
      <Box
        sx={{
          display: "grid",
          gap: 3,
          alignItems: "start",
          gridTemplateColumns: { xs: "minmax(0, 1fr)", lg: "repeat(2, minmax(0, 1fr))" },
        }}
      >
        <Stack spacing={3} sx={{ minWidth: 0 }}>
          {secret === null || config.alertMessage === null ? (
            <UnreadableSecretCard url={config.url} message={config.secretError ?? ""} />
          ) : (
            <EndpointCard
              url={config.url}
              secret={secret}
              revealed={revealed}
              onToggleReveal={() => setToggled({ secret, revealed: !revealed })}
              previousUntil={config.previousSecretUntil ?? null}
            />
          )}
          <SetupCard url={config.url} port={config.port} />
          {secret === null || config.alertMessage === null ? null : (
            <>
              <AlertMessageCard message={config.alertMessage} secret={secret} revealed={revealed} />
              <AlertBuilder
                secret={secret}
                revealed={revealed}
                url={config.url}
                leverageApplies={leverageApplies}
                strictTickers={strictTickers}
              />
              <Box id="test-alert">
                <TestAlertCard builderSearch={builderSearch} sent={testSent} initial={testInitial} />
              </Box>
            </>
          )}
          <AllowlistCard
            allowlist={allowlist}
            error={allowlistError}
            yourAddress={yourAddress}
            trustProxy={trustProxy}
          />
        </Stack>
        <Stack spacing={3} sx={{ minWidth: 0 }}>
          <SignalFormatCard maxBodyBytes={config.maxBodyBytes} />
          <SignalDefaultsCard protection={protection} strict={strictTickers} />
          {secret === null ? null : (
            <HeartbeatCard heartbeat={heartbeat} secret={secret} revealed={revealed} now={now} error={heartbeatError} />
          )}
          <Card title="Alert latency, last 24 h" testId="latency-summary">
            <LatencySummaryTable initial={latency} />
          </Card>
        </Stack>
      </Box>
    </Screen>
  );
}
