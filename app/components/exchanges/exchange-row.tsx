// One row of the Exchanges table (docs/spec/screens.md Exchanges): status chip, switches, Test and
// delete, each a JSON call with JavaScript and a plain form post to the page without.
import DeleteIcon from "@mui/icons-material/Delete";
import NetworkCheckIcon from "@mui/icons-material/NetworkCheck";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import Stack from "@mui/material/Stack";
import Switch from "@mui/material/Switch";
import TableCell from "@mui/material/TableCell";
import TableRow from "@mui/material/TableRow";
import Tooltip from "@mui/material/Tooltip";
import Typography from "@mui/material/Typography";
import { Link as RemixLink } from "@remix-run/react";
import { type FormEvent, type ReactNode, useState } from "react";
import { EXCHANGE_LABELS, type ExchangeName, type ExchangeView } from "#app/core/schemas/exchange-connection.ts";
import { ApiError, apiRequest, errorText } from "#app/utils/api-client.ts";
import { D } from "#app/core/decimal.ts";
import { formatDateTime } from "#app/core/format.ts";
import { useToast } from "../toaster.tsx";

const exchangeLabel = (name: string) => EXCHANGE_LABELS[name as ExchangeName] ?? name;

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
          sx={{
            maxWidth: 260,
            mt: 0.5,
            display: "-webkit-box",
            WebkitLineClamp: 3,
            WebkitBoxOrient: "vertical",
            overflow: "hidden",
          }}
          data-testid="exchange-status-message"
        >
          {statusMessage}
        </Typography>
      ) : null}
      {exchange.lastTestedAt ? (
        <Typography
          variant="caption"
          color="text.secondary"
          component="div"
        >{`Tested ${formatDateTime(exchange.lastTestedAt)}`}</Typography>
      ) : null}
    </Box>
  );
}

/** A form that posts one intent to the page without JavaScript and runs `onRun` with it. */
function IntentForm({
  intent,
  id,
  hydrated,
  onRun,
  children,
  extra,
}: {
  intent: string;
  id: string;
  hydrated: boolean;
  onRun: () => void;
  children: ReactNode;
  extra?: Record<string, string>;
}) {
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onRun();
  };
  return (
    <form
      method="post"
      action="/exchanges"
      onSubmit={hydrated ? onSubmit : undefined}
      style={{ display: "inline-flex", alignItems: "center" }}
    >
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="id" value={id} />
      {Object.entries(extra ?? {}).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {children}
    </form>
  );
}

export function ExchangeRow({
  exchange,
  isAdmin,
  hydrated,
  confirmDelete,
  onChanged,
}: {
  exchange: ExchangeView;
  isAdmin: boolean;
  hydrated: boolean;
  confirmDelete: boolean;
  onChanged: () => void;
}) {
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
          ? {
              title: "Sandbox Mode Updated",
              description: `${exchange.accountName} now ${value ? "uses the sandbox: paper trading" : "trades live on Coinbase"}`,
            }
          : {
              title: "Exchange Updated",
              description: `${exchange.accountName} is now ${value ? "enabled" : "disabled"}`,
            },
      );
    } catch (error) {
      if (field === "sandbox") setSandbox(!value);
      else setEnabled(!value);
      toast({
        title: field === "sandbox" ? "Error Updating Sandbox Mode" : "Error Updating Exchange",
        description: errorText(error, "Failed to update exchange"),
        variant: "destructive",
      });
    } finally {
      setBusy(null);
      onChanged();
    }
  };

  const test = async () => {
    setBusy("test");
    try {
      const result = await apiRequest<{ success: boolean; message: string }>(
        "POST",
        `/api/exchanges/${encodeURIComponent(exchange.id)}/test`,
      );
      toast(
        result.success
          ? { title: "Connection Successful", description: result.message }
          : { title: "Connection Failed", description: result.message, variant: "destructive" },
      );
    } catch (error) {
      toast({
        title: "Connection Test Failed",
        description: errorText(error, "Failed to test connection"),
        variant: "destructive",
      });
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
      toast({
        title: "Error Deleting Exchange",
        description:
          error instanceof ApiError && error.status === 404
            ? "The exchange no longer exists"
            : errorText(error, "Failed to delete exchange"),
        variant: "destructive",
      });
    } finally {
      setBusy(null);
      onChanged();
    }
  };

  const switchControl = (field: "sandbox" | "isEnabled", checked: boolean, label: string) => {
    const key = field === "sandbox" ? "sandbox" : "enabled";
    if (!isAdmin)
      return <Switch checked={checked} disabled size="small" slotProps={{ input: { "aria-label": label } }} />;
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
      <IntentForm
        intent={key}
        id={exchange.id}
        hydrated={false}
        onRun={() => undefined}
        extra={{ value: String(!checked) }}
      >
        <Button
          type="submit"
          size="small"
          variant="outlined"
          aria-label={`${label}: ${checked ? "on" : "off"}. Switch ${checked ? "off" : "on"}`}
          data-testid={`exchange-${key}-submit`}
        >
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
            <Chip
              size="small"
              label={exchange.sandbox ? "Sandbox" : "Live"}
              color={exchange.sandbox ? "default" : "warning"}
              variant="outlined"
              data-testid="exchange-environment"
            />
            {exchange.isTrading ? (
              <Chip size="small" label="Trading" color="primary" data-testid="exchange-trading" />
            ) : null}
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
                  <Button
                    type="submit"
                    size="small"
                    variant="outlined"
                    startIcon={<NetworkCheckIcon />}
                    disabled={busy !== null}
                    data-testid="exchange-test"
                  >
                    {busy === "test" ? "Testing..." : "Test"}
                  </Button>
                </IntentForm>
                <IntentForm intent="delete" id={exchange.id} hydrated={hydrated} onRun={() => void remove()}>
                  <Button
                    type="submit"
                    size="small"
                    color="error"
                    variant="outlined"
                    startIcon={<DeleteIcon />}
                    disabled={busy !== null}
                    data-testid="exchange-delete"
                    aria-label={`Delete ${exchange.accountName}`}
                  >
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
                  <IntentForm
                    intent="delete"
                    id={exchange.id}
                    hydrated={false}
                    onRun={() => undefined}
                    extra={{ confirmed: "1" }}
                  >
                    <Button
                      type="submit"
                      color="error"
                      variant="contained"
                      size="small"
                      data-testid="exchange-confirm-delete-yes"
                    >
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
