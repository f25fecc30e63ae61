// The Notifications screen (issue 13, decision 030): one card per channel (Telegram, webhook,
// e-mail) with its settings, its events and "Send test message"; the rate limit and the daily
// summary's time; the delivery log, newest first, paged by id. Every form is a plain post to
// /notifications validated by Conform with the shared Zod schemas. Secrets are never in the
// page: a saved one shows as "saved" or its last 4 characters, and an empty field keeps it.
import { type SubmissionResult, getFormProps } from "@conform-to/react";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Checkbox from "@mui/material/Checkbox";
import Chip from "@mui/material/Chip";
import FormControlLabel from "@mui/material/FormControlLabel";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableContainer from "@mui/material/TableContainer";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { Form, Link as RemixLink } from "@remix-run/react";
import type { ReactNode } from "react";
import {
  CHANNEL_LABELS,
  type Channel,
  EVENT_LABELS,
  NOTIFICATION_EVENTS,
  type NotificationsConfig,
} from "#app/core/notifications/events.ts";
import { NOTIFICATION_FORMS } from "#app/core/schemas/notifications.ts";
import type { ChannelView } from "#app/services/notifications.server.ts";
import { FormError, useZodForm } from "../forms.tsx";
import { Screen } from "../screen.tsx";

interface DeliveryView {
  id: number;
  kind: string;
  title: string;
  channel: string;
  status: string;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
}

export interface NotificationsData {
  channels: ChannelView[];
  config: NotificationsConfig;
  log: { entries: DeliveryView[]; nextBefore: number | null };
  firstPage: boolean;
}

type ActionData = { intent: string; result?: SubmissionResult<string[]> | undefined; error?: string };

const STATUS_COLORS: Record<string, "success" | "error" | "warning" | "info" | "default"> = {
  sent: "success",
  failed: "error",
  retrying: "warning",
  digested: "info",
  queued: "default",
  sending: "default",
};

function ChannelForm({
  view,
  lastResult,
  children,
}: {
  view: ChannelView;
  lastResult: SubmissionResult<string[]> | undefined;
  children: (field: (name: string) => { name: string; error?: string; defaultValue?: string }) => ReactNode;
}) {
  const [form, fields] = useZodForm<Record<string, unknown>, unknown>({
    id: `notify-${view.channel}`,
    schema: NOTIFICATION_FORMS[view.channel],
    lastResult,
  });
  const field = (name: string) => {
    const f = (fields as Record<string, { name: string; errors?: string[] }>)[name];
    return {
      name,
      error: f?.errors?.[0],
      defaultValue: view.settings[name] == null ? undefined : String(view.settings[name]),
    };
  };
  return (
    <Paper variant="outlined" sx={{ p: 2 }} data-testid={`channel-${view.channel}`}>
      <Stack direction="row" spacing={1} sx={{ alignItems: "center", mb: 1 }}>
        <Typography variant="h6" sx={{ flex: 1 }}>
          {CHANNEL_LABELS[view.channel]}
        </Typography>
        <Chip
          size="small"
          label={view.enabled ? "On" : view.configured ? "Off" : "Not set up"}
          color={view.enabled ? "success" : "default"}
        />
      </Stack>
      {/* Keyed by the save time: after a save the fields start empty again (a typed secret does not linger). */}
      <Form method="post" {...getFormProps(form)} key={view.updatedAt ?? "new"} noValidate>
        <input type="hidden" name="intent" value={view.channel} />
        <FormError errors={form.errors} />
        <FormControlLabel
          control={
            <Checkbox
              name="enabled"
              defaultChecked={view.enabled}
              slotProps={{ input: { "aria-label": `${view.channel} enabled` } }}
            />
          }
          label="Send notifications on this channel"
        />
        {children(field)}
        <Typography variant="subtitle2" sx={{ mt: 1 }}>
          Events
        </Typography>
        <Box sx={{ display: "grid", gridTemplateColumns: { xs: "1fr", sm: "1fr 1fr" } }}>
          {NOTIFICATION_EVENTS.map((event) => (
            <FormControlLabel
              key={event}
              control={
                <Checkbox size="small" name="events" value={event} defaultChecked={view.events.includes(event)} />
              }
              label={EVENT_LABELS[event]}
            />
          ))}
        </Box>
        <Stack direction="row" spacing={1} sx={{ mt: 1 }}>
          <Button type="submit" variant="contained" data-testid={`save-${view.channel}`}>
            Save
          </Button>
        </Stack>
      </Form>
      {view.configured ? (
        <Form method="post" style={{ marginTop: 8 }}>
          <input type="hidden" name="intent" value="test" />
          <input type="hidden" name="channel" value={view.channel} />
          <Button type="submit" variant="outlined" size="small" data-testid={`test-${view.channel}`}>
            Send test message
          </Button>
          {view.updatedBy ? (
            <Typography component="span" variant="caption" color="text.secondary" sx={{ ml: 1 }}>
              Saved by {view.updatedBy} {view.updatedAt?.replace("T", " ").slice(0, 16)} UTC
            </Typography>
          ) : null}
        </Form>
      ) : null}
    </Paper>
  );
}

function secretHelp(hint: string | undefined, what: string) {
  return hint ? `${what} saved (${hint}); leave empty to keep it` : `Not saved yet`;
}

function Text({
  f,
  label,
  type = "text",
  helperText,
  placeholder,
}: {
  f: { name: string; error?: string; defaultValue?: string };
  label: string;
  type?: string;
  helperText?: string;
  placeholder?: string;
}) {
  return (
    <TextField
      name={f.name}
      label={label}
      type={type}
      defaultValue={type === "password" ? "" : (f.defaultValue ?? "")}
      placeholder={placeholder}
      fullWidth
      size="small"
      margin="dense"
      autoComplete={type === "password" ? "new-password" : "off"}
      error={!!f.error}
      helperText={f.error ?? helperText}
      slotProps={{ htmlInput: { "data-testid": `field-${f.name}` }, inputLabel: { shrink: true } }}
    />
  );
}

export function NotificationsScreen({ data, actionData }: { data: NotificationsData; actionData?: ActionData }) {
  const view = (channel: Channel) => data.channels.find((c) => c.channel === channel)!;
  const resultFor = (intent: string) => (actionData?.intent === intent ? actionData.result : undefined);
  const [general, generalFields] = useZodForm({
    id: "notify-general",
    schema: NOTIFICATION_FORMS.general,
    lastResult: resultFor("general"),
    defaultValue: {
      rateLimitPerMinute: String(data.config.rateLimitPerMinute),
      dailySummaryTime: data.config.dailySummaryTime,
    },
  });
  const telegram = view("telegram");
  const webhook = view("webhook");
  const email = view("email");
  return (
    <Screen title="Notifications">
      <Stack spacing={2}>
        <Box sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", lg: "1fr 1fr 1fr" } }}>
          <ChannelForm view={telegram} lastResult={resultFor("telegram")}>
            {(f) => (
              <>
                <Text
                  f={f("botToken")}
                  label="Bot token"
                  type="password"
                  helperText={secretHelp(telegram.secretHints.botToken, "Token")}
                  placeholder="123456789:AA…"
                />
                <Text
                  f={f("chatId")}
                  label="Chat id"
                  helperText="Your chat with the bot (see docs/operations.md); commands are answered only there"
                />
              </>
            )}
          </ChannelForm>
          <ChannelForm view={webhook} lastResult={resultFor("webhook")}>
            {(f) => (
              <>
                <Text
                  f={f("url")}
                  label="Webhook URL"
                  type="password"
                  helperText={
                    webhook.secretHints.url
                      ? `URL saved (${String(webhook.settings.host ?? "")}, ${webhook.secretHints.url}); leave empty to keep it`
                      : "Discord or Slack incoming-webhook URL, or your own endpoint"
                  }
                />
                <Text
                  f={f("signingSecret")}
                  label="Signing secret (optional)"
                  type="password"
                  helperText={
                    webhook.secretHints.signingSecret
                      ? secretHelp(webhook.secretHints.signingSecret, "Secret")
                      : "Adds X-PerpDesk-Signature: sha256=<HMAC of the body>"
                  }
                />
                {webhook.secretHints.signingSecret ? (
                  <FormControlLabel
                    control={<Checkbox name="clearSigningSecret" size="small" />}
                    label="Remove the signing secret"
                  />
                ) : null}
              </>
            )}
          </ChannelForm>
          <ChannelForm view={email} lastResult={resultFor("email")}>
            {(f) => (
              <>
                <Box sx={{ display: "grid", gridTemplateColumns: "2fr 1fr", columnGap: 1 }}>
                  <Text f={f("host")} label="SMTP host" />
                  <Text f={{ ...f("port"), defaultValue: f("port").defaultValue ?? "587" }} label="Port" />
                </Box>
                <FormControlLabel
                  control={<Checkbox name="secure" size="small" defaultChecked={Boolean(email.settings.secure)} />}
                  label="TLS from the start (port 465)"
                />
                <Text f={f("user")} label="User (optional)" />
                <Text
                  f={f("password")}
                  label="Password"
                  type="password"
                  helperText={secretHelp(email.secretHints.password, "Password")}
                />
                <Text f={f("from")} label="From" />
                <Text f={f("to")} label="To" />
              </>
            )}
          </ChannelForm>
        </Box>

        <Paper variant="outlined" sx={{ p: 2 }}>
          <Typography variant="h6">Rate limit and daily summary</Typography>
          <Form method="post" {...getFormProps(general)} noValidate>
            <input type="hidden" name="intent" value="general" />
            <FormError errors={general.errors} />
            <Stack direction={{ xs: "column", sm: "row" }} spacing={2} sx={{ alignItems: { sm: "flex-start" } }}>
              <TextField
                name="rateLimitPerMinute"
                label="Messages per minute per channel"
                size="small"
                margin="dense"
                defaultValue={String(data.config.rateLimitPerMinute)}
                error={!!generalFields.rateLimitPerMinute.errors}
                helperText={
                  generalFields.rateLimitPerMinute.errors?.[0] ?? "Beyond it, one digest when the minute is over"
                }
                slotProps={{
                  htmlInput: { inputMode: "numeric", "data-testid": "field-rateLimitPerMinute" },
                  inputLabel: { shrink: true },
                }}
              />
              <TextField
                name="dailySummaryTime"
                label="Daily summary at (UTC, HH:MM)"
                size="small"
                margin="dense"
                defaultValue={data.config.dailySummaryTime}
                error={!!generalFields.dailySummaryTime.errors}
                helperText={
                  generalFields.dailySummaryTime.errors?.[0] ?? "P&L, fills and open positions of the last 24 h"
                }
                slotProps={{ htmlInput: { "data-testid": "field-dailySummaryTime" }, inputLabel: { shrink: true } }}
              />
              <Button type="submit" variant="contained" sx={{ mt: 1 }} data-testid="save-general">
                Save
              </Button>
            </Stack>
            {/* "off" first: an unticked box sends nothing, and absent means unchanged (docs/security.md). */}
            <input type="hidden" name="allowPrivateDestinations" value="off" />
            <FormControlLabel
              control={
                <Checkbox
                  name="allowPrivateDestinations"
                  value="on"
                  size="small"
                  defaultChecked={data.config.allowPrivateDestinations}
                  slotProps={{ input: { "data-testid": "field-allowPrivateDestinations" } as never }}
                />
              }
              label="Allow private notification destinations (webhook and SMTP hosts on localhost, the LAN or link-local addresses: only for a mail server or hook you run yourself)"
            />
          </Form>
        </Paper>

        <Paper variant="outlined">
          <Typography variant="h6" sx={{ p: 2, pb: 0 }}>
            Delivery log
          </Typography>
          <TableContainer>
            <Table size="small" data-testid="delivery-log">
              <TableHead>
                <TableRow>
                  <TableCell>When (UTC)</TableCell>
                  <TableCell>Channel</TableCell>
                  <TableCell>Notification</TableCell>
                  <TableCell>Status</TableCell>
                  <TableCell>Attempts</TableCell>
                  <TableCell>Last error</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {data.log.entries.length === 0 ? (
                  <TableRow>
                    <TableCell colSpan={6}>
                      <Typography color="text.secondary">
                        No deliveries{data.firstPage ? " yet" : " older than these"}.
                      </Typography>
                    </TableCell>
                  </TableRow>
                ) : (
                  data.log.entries.map((entry) => (
                    <TableRow key={entry.id} data-testid="delivery-row">
                      <TableCell sx={{ whiteSpace: "nowrap" }}>
                        {(entry.sentAt ?? entry.createdAt).replace("T", " ").slice(0, 19)}
                      </TableCell>
                      <TableCell>{entry.channel}</TableCell>
                      <TableCell>
                        {entry.title}
                        <Typography component="span" variant="caption" color="text.secondary" sx={{ ml: 1 }}>
                          {entry.kind}
                        </Typography>
                      </TableCell>
                      <TableCell>
                        <Chip size="small" label={entry.status} color={STATUS_COLORS[entry.status] ?? "default"} />
                      </TableCell>
                      <TableCell>{entry.attempts}</TableCell>
                      <TableCell sx={{ maxWidth: 360, overflowWrap: "anywhere" }}>{entry.lastError ?? "—"}</TableCell>
                    </TableRow>
                  ))
                )}
              </TableBody>
            </Table>
          </TableContainer>
          <Stack direction="row" spacing={1} sx={{ p: 1 }}>
            {!data.firstPage ? (
              <Button component={RemixLink} to="/notifications" size="small">
                Newest
              </Button>
            ) : null}
            {data.log.nextBefore ? (
              <Button
                component={RemixLink}
                to={`/notifications?before=${data.log.nextBefore}`}
                size="small"
                data-testid="log-older"
              >
                Older
              </Button>
            ) : null}
          </Stack>
        </Paper>
      </Stack>
    </Screen>
  );
}
