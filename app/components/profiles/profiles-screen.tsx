// Profiles (docs/spec/screens.md Profiles, api.md#validation, api.md#errors): a card per profile with its balances, and the
// Create Profile, Transfer Funds and Delete Profile dialogs. Each dialog is a form posted to
// the page's action (intent create | transfer | delete): with JavaScript through a fetcher
// (JSON answer and a toast), without it as a plain POST (redirect with a flash toast, or the
// page again with the messages by the fields). Dialogs open from links (?dialog=...), so
// they open without JavaScript too.
import type { SubmissionResult } from "@conform-to/react";
import AccountBalanceWalletIcon from "@mui/icons-material/AccountBalanceWallet";
import EditIcon from "@mui/icons-material/Edit";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Card from "@mui/material/Card";
import CardActions from "@mui/material/CardActions";
import CardContent from "@mui/material/CardContent";
import Chip from "@mui/material/Chip";
import DialogContentText from "@mui/material/DialogContentText";
import IconButton from "@mui/material/IconButton";
import Paper from "@mui/material/Paper";
import TextField from "@mui/material/TextField";
import Tooltip from "@mui/material/Tooltip";
import Typography from "@mui/material/Typography";
import { useActionData, useFetcher, useNavigate } from "@remix-run/react";
import { type MouseEvent, type ReactNode, useEffect, useState } from "react";
import { useCan } from "#app/components/layout/permissions.tsx";
import { CreateProfileSchema, DeleteProfileSchema, TransferSchema } from "#app/core/schemas/profiles.ts";
import type { Toast } from "#app/core/schemas/toast.ts";
import type { ProfileView } from "#app/services/profiles.server.ts";
import { formatBalance } from "#app/core/format.ts";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { useApiQuery, useInvalidate } from "#app/utils/use-api-query.tsx";
import { JsMarker } from "../dashboard/dashboard-header.tsx";
import { FormDialog } from "../form-dialog.tsx";
import { NativeSelect, useZodForm } from "../forms.tsx";
import { Screen } from "../screen.tsx";
import { useToast } from "../toaster.tsx";

export type DialogKind = "create" | "transfer" | "delete";
export interface DialogState {
  kind: DialogKind;
  profileId?: string | null;
}

export interface ProfileAnswer {
  intent?: DialogKind;
  result?: SubmissionResult<string[]>;
  toast?: Toast | null;
  done?: boolean;
}

export const PROFILES_POLL_MS = 30_000;

const dialogHref = (kind: DialogKind, profileId?: string) =>
  `/profiles?dialog=${kind}${profileId ? `&profile=${encodeURIComponent(profileId)}` : ""}`;

function ProfileCard({ profile, open }: { profile: ProfileView; open: (d: DialogState, e: MouseEvent) => void }) {
  const canManage = useCan("profiles.manage");
  return (
    <Card
      variant="outlined"
      data-testid="profile-card"
      data-profile-name={profile.name}
      sx={{ display: "flex", flexDirection: "column" }}
    >
      <CardContent sx={{ flex: 1 }}>
        <Box sx={{ display: "flex", alignItems: "center", gap: 1, mb: 1 }}>
          <AccountBalanceWalletIcon color="primary" fontSize="small" />
          <Typography variant="h3" component="h2" sx={{ flex: 1, overflowWrap: "anywhere" }}>
            {profile.name}
          </Typography>
          <Tooltip title="Renaming profiles is not available yet">
            <span>
              <IconButton size="small" disabled aria-label={`Edit ${profile.name}`}>
                <EditIcon fontSize="small" />
              </IconButton>
            </span>
          </Tooltip>
        </Box>
        <Box sx={{ display: "flex", gap: 0.5, flexWrap: "wrap", mb: 1.5 }}>
          {profile.isDefault ? <Chip size="small" color="primary" label="Default" /> : null}
          <Chip
            size="small"
            color={profile.active ? "success" : "default"}
            label={profile.active ? "Active" : "Inactive"}
          />
          {profile.tradingEnabled ? <Chip size="small" variant="outlined" label="Trading enabled" /> : null}
          {profile.hasMarginEnabled ? <Chip size="small" variant="outlined" label="Margin" /> : null}
        </Box>
        <Typography variant="caption" color="text.secondary" component="div" sx={{ mb: 1 }}>
          ID {profile.profileId.slice(0, 8)}
        </Typography>
        {profile.balances.length === 0 ? (
          <Typography color="text.secondary">No balances</Typography>
        ) : (
          profile.balances.map((b) => (
            <Box
              key={b.currency}
              sx={{ display: "flex", justifyContent: "space-between", fontVariantNumeric: "tabular-nums" }}
              data-testid="profile-balance"
              data-currency={b.currency}
            >
              <Typography color="text.secondary">{b.currency}</Typography>
              <Typography sx={{ fontWeight: 600 }}>{formatBalance(b.available)}</Typography>
            </Box>
          ))
        )}
      </CardContent>
      {canManage ? (
        <CardActions>
          <Button
            size="small"
            href={dialogHref("transfer", profile.id)}
            onClick={(e) => open({ kind: "transfer", profileId: profile.id }, e)}
          >
            Transfer
          </Button>
          {profile.isDefault ? null : (
            <Button
              size="small"
              color="error"
              href={dialogHref("delete", profile.id)}
              onClick={(e) => open({ kind: "delete", profileId: profile.id }, e)}
            >
              Delete
            </Button>
          )}
        </CardActions>
      ) : null}
    </Card>
  );
}

/** A profile picker's options: a "Select a profile" placeholder, then the profiles by name. */
function ProfileOptions({ profiles }: { profiles: { id: string; name: string }[] }) {
  return (
    <>
      <option value="">Select a profile</option>
      {profiles.map((p) => (
        <option key={p.id} value={p.id}>
          {p.name}
        </option>
      ))}
    </>
  );
}

function ProfileDialog({
  kind,
  title,
  open,
  onClose,
  lastResult,
  schema,
  submitLabel,
  fetcher,
  children,
}: {
  kind: DialogKind;
  title: string;
  open: boolean;
  onClose: () => void;
  lastResult: SubmissionResult<string[]> | undefined;
  schema: typeof CreateProfileSchema | typeof TransferSchema | typeof DeleteProfileSchema;
  submitLabel: string;
  fetcher: ReturnType<typeof useFetcher>;
  children: (fields: Record<string, { errors?: string[] }>) => ReactNode;
}) {
  const [form, fields] = useZodForm<Record<string, unknown>, unknown>({
    id: `profile-${kind}`,
    schema,
    lastResult,
  });
  return (
    <FormDialog
      form={form}
      title={title}
      open={open}
      onClose={onClose}
      action="/profiles"
      fetcher={fetcher}
      maxWidth="xs"
      submitLabel={submitLabel}
      busyLabel="Working..."
      danger={kind === "delete"}
    >
      <input type="hidden" name="intent" value={kind} />
      <JsMarker />
      {children(fields as unknown as Record<string, { errors?: string[] }>)}
    </FormDialog>
  );
}

export function ProfilesScreen({
  initial,
  loadError,
  provider,
  initialDialog,
}: {
  initial: ProfileView[] | null;
  loadError: string | null;
  provider: string;
  initialDialog: DialogState | null;
}) {
  const hydrated = useHydrated();
  const toast = useToast();
  const invalidate = useInvalidate();
  const navigate = useNavigate();
  const query = useApiQuery<ProfileView[]>("/api/profiles", {
    initialData: initial ?? undefined,
    refetchIntervalMs: PROFILES_POLL_MS,
  });
  const profiles = query.data ?? [];
  const actionData = useActionData<ProfileAnswer>();
  const fetcher = useFetcher<ProfileAnswer>({ key: "profiles" });
  const answer = fetcher.data ?? actionData;
  const [dialog, setDialog] = useState<DialogState | null>(
    initialDialog ?? (actionData?.intent ? { kind: actionData.intent } : null),
  );
  // A fresh form per opening (Conform keeps values by form id).
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    if (fetcher.state !== "idle" || !fetcher.data) return;
    if (fetcher.data.toast) toast(fetcher.data.toast);
    if (fetcher.data.done) {
      setDialog(null);
      invalidate("/api/profiles");
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [fetcher.state, fetcher.data]);

  const open = (next: DialogState, event?: MouseEvent) => {
    if (!hydrated) return; // the link opens it through the page
    event?.preventDefault();
    setGeneration((g) => g + 1);
    setDialog(next);
  };
  const close = () => {
    setDialog(null);
    if (initialDialog) navigate("/profiles", { replace: true, preventScrollReset: true });
  };
  const canManage = useCan("profiles.manage");
  // What every dialog takes from the screen: whether it is the open one, and its own last answer.
  const dialogProps = (kind: DialogKind) => ({
    kind,
    open: canManage && dialog?.kind === kind,
    onClose: close,
    lastResult: answer?.intent === kind && !answer.done ? answer.result : undefined,
    fetcher,
  });
  const selected = profiles.find((p) => p.id === dialog?.profileId) ?? null;
  const currencies = [...new Set(["USDC", ...profiles.flatMap((p) => p.balances.map((b) => b.currency))])];

  const actions = !canManage ? null : (
    <Box sx={{ display: "flex", gap: 1 }}>
      <Button
        variant="outlined"
        href={dialogHref("transfer")}
        onClick={(e) => open({ kind: "transfer" }, e)}
        disabled={profiles.length < 2}
      >
        Transfer Funds
      </Button>
      <Button variant="contained" href={dialogHref("create")} onClick={(e) => open({ kind: "create" }, e)}>
        Create Profile
      </Button>
    </Box>
  );

  let body: ReactNode;
  if (query.data === undefined && (query.error || loadError)) {
    body = (
      <Alert severity="error" data-testid="profiles-error">
        {query.error ? query.error.message : loadError}
      </Alert>
    );
  } else if (query.data === undefined) {
    body = <Typography color="text.secondary">Loading profiles...</Typography>;
  } else if (profiles.length === 0) {
    body = (
      <Paper variant="outlined" sx={{ p: 4, textAlign: "center" }}>
        <Typography>No profiles yet</Typography>
      </Paper>
    );
  } else {
    body = (
      <Box
        sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", sm: "1fr 1fr", lg: "1fr 1fr 1fr" } }}
        data-testid="profiles-grid"
      >
        {profiles.map((p) => (
          <ProfileCard key={p.id} profile={p} open={open} />
        ))}
      </Box>
    );
  }

  return (
    <Screen title="Profiles" actions={actions}>
      <Typography color="text.secondary" sx={{ mb: 2 }} data-testid="profiles-provider">
        {provider === "simulator"
          ? "Paper profiles of the simulator: the default profile is the account the simulator trades on; transfers move its paper balances."
          : "Profiles of your Coinbase Exchange account."}
      </Typography>
      {body}

      <ProfileDialog
        key={`create-${generation}`}
        title="Create Profile"
        {...dialogProps("create")}
        schema={CreateProfileSchema}
        submitLabel="Create Profile"
      >
        {(fields) => (
          <TextField
            name="name"
            label="Profile name"
            fullWidth
            margin="normal"
            autoFocus
            error={!!fields.name?.errors?.length}
            helperText={fields.name?.errors?.[0]}
            slotProps={{ inputLabel: { shrink: true } }}
          />
        )}
      </ProfileDialog>

      <ProfileDialog
        key={`transfer-${generation}`}
        title="Transfer Funds"
        {...dialogProps("transfer")}
        schema={TransferSchema}
        submitLabel="Transfer"
      >
        {(fields) => (
          <>
            <NativeSelect
              name="fromProfileId"
              label="From profile"
              defaultValue={selected?.id ?? ""}
              error={fields.fromProfileId?.errors?.[0]}
              testId="transfer-from"
            >
              <ProfileOptions profiles={profiles} />
            </NativeSelect>
            <NativeSelect
              name="toProfileId"
              label="To profile"
              error={fields.toProfileId?.errors?.[0]}
              testId="transfer-to"
            >
              <ProfileOptions profiles={profiles} />
            </NativeSelect>
            <NativeSelect
              name="currency"
              label="Currency"
              defaultValue="USDC"
              error={fields.currency?.errors?.[0]}
              testId="transfer-currency"
            >
              {currencies.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </NativeSelect>
            <TextField
              name="amount"
              label="Amount"
              fullWidth
              margin="normal"
              error={!!fields.amount?.errors?.length}
              helperText={fields.amount?.errors?.[0]}
              slotProps={{ inputLabel: { shrink: true }, htmlInput: { inputMode: "decimal" } }}
            />
          </>
        )}
      </ProfileDialog>

      <ProfileDialog
        key={`delete-${generation}-${dialog?.profileId ?? ""}`}
        title="Delete Profile"
        {...dialogProps("delete")}
        schema={DeleteProfileSchema}
        submitLabel="Delete Profile"
      >
        {(fields) => (
          <>
            <DialogContentText>
              {selected
                ? `Delete ${selected.name}? Its funds move to the profile you choose, then it is deactivated.`
                : "Choose the profile to delete and where its funds go."}
            </DialogContentText>
            {selected ? (
              <input type="hidden" name="profileId" value={selected.id} />
            ) : (
              <NativeSelect name="profileId" label="Profile" error={fields.profileId?.errors?.[0]}>
                <ProfileOptions profiles={profiles.filter((p) => !p.isDefault)} />
              </NativeSelect>
            )}
            <NativeSelect
              name="toProfileId"
              label="Move funds to"
              error={fields.toProfileId?.errors?.[0]}
              testId="delete-destination"
            >
              <ProfileOptions profiles={profiles.filter((p) => p.id !== selected?.id)} />
            </NativeSelect>
          </>
        )}
      </ProfileDialog>
    </Screen>
  );
}
