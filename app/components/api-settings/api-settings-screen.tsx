// The API Settings screen (docs/spec/screens.md API Settings, screens.md#states credentials form, api.md#validation, api.md, api.md#errors), admins
// only: the connection status card with Test Connection (GET /api/test/coinbase), the API
// key / secret / sandbox form (POST /api/credentials/save; Save Settings, POST
// /api/credentials/save-settings, appears once the sandbox value changed), and Get
// Environment Setup with the COINBASE_* variables.
//
// The form is filled with the masked values GET /api/credentials gives; they travel back as
// originalApiKey/originalApiSecret, so one Conform + Zod schema (SaveCredentialsSchema, docs/spec/api.md#validation
// rules: credentialsIssue) tells "nothing edited" and masked bullets apart in the
// browser (before any call; the save then goes to POST /api/credentials/save) and in the
// page's action without JavaScript (intent=save | save-settings | test, answered by a redirect
// with a flash toast or the page again with the message and `submission.reply()`).
import { type SubmissionResult, getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import NetworkCheckIcon from "@mui/icons-material/NetworkCheck";
import SaveIcon from "@mui/icons-material/Save";
import SettingsEthernetIcon from "@mui/icons-material/SettingsEthernet";
import Alert from "@mui/material/Alert";
import AlertTitle from "@mui/material/AlertTitle";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Checkbox from "@mui/material/Checkbox";
import Chip from "@mui/material/Chip";
import Collapse from "@mui/material/Collapse";
import FormControlLabel from "@mui/material/FormControlLabel";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { Link as RemixLink, useRevalidator } from "@remix-run/react";
import { type FormEvent, type ReactNode, useState } from "react";
import {
  type CredentialsSummary,
  MASKED_SECRET,
  SaveCredentialsFields,
  SaveCredentialsSchema,
  credentialsIssue,
} from "#app/core/schemas/exchange-connection.ts";
import type { Toast } from "#app/core/schemas/toast.ts";
import { contractSizesSwitchNote } from "#app/core/exchange/contract-sizes.ts";
import { ApiError, apiRequest, errorText, getJson } from "#app/utils/api-client.ts";
import { formatDateTime } from "#app/core/format.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { Screen } from "../screen.tsx";
import { useToast } from "../toaster.tsx";

/** docs/spec/api.md: GET /api/credentials every 30 s. */
export const CREDENTIALS_POLL_MS = 30_000;

export const ENV_SETUP_LINES = [
  "COINBASE_API_KEY=organizations/<org_id>/apiKeys/<key_id>",
  'COINBASE_API_SECRET="-----BEGIN EC PRIVATE KEY-----\\n...\\n-----END EC PRIVATE KEY-----\\n"',
  "COINBASE_SANDBOX=true",
] as const;

/** What the page action answers when a no-JavaScript post fails (400). */
export interface ApiSettingsActionData {
  toast: Toast;
  formError?: { title: string; message: string };
  /** The credentials form's Conform reply (the typed secret left out). */
  result?: SubmissionResult<string[]>;
}

const SOURCE_TEXT: Record<CredentialsSummary["source"], string> = {
  settings: "Saved on this page",
  env: "Environment variables (COINBASE_API_KEY / COINBASE_API_SECRET)",
  none: "Not configured: orders are paper orders on the simulator",
};

export function ApiSettingsScreen({
  summary: initial,
  setupOpen,
  actionData,
  contractSizesSwitch = false,
}: {
  summary: CredentialsSummary;
  setupOpen: boolean;
  actionData?: ApiSettingsActionData;
  /** Saving now turns the simulator's "Use Coinbase contract sizes" on (decision 025): the form says so. */
  contractSizesSwitch?: boolean;
}) {
  const query = useApiQuery<CredentialsSummary>("/api/credentials", {
    initialData: initial,
    refetchIntervalMs: CREDENTIALS_POLL_MS,
  });
  const revalidator = useRevalidator();
  const summary = query.data ?? initial;
  // The form starts again from the stored values after each save (a new key remounts it).
  const [saves, setSaves] = useState(0);
  const refresh = () => {
    void query.refetch();
  };
  return (
    <Screen title="API Settings">
      <Stack spacing={3}>
        <ConnectionCard summary={summary} onTested={refresh} />
        <CredentialsCard
          key={`${saves}:${summary.connectionId ?? summary.source}:${summary.apiKey}:${summary.sandbox}`}
          summary={summary}
          actionData={actionData}
          contractSizesSwitch={contractSizesSwitch}
          onSaved={async () => {
            // The stored values first, then a fresh form from them (and the page's data: the
            // contract sizes note goes once a connection is saved).
            await query.refetch();
            revalidator.revalidate();
            setSaves((n) => n + 1);
          }}
        />
        <EnvironmentSetup initiallyOpen={setupOpen} />
      </Stack>
    </Screen>
  );
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack direction={{ xs: "column", sm: "row" }} spacing={{ xs: 0, sm: 2 }} sx={{ py: 0.5 }}>
      <Typography color="text.secondary" sx={{ minWidth: 160 }}>
        {label}
      </Typography>
      <Box sx={{ minWidth: 0, overflowWrap: "anywhere" }}>{children}</Box>
    </Stack>
  );
}

function statusChip(summary: CredentialsSummary) {
  if (summary.source === "none")
    return <Chip size="small" label="Not configured" variant="outlined" data-testid="credentials-status" />;
  if (summary.connectionStatus === "connected")
    return <Chip size="small" label="Connected" color="success" data-testid="credentials-status" />;
  if (summary.connectionStatus === "error")
    return <Chip size="small" label="Error" color="error" data-testid="credentials-status" />;
  return (
    <Chip
      size="small"
      label={summary.source === "env" ? "Not tested" : "Disconnected"}
      variant="outlined"
      data-testid="credentials-status"
    />
  );
}

function ConnectionCard({ summary, onTested }: { summary: CredentialsSummary; onTested: () => void }) {
  const hydrated = useHydrated();
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const [lastTest, setLastTest] = useState<{ success: boolean; message: string } | null>(null);
  const test = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      const result = await getJson<{ success: boolean; message?: string; error?: string }>("/api/test/coinbase");
      const message = result.message ?? result.error ?? "";
      setLastTest({ success: result.success, message });
      toast(
        result.success
          ? { title: "Connection Successful", description: message }
          : {
              title: "Connection Test Failed",
              description: message || "Failed to test connection",
              variant: "destructive",
            },
      );
    } catch (error) {
      toast({
        title: "Connection Test Error",
        description: errorText(error, "Failed to test connection"),
        variant: "destructive",
      });
    } finally {
      setBusy(false);
      onTested();
    }
  };
  const message = lastTest?.message ?? summary.statusMessage;
  return (
    <Paper variant="outlined" sx={{ p: 3 }} data-testid="connection-card">
      <Stack direction="row" spacing={2} sx={{ alignItems: "center", mb: 2, flexWrap: "wrap" }} useFlexGap>
        <SettingsEthernetIcon color="primary" />
        <Typography variant="h2" component="h2">
          Connection Status
        </Typography>
        {statusChip(summary)}
        <Box sx={{ flex: 1 }} />
        <form method="post" action="/api-settings" onSubmit={hydrated ? (e) => void test(e) : undefined}>
          <input type="hidden" name="intent" value="test" />
          <Button
            type="submit"
            variant="outlined"
            startIcon={<NetworkCheckIcon />}
            disabled={busy}
            data-testid="test-connection"
          >
            {busy ? "Testing..." : "Test Connection"}
          </Button>
        </form>
      </Stack>
      <Row label="Exchange">Coinbase</Row>
      <Row label="Credentials">{SOURCE_TEXT[summary.source]}</Row>
      {summary.source !== "none" ? (
        <>
          <Row label="API key">
            <Typography sx={{ fontFamily: "monospace" }} data-testid="credentials-masked-key">
              {summary.apiKey}
            </Typography>
          </Row>
          <Row label="Environment">
            {summary.sandbox
              ? "Sandbox: orders are paper orders at Coinbase prices"
              : "Production: orders are sent to Coinbase for real"}
          </Row>
        </>
      ) : null}
      {summary.lastTestedAt ? <Row label="Last tested">{formatDateTime(summary.lastTestedAt)}</Row> : null}
      {message ? (
        <Alert
          severity={(lastTest?.success ?? summary.connectionStatus === "connected") ? "success" : "error"}
          sx={{ mt: 2 }}
          data-testid="connection-message"
        >
          {message}
        </Alert>
      ) : null}
    </Paper>
  );
}

function CredentialsCard({
  summary,
  actionData,
  contractSizesSwitch,
  onSaved,
}: {
  summary: CredentialsSummary;
  actionData?: ApiSettingsActionData;
  contractSizesSwitch: boolean;
  onSaved: () => Promise<void>;
}) {
  const hydrated = useHydrated();
  const toast = useToast();
  const originalKey = summary.apiKey;
  const originalSecret = summary.hasSecret ? MASKED_SECRET : "";
  const [sandbox, setSandbox] = useState(summary.sandbox);
  const [busy, setBusy] = useState<null | "save" | "settings">(null);
  const [jsError, setFormError] = useState<{ title: string; message: string } | null>(null);
  const formError = jsError ?? actionData?.formError ?? null;
  const sandboxChanged = sandbox !== summary.sandbox;

  const fail = (title: string, message: string) => {
    setFormError({ title, message });
    toast({ title, description: message, variant: "destructive" });
  };

  // One schema for both sides (SaveCredentialsSchema: the rules of docs/spec/api.md#validation in their order). With
  // JavaScript Conform runs it on submit and the save goes to the API; without, the page's
  // action runs it and answers with the form's reply.
  const [form] = useForm({
    id: "credentials",
    lastResult: actionData?.result,
    shouldValidate: "onSubmit",
    onValidate: ({ formData }) => {
      // Save Settings only sends the sandbox switch: the credentials' rules are not applied.
      if (formData.get("intent") === "save-settings") return parseWithZod(formData, { schema: SaveCredentialsFields });
      const submission = parseWithZod(formData, { schema: SaveCredentialsSchema });
      if (submission.status !== "success") {
        // Conform stops the submit; the card says why, with SPEC's title for the rule broken.
        const issue = credentialsIssue(SaveCredentialsFields.parse(Object.fromEntries(formData)));
        fail(issue?.title ?? "Save Failed", issue?.message ?? "Invalid credentials");
      }
      return submission;
    },
    onSubmit: (event, { formData, submission }) => {
      event.preventDefault();
      if (formData.get("intent") === "save-settings") return void saveSettings();
      if (submission?.status !== "success") return;
      void post(
        "save",
        "/api/credentials/save",
        { apiKey: submission.value.apiKey, apiSecret: submission.value.apiSecret, sandbox },
        "Credentials Saved",
        "The credentials could not be saved",
      );
    },
  });

  const saveSettings = () =>
    post(
      "settings",
      "/api/credentials/save-settings",
      { sandbox },
      "Settings Saved",
      "The settings could not be saved",
    );

  /** One save call: its success toast, or 'Save Failed' with the server's 4xx reason / 'Save Error' otherwise. */
  const post = async (
    which: "save" | "settings",
    path: string,
    body: Record<string, unknown>,
    savedTitle: string,
    fallback: string,
  ) => {
    setBusy(which);
    try {
      const result = await apiRequest<{ success: boolean; message: string }>("POST", path, body);
      setFormError(null);
      toast({ title: savedTitle, description: result.message });
      await onSaved();
    } catch (error) {
      if (error instanceof ApiError && error.status >= 400 && error.status < 500)
        fail("Save Failed", error.serverMessage);
      else fail("Save Error", errorText(error, fallback));
    } finally {
      setBusy(null);
    }
  };

  return (
    <Paper variant="outlined" sx={{ p: 3 }} data-testid="credentials-card">
      <Typography variant="h2" component="h2" gutterBottom>
        API Credentials
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 2 }}>
        A Coinbase Developer Platform (CDP) API key with trade and view permissions. No passphrase is needed for
        futures. The secret is stored encrypted and never shown again.
      </Typography>
      {formError ? (
        <Alert severity="error" sx={{ mb: 2 }} data-testid="credentials-error">
          <AlertTitle>{formError.title}</AlertTitle>
          {formError.message}
        </Alert>
      ) : null}
      <form method="post" action="/api-settings" {...getFormProps(form)} data-testid="credentials-form">
        <input type="hidden" name="originalApiKey" value={originalKey} />
        <input type="hidden" name="originalApiSecret" value={originalSecret} />
        <TextField
          name="apiKey"
          id="credentials-api-key"
          label="API Key"
          defaultValue={originalKey}
          fullWidth
          margin="normal"
          autoComplete="off"
          slotProps={{ htmlInput: { "data-testid": "credentials-api-key", spellCheck: false } }}
        />
        <TextField
          name="apiSecret"
          id="credentials-api-secret"
          label="API Secret"
          defaultValue={originalSecret}
          fullWidth
          margin="normal"
          multiline
          minRows={3}
          autoComplete="off"
          helperText="The private key, including its BEGIN and END lines"
          slotProps={{ htmlInput: { "data-testid": "credentials-api-secret", spellCheck: false } }}
        />
        <FormControlLabel
          control={
            <Checkbox
              name="sandbox"
              checked={sandbox}
              onChange={(_, v) => setSandbox(v)}
              slotProps={{ input: { "data-testid": "credentials-sandbox" } as object }}
            />
          }
          label="Use sandbox (paper trading at Coinbase prices; recommended)"
        />
        {contractSizesSwitch ? (
          <Alert severity="info" sx={{ mt: 1 }} data-testid="contract-sizes-note">
            {contractSizesSwitchNote()}
          </Alert>
        ) : null}
        <Stack direction="row" spacing={2} sx={{ mt: 2, flexWrap: "wrap" }} useFlexGap>
          <Button
            type="submit"
            name="intent"
            value="save"
            variant="contained"
            startIcon={<SaveIcon />}
            disabled={busy !== null}
            data-testid="save-credentials"
          >
            {busy === "save" ? "Saving..." : "Save Credentials"}
          </Button>
          {/* docs/spec/screens.md/screens.md#states: shown only after the sandbox value changed (always without JavaScript, which cannot tell). */}
          {!hydrated || sandboxChanged ? (
            <Button
              type="submit"
              name="intent"
              value="save-settings"
              variant="outlined"
              disabled={busy !== null}
              data-testid="save-settings"
            >
              {busy === "settings" ? "Saving..." : "Save Settings"}
            </Button>
          ) : null}
        </Stack>
      </form>
    </Paper>
  );
}

function EnvironmentSetup({ initiallyOpen }: { initiallyOpen: boolean }) {
  const hydrated = useHydrated();
  const [open, setOpen] = useState(initiallyOpen);
  return (
    <Paper variant="outlined" sx={{ p: 3 }} id="environment-setup" data-testid="environment-setup">
      <Stack direction="row" spacing={2} sx={{ alignItems: "center", flexWrap: "wrap" }} useFlexGap>
        <Typography variant="h2" component="h2">
          Environment Setup
        </Typography>
        <Box sx={{ flex: 1 }} />
        <Button
          component={RemixLink}
          to={open && !hydrated ? "/api-settings" : "/api-settings?setup=1#environment-setup"}
          variant="outlined"
          data-testid="get-environment-setup"
          onClick={(event: React.MouseEvent) => {
            if (!hydrated) return;
            event.preventDefault();
            setOpen((v) => !v);
          }}
        >
          Get Environment Setup
        </Button>
      </Stack>
      <Collapse in={open}>
        <Box sx={{ pt: 2 }} data-testid="environment-instructions">
          <Typography gutterBottom>
            Instead of saving keys here, set them in the environment of the web and worker processes (for example in a
            .env file or your service manager):
          </Typography>
          <Box component="pre" sx={{ p: 2, bgcolor: "action.hover", borderRadius: 1, overflowX: "auto", fontSize: 13 }}>
            {ENV_SETUP_LINES.join("\n")}
          </Box>
          <Typography component="ul" sx={{ pl: 3, m: 0 }}>
            <li>COINBASE_API_KEY: the CDP API key name.</li>
            <li>COINBASE_API_SECRET: its private key (line breaks may be written as \n).</li>
            <li>COINBASE_SANDBOX: true (paper trading, the default) or false (live orders).</li>
          </Typography>
          <Typography sx={{ mt: 1 }}>
            Then restart the application (npm start, or the web and worker processes) so it reads them. No passphrase is
            needed for futures. Keys saved on this page take precedence over the environment.
          </Typography>
        </Box>
      </Collapse>
    </Paper>
  );
}
