// The Connect Exchange form (docs/spec/screens.md Exchanges, screens.md#states): a dialog with JavaScript, an inline
// form at /exchanges?add=1 without; one Zod schema (AddExchangeFormSchema) on both sides.
import { type SubmissionResult, getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import Checkbox from "@mui/material/Checkbox";
import DialogActions from "@mui/material/DialogActions";
import FormControlLabel from "@mui/material/FormControlLabel";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import { Link as RemixLink } from "@remix-run/react";
import { useState } from "react";
import { contractSizesSwitchNote } from "#app/core/exchange/contract-sizes.ts";
import {
  AddExchangeFormSchema,
  EXCHANGE_LABELS,
  EXCHANGE_NAMES,
  type ExchangeView,
} from "#app/core/schemas/exchange-connection.ts";
import { apiRequest, errorText } from "#app/utils/api-client.ts";
import { useToast } from "../toaster.tsx";
import { FormError } from "../forms.tsx";

/**
 * Connect Exchange: one Zod schema (AddExchangeFormSchema) validates as you type and on the
 * server. With JavaScript the valid form goes to POST /api/exchanges; without, to the page.
 */
export function ConnectExchangeForm({
  lastResult,
  onDone,
  onCancel,
  onCancelHref,
  contractSizesSwitch = false,
}: {
  lastResult?: SubmissionResult<string[]>;
  onDone: () => void;
  onCancel?: () => void;
  onCancelHref?: string;
  /** Saving turns the simulator's "Use Coinbase contract sizes" on (decision 025): say so before. */
  contractSizesSwitch?: boolean;
}) {
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const [form, fields] = useForm({
    id: "connect-exchange",
    lastResult,
    defaultValue: {
      exchangeName: "COINBASE",
      accountName: "",
      apiKey: "",
      apiSecret: "",
      passphrase: "",
      sandbox: "on",
      isEnabled: "on",
    },
    onValidate: ({ formData }) => parseWithZod(formData, { schema: AddExchangeFormSchema }),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onSubmit: async (event, { submission }) => {
      event.preventDefault();
      if (submission?.status !== "success") return;
      setBusy(true);
      try {
        const created = await apiRequest<ExchangeView & { notice?: string }>(
          "POST",
          "/api/exchanges",
          submission.value,
        );
        toast({
          title: "Exchange Added",
          description: `${created.accountName} is connected${created.sandbox ? " (sandbox)" : ""}${created.notice ? `. ${created.notice}` : ""}`,
        });
        onDone();
      } catch (error) {
        toast({
          title: "Error Adding Exchange",
          description: errorText(error, "Failed to add exchange"),
          variant: "destructive",
        });
      } finally {
        setBusy(false);
      }
    },
  });
  const error = (name: keyof typeof fields) => fields[name].errors?.[0];
  const text = (
    name: "accountName" | "apiKey" | "apiSecret" | "passphrase",
    label: string,
    extra: { type?: string; multiline?: boolean; helperText?: string; required?: boolean } = {},
  ) => (
    <TextField
      name={fields[name].name}
      id={fields[name].id}
      key={fields[name].key}
      type={extra.type ?? "text"}
      label={label}
      required={extra.required ?? true}
      fullWidth
      margin="dense"
      multiline={extra.multiline}
      minRows={extra.multiline ? 3 : undefined}
      defaultValue={(fields[name].initialValue as string | undefined) ?? ""}
      error={!!error(name)}
      helperText={error(name) ?? extra.helperText}
      autoComplete="off"
      slotProps={{
        htmlInput: {
          "data-testid": `connect-${name}`,
          spellCheck: false,
          required: false,
          "aria-invalid": error(name) ? true : undefined,
        },
      }}
    />
  );
  return (
    <form method="post" action="/exchanges" {...getFormProps(form)} noValidate data-testid="connect-exchange-form">
      <input type="hidden" name="intent" value="add" />
      <FormError errors={form.errors} mb={2} />
      <TextField
        select
        name={fields.exchangeName.name}
        id={fields.exchangeName.id}
        key={fields.exchangeName.key}
        label="Exchange"
        defaultValue={(fields.exchangeName.initialValue as string | undefined) ?? ""}
        fullWidth
        margin="dense"
        error={!!error("exchangeName")}
        helperText={error("exchangeName")}
        slotProps={{
          select: { native: true },
          inputLabel: { shrink: true },
          htmlInput: { "data-testid": "connect-exchangeName" },
        }}
      >
        <option value="">Select an exchange</option>
        {EXCHANGE_NAMES.map((name) => (
          <option key={name} value={name}>
            {EXCHANGE_LABELS[name]}
          </option>
        ))}
      </TextField>
      {text("accountName", "Account Name")}
      {text("apiKey", "API Key", { helperText: "The CDP key name, e.g. organizations/{org_id}/apiKeys/{key_id}" })}
      {text("apiSecret", "API Secret", {
        multiline: true,
        helperText: "The private key; it is stored encrypted and never shown again",
      })}
      {text("passphrase", "Passphrase (optional)", {
        required: false,
        type: "password",
        helperText: "Only Coinbase Exchange API keys have one (profiles and reports); futures keys do not",
      })}
      <Stack direction="row" spacing={2} sx={{ mt: 1 }}>
        <FormControlLabel
          control={<Checkbox name="sandbox" defaultChecked data-testid="connect-sandbox" />}
          label="Sandbox (paper trading)"
        />
        <FormControlLabel
          control={<Checkbox name="isEnabled" defaultChecked data-testid="connect-isEnabled" />}
          label="Enabled"
        />
      </Stack>
      {contractSizesSwitch ? (
        <Alert severity="info" sx={{ mt: 1 }} data-testid="contract-sizes-note">
          {contractSizesSwitchNote()}
        </Alert>
      ) : null}
      <DialogActions sx={{ px: 0 }}>
        {onCancelHref ? (
          <Button component={RemixLink} to={onCancelHref}>
            Cancel
          </Button>
        ) : (
          <Button onClick={onCancel}>Cancel</Button>
        )}
        <Button type="submit" variant="contained" disabled={busy} data-testid="connect-submit">
          {busy ? "Connecting..." : "Connect Exchange"}
        </Button>
      </DialogActions>
    </form>
  );
}
