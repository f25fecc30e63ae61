// The Exchanges screen (SPEC.md §2 Exchanges, §7, §8): the connections table (Exchange,
// Account Name, API, Total USD Value, Status, Enabled, Actions), the Connect Exchange dialog,
// the sandbox and enabled switches, Test, and delete with a browser confirmation.
//
// With JavaScript every action calls the JSON API (GET/POST /api/exchanges, PUT/DELETE
// /api/exchanges/{id}, POST /api/exchanges/{id}/test) and toasts; the list is polled every
// 5 minutes. Without JavaScript the same actions are plain form posts to the page's action
// (intent=add|sandbox|enabled|test|delete) answered by a redirect with a flash toast; the
// dialog becomes an inline form (/exchanges?add=1) and delete asks on a confirmation row
// (/exchanges?confirmDelete=<id>). Changes are admin-only; other users see the table.
import { type SubmissionResult, getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import AddIcon from "@mui/icons-material/Add";
import DeleteIcon from "@mui/icons-material/Delete";
import NetworkCheckIcon from "@mui/icons-material/NetworkCheck";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Checkbox from "@mui/material/Checkbox";
import Chip from "@mui/material/Chip";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import FormControlLabel from "@mui/material/FormControlLabel";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Switch from "@mui/material/Switch";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableContainer from "@mui/material/TableContainer";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import TextField from "@mui/material/TextField";
import Tooltip from "@mui/material/Tooltip";
import Typography from "@mui/material/Typography";
import { Link as RemixLink } from "@remix-run/react";
import { type FormEvent, type ReactNode, useState } from "react";
import { D } from "#app/core/decimal.ts";
import {
  AddExchangeFormSchema,
  EXCHANGE_LABELS,
  EXCHANGE_NAMES,
  type ExchangeName,
  type ExchangeView,
} from "#app/core/schemas/exchange-connection.ts";
import { ApiError, apiRequest, errorText } from "#app/utils/api-client.ts";
import { formatDateTime } from "#app/core/format.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { Screen } from "../screen.tsx";
import { useToast } from "../toaster.tsx";
import { FormError } from "../forms.tsx";
import { ContractSizesSetting, type ContractSizesView } from "./contract-sizes-setting.tsx";

/** SPEC.md §7/§9: GET /api/exchanges every 5 minutes (stale after 4). */
export const EXCHANGES_POLL_MS = 5 * 60_000;
export const COLUMNS = ["Exchange", "Account Name", "API", "Total USD Value", "Status", "Enabled", "Actions"] as const;
export const deleteConfirmText = (accountName: string) =>
  `Are you sure you want to delete the exchange "${accountName}"? Its stored API keys are removed.`;

/** "$12,345.67": grouping on the decimal string itself, never through a float. */
export function formatUsd(value: string | null | undefined): string {
  if (value == null || value === "") return "—";
  const fixed = D(value).toFixed(2);
  const negative = fixed.startsWith("-");
  const [whole = "0", cents = "00"] = fixed.replace("-", "").split(".");
  return `${negative ? "-" : ""}$${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}.${cents}`;
}

const exchangeLabel = (name: string) => EXCHANGE_LABELS[name as ExchangeName] ?? name;

export interface ExchangesScreenProps {
  exchanges: ExchangeView[];
  isAdmin: boolean;
  /** No JavaScript: show the Connect Exchange form inline (?add=1). */
  addOpen: boolean;
  /** No JavaScript: the exchange whose deletion waits for a confirmation (?confirmDelete=). */
  confirmDeleteId: string | null;
  /** The page action's answer to a failed Connect Exchange post. */
  addResult?: SubmissionResult<string[]>;
  /** The simulator's "Use Coinbase contract sizes" (decision 025); absent: not shown. */
  contractSizes?: ContractSizesView;
}

export function ExchangesScreen({ exchanges: initial, isAdmin, addOpen, confirmDeleteId, addResult, contractSizes }: ExchangesScreenProps) {
  const hydrated = useHydrated();
  const query = useApiQuery<{ exchanges: ExchangeView[] }>("/api/exchanges", { initialData: { exchanges: initial }, refetchIntervalMs: EXCHANGES_POLL_MS });
  const exchanges = query.data?.exchanges ?? initial;
  const [dialogOpen, setDialogOpen] = useState(false);
  const refresh = () => void query.refetch();

  // Without JavaScript the "dialog" is the same form inline; with it, a real dialog.
  const showInline = !hydrated && (addOpen || addResult !== undefined);
  const addButton = (label: string, testId: string) =>
    isAdmin ? (
      <Button
        component={RemixLink}
        to="/exchanges?add=1"
        variant="contained"
        startIcon={<AddIcon />}
        data-testid={testId}
        onClick={(event: React.MouseEvent) => {
          if (!hydrated) return;
          event.preventDefault();
          setDialogOpen(true);
        }}
      >
        {label}
      </Button>
    ) : null;

  return (
    <Screen title="Exchanges" actions={addButton("Add Exchange", "add-exchange")}>
      <Typography color="text.secondary" sx={{ mb: 2 }}>
        The exchange accounts the bot may trade with. The first enabled one is the trading account; sandbox accounts trade on paper at Coinbase prices.
      </Typography>
      {query.error ? (
        <Alert severity="warning" sx={{ mb: 2 }} data-testid="exchanges-error">
          {`Showing the last known list: ${errorText(query.error, "the exchanges could not be refreshed")}`}
        </Alert>
      ) : null}
      {showInline ? (
        <Paper variant="outlined" sx={{ p: 3, mb: 3 }} data-testid="connect-exchange-inline">
          <Typography variant="h2" component="h2" gutterBottom>
            Connect Exchange
          </Typography>
          <ConnectExchangeForm lastResult={addResult} onDone={refresh} onCancelHref="/exchanges" />
        </Paper>
      ) : null}
      {exchanges.length === 0 ? (
        <Paper variant="outlined" sx={{ p: 6, textAlign: "center" }} data-testid="exchanges-empty">
          <Typography variant="h3" component="p" gutterBottom>
            No exchanges connected
          </Typography>
          <Typography color="text.secondary" sx={{ mb: 3 }}>
            Connect a Coinbase account to trade with it. Until then every order is a paper order on the simulator.
          </Typography>
          {addButton("Add Your First Exchange", "add-first-exchange")}
        </Paper>
      ) : (
        <TableContainer component={Paper} variant="outlined">
          <Table size="small" data-testid="exchanges-table">
            <TableHead>
              <TableRow>
                {COLUMNS.map((c) => (
                  <TableCell key={c}>{c}</TableCell>
                ))}
              </TableRow>
            </TableHead>
            <TableBody>
              {exchanges.map((exchange) => (
                <ExchangeRow key={exchange.id} exchange={exchange} isAdmin={isAdmin} hydrated={hydrated} confirmDelete={confirmDeleteId === exchange.id} onChanged={refresh} />
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      )}
      {contractSizes ? <ContractSizesSetting setting={contractSizes} isAdmin={isAdmin} hydrated={hydrated} /> : null}
      <Dialog open={hydrated && dialogOpen} onClose={() => setDialogOpen(false)} fullWidth maxWidth="sm" aria-labelledby="connect-exchange-title">
        <DialogTitle id="connect-exchange-title">Connect Exchange</DialogTitle>
        <DialogContent>
          {dialogOpen ? (
            <ConnectExchangeForm
              onDone={() => {
                setDialogOpen(false);
                refresh();
              }}
              onCancel={() => setDialogOpen(false)}
            />
          ) : null}
        </DialogContent>
      </Dialog>
    </Screen>
  );
}

function StatusChip({ exchange }: { exchange: ExchangeView }) {
  const { connectionStatus: status, statusMessage } = exchange;
  const chip = (
    <Chip
      size="small"
      data-testid="exchange-status"
      label={status === "connected" ? "Connected" : status === "error" ? "Error" : "Disconnected"}
      color={status === "connected" ? "success" : status === "error" ? "error" : "default"}
      variant={status === "disconnected" ? "outlined" : "filled"}
    />
  );
  return (
    <Box>
      {statusMessage ? <Tooltip title={statusMessage}>{chip}</Tooltip> : chip}
      {statusMessage ? (
        <Typography
          variant="caption"
          color="text.secondary"
          component="div"
          title={statusMessage}
          // Three lines at most; the whole message is in the tooltip.
          sx={{ maxWidth: 260, mt: 0.5, display: "-webkit-box", WebkitLineClamp: 3, WebkitBoxOrient: "vertical", overflow: "hidden" }}
          data-testid="exchange-status-message"
        >
          {statusMessage}
        </Typography>
      ) : null}
      {exchange.lastTestedAt ? (
        <Typography variant="caption" color="text.secondary" component="div">{`Tested ${formatDateTime(exchange.lastTestedAt)}`}</Typography>
      ) : null}
    </Box>
  );
}

/** A form that posts one intent to the page without JavaScript and runs `onRun` with it. */
function IntentForm({ intent, id, hydrated, onRun, children, extra }: { intent: string; id: string; hydrated: boolean; onRun: () => void; children: ReactNode; extra?: Record<string, string> }) {
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onRun();
  };
  return (
    <form method="post" action="/exchanges" onSubmit={hydrated ? onSubmit : undefined} style={{ display: "inline-flex", alignItems: "center" }}>
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="id" value={id} />
      {Object.entries(extra ?? {}).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {children}
    </form>
  );
}

function ExchangeRow({ exchange, isAdmin, hydrated, confirmDelete, onChanged }: { exchange: ExchangeView; isAdmin: boolean; hydrated: boolean; confirmDelete: boolean; onChanged: () => void }) {
  const toast = useToast();
  const [busy, setBusy] = useState<null | "sandbox" | "enabled" | "test" | "delete">(null);
  const [sandbox, setSandbox] = useState(exchange.sandbox);
  const [enabled, setEnabled] = useState(exchange.isEnabled);
  // The server's value wins whenever the list is refreshed.
  const [seen, setSeen] = useState(exchange.updatedAt);
  if (seen !== exchange.updatedAt) {
    setSeen(exchange.updatedAt);
    setSandbox(exchange.sandbox);
    setEnabled(exchange.isEnabled);
  }

  const update = async (field: "sandbox" | "isEnabled", value: boolean) => {
    const key = field === "sandbox" ? "sandbox" : "enabled";
    setBusy(key);
    if (field === "sandbox") setSandbox(value);
    else setEnabled(value);
    try {
      await apiRequest("PUT", `/api/exchanges/${encodeURIComponent(exchange.id)}`, { [field]: value });
      toast(
        field === "sandbox"
          ? { title: "Sandbox Mode Updated", description: `${exchange.accountName} now ${value ? "uses the sandbox: paper trading" : "trades live on Coinbase"}` }
          : { title: "Exchange Updated", description: `${exchange.accountName} is now ${value ? "enabled" : "disabled"}` },
      );
    } catch (error) {
      if (field === "sandbox") setSandbox(!value);
      else setEnabled(!value);
      toast({ title: field === "sandbox" ? "Error Updating Sandbox Mode" : "Error Updating Exchange", description: errorText(error, "Failed to update exchange"), variant: "destructive" });
    } finally {
      setBusy(null);
      onChanged();
    }
  };

  const test = async () => {
    setBusy("test");
    try {
      const result = await apiRequest<{ success: boolean; message: string }>("POST", `/api/exchanges/${encodeURIComponent(exchange.id)}/test`);
      toast(result.success ? { title: "Connection Successful", description: result.message } : { title: "Connection Failed", description: result.message, variant: "destructive" });
    } catch (error) {
      toast({ title: "Connection Test Failed", description: errorText(error, "Failed to test connection"), variant: "destructive" });
    } finally {
      setBusy(null);
      onChanged();
    }
  };

  const remove = async () => {
    if (!window.confirm(deleteConfirmText(exchange.accountName))) return;
    setBusy("delete");
    try {
      await apiRequest("DELETE", `/api/exchanges/${encodeURIComponent(exchange.id)}`);
      toast({ title: "Exchange Deleted", description: `${exchange.accountName} has been removed` });
    } catch (error) {
      toast({ title: "Error Deleting Exchange", description: error instanceof ApiError && error.status === 404 ? "The exchange no longer exists" : errorText(error, "Failed to delete exchange"), variant: "destructive" });
    } finally {
      setBusy(null);
      onChanged();
    }
  };

  const switchControl = (field: "sandbox" | "isEnabled", checked: boolean, label: string) => {
    const key = field === "sandbox" ? "sandbox" : "enabled";
    if (!isAdmin) return <Switch checked={checked} disabled size="small" slotProps={{ input: { "aria-label": label } }} />;
    if (hydrated) {
      return (
        <Switch
          checked={checked}
          disabled={busy !== null}
          size="small"
          onChange={(_, value) => void update(field, value)}
          slotProps={{ input: { "aria-label": label, "data-testid": `exchange-${key}-switch` } as object }}
        />
      );
    }
    // No JavaScript: a button that posts the opposite value.
    return (
      <IntentForm intent={key} id={exchange.id} hydrated={false} onRun={() => undefined} extra={{ value: String(!checked) }}>
        <Button type="submit" size="small" variant="outlined" aria-label={`${label}: ${checked ? "on" : "off"}. Switch ${checked ? "off" : "on"}`} data-testid={`exchange-${key}-submit`}>
          {checked ? "On" : "Off"}
        </Button>
      </IntentForm>
    );
  };

  return (
    <>
      <TableRow data-testid="exchange-row" data-exchange-id={exchange.id} hover>
        <TableCell>
          <Stack direction="row" spacing={1} sx={{ alignItems: "center" }}>
            <Typography sx={{ fontWeight: 600 }}>{exchangeLabel(exchange.exchangeName)}</Typography>
            <Chip size="small" label={exchange.sandbox ? "Sandbox" : "Live"} color={exchange.sandbox ? "default" : "warning"} variant="outlined" data-testid="exchange-environment" />
            {exchange.isTrading ? <Chip size="small" label="Trading" color="primary" data-testid="exchange-trading" /> : null}
          </Stack>
        </TableCell>
        <TableCell data-testid="exchange-account">{exchange.accountName}</TableCell>
        <TableCell>
          <Typography variant="body2" sx={{ fontFamily: "monospace" }} data-testid="exchange-api-key">
            {exchange.apiKey}
          </Typography>
        </TableCell>
        <TableCell data-testid="exchange-total-usd">
          {formatUsd(exchange.totalUsdValue)}
          {exchange.totalUsdSource === "paper" ? (
            <Typography variant="caption" color="text.secondary" component="div">
              Paper account
            </Typography>
          ) : null}
        </TableCell>
        <TableCell>
          <StatusChip exchange={exchange} />
        </TableCell>
        <TableCell>{switchControl("isEnabled", enabled, `Enabled (${exchange.accountName})`)}</TableCell>
        <TableCell>
          <Stack direction="row" spacing={1} sx={{ alignItems: "center", flexWrap: "wrap" }} useFlexGap>
            <Stack direction="row" spacing={0.5} sx={{ alignItems: "center" }}>
              <Typography variant="caption" color="text.secondary">
                Sandbox
              </Typography>
              {switchControl("sandbox", sandbox, `Sandbox (${exchange.accountName})`)}
            </Stack>
            {isAdmin ? (
              <>
                <IntentForm intent="test" id={exchange.id} hydrated={hydrated} onRun={() => void test()}>
                  <Button type="submit" size="small" variant="outlined" startIcon={<NetworkCheckIcon />} disabled={busy !== null} data-testid="exchange-test">
                    {busy === "test" ? "Testing..." : "Test"}
                  </Button>
                </IntentForm>
                <IntentForm intent="delete" id={exchange.id} hydrated={hydrated} onRun={() => void remove()}>
                  <Button type="submit" size="small" color="error" variant="outlined" startIcon={<DeleteIcon />} disabled={busy !== null} data-testid="exchange-delete" aria-label={`Delete ${exchange.accountName}`}>
                    Delete
                  </Button>
                </IntentForm>
              </>
            ) : null}
          </Stack>
        </TableCell>
      </TableRow>
      {confirmDelete && !hydrated && isAdmin ? (
        <TableRow data-testid="exchange-confirm-delete">
          <TableCell colSpan={COLUMNS.length}>
            <Alert
              severity="warning"
              action={
                <Stack direction="row" spacing={1}>
                  <IntentForm intent="delete" id={exchange.id} hydrated={false} onRun={() => undefined} extra={{ confirmed: "1" }}>
                    <Button type="submit" color="error" variant="contained" size="small" data-testid="exchange-confirm-delete-yes">
                      Delete
                    </Button>
                  </IntentForm>
                  <Button component={RemixLink} to="/exchanges" size="small">
                    Cancel
                  </Button>
                </Stack>
              }
            >
              {deleteConfirmText(exchange.accountName)}
            </Alert>
          </TableCell>
        </TableRow>
      ) : null}
    </>
  );
}

/**
 * Connect Exchange: one Zod schema (AddExchangeFormSchema) validates as you type and on the
 * server. With JavaScript the valid form goes to POST /api/exchanges; without, to the page.
 */
function ConnectExchangeForm({ lastResult, onDone, onCancel, onCancelHref }: { lastResult?: SubmissionResult<string[]>; onDone: () => void; onCancel?: () => void; onCancelHref?: string }) {
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const [form, fields] = useForm({
    id: "connect-exchange",
    lastResult,
    defaultValue: { exchangeName: "COINBASE", accountName: "", apiKey: "", apiSecret: "", passphrase: "", sandbox: "on", isEnabled: "on" },
    onValidate: ({ formData }) => parseWithZod(formData, { schema: AddExchangeFormSchema }),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onSubmit: async (event, { submission }) => {
      event.preventDefault();
      if (submission?.status !== "success") return;
      setBusy(true);
      try {
        const created = await apiRequest<ExchangeView>("POST", "/api/exchanges", submission.value);
        toast({ title: "Exchange Added", description: `${created.accountName} is connected${created.sandbox ? " (sandbox)" : ""}` });
        onDone();
      } catch (error) {
        toast({ title: "Error Adding Exchange", description: errorText(error, "Failed to add exchange"), variant: "destructive" });
      } finally {
        setBusy(false);
      }
    },
  });
  const error = (name: keyof typeof fields) => fields[name].errors?.[0];
  const text = (name: "accountName" | "apiKey" | "apiSecret" | "passphrase", label: string, extra: { type?: string; multiline?: boolean; helperText?: string; required?: boolean } = {}) => (
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
      slotProps={{ htmlInput: { "data-testid": `connect-${name}`, spellCheck: false, required: false, "aria-invalid": error(name) ? true : undefined } }}
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
        slotProps={{ select: { native: true }, inputLabel: { shrink: true }, htmlInput: { "data-testid": "connect-exchangeName" } }}
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
      {text("apiSecret", "API Secret", { multiline: true, helperText: "The private key; it is stored encrypted and never shown again" })}
      {text("passphrase", "Passphrase (optional)", { required: false, type: "password", helperText: "Only Coinbase Exchange API keys have one (profiles and reports); futures keys do not" })}
      <Stack direction="row" spacing={2} sx={{ mt: 1 }}>
        <FormControlLabel control={<Checkbox name="sandbox" defaultChecked data-testid="connect-sandbox" />} label="Sandbox (paper trading)" />
        <FormControlLabel control={<Checkbox name="isEnabled" defaultChecked data-testid="connect-isEnabled" />} label="Enabled" />
      </Stack>
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
