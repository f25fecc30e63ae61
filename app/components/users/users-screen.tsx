// Users (issue 10, admin only): the accounts with role, 2FA state and last login, each
// changeable (role, disable/enable, delete with confirmation); open invitations with their
// link (copy with JavaScript, select by hand without) and revoke; the security switches.
// Every control is a plain form posted to /users, so the screen works without JavaScript.
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import Paper from "@mui/material/Paper";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableContainer from "@mui/material/TableContainer";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import Typography from "@mui/material/Typography";
import { Form, Link as RemixLink } from "@remix-run/react";
import { ROLES } from "#app/core/auth/permissions.ts";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { IntentForm } from "../forms.tsx";
import { useCopy } from "../use-copy.ts";
import { Screen } from "../screen.tsx";

export interface UserRowView {
  id: string;
  username: string;
  role: (typeof ROLES)[number];
  disabled: boolean;
  twoFactorEnabled: boolean;
  lastLoginAt: string | null;
  createdAt: string;
}
export interface InviteRowView {
  code: string;
  role: string;
  expiresAt: string;
  url: string;
}
export interface UsersScreenProps {
  users: UserRowView[];
  invites: InviteRowView[];
  settings: { registrationOpen: boolean; requireTwoFactor: boolean };
  meId: string;
  confirmDeleteId: string | null;
  /** A one-time password reset link just made (decision 041): shown this once. */
  resetLink?: { username: string; url: string; expiresAt: string } | null;
}

/** Below 600 px each account is a block of labelled lines instead of a wide table row. */
const STACK_ON_PHONES = {
  "@media (max-width: 599.95px)": {
    "& thead": { display: "none" },
    "& tr": { display: "block", py: 1, borderBottom: "1px solid rgba(255,255,255,0.12)" },
    "& td": {
      display: "flex",
      alignItems: "center",
      justifyContent: "space-between",
      gap: 2,
      border: 0,
      py: 0.5,
      textAlign: "left",
    },
    "& td::before": { content: "attr(data-label)", color: "text.secondary", fontSize: 13, flexShrink: 0 },
  },
} as const;

/** The Security form's switches, in order. */
const SECURITY_SWITCHES = [
  {
    name: "registrationOpen",
    testId: "registration-open",
    label:
      "Open registration: anyone who reaches this server can create a read-only (viewer) account without an invitation",
  },
  {
    name: "requireTwoFactor",
    testId: "require-2fa",
    label: "Require two-factor authentication for all accounts",
  },
] as const;

const when = (iso: string | null) =>
  iso ? `${new Date(iso).toISOString().replace("T", " ").slice(0, 16)} UTC` : "never";

/** A one-time link to hand over: read-only, selected whole when it takes the focus. */
function LinkField({
  value,
  ariaLabel,
  testId,
  border,
}: {
  value: string;
  ariaLabel: string;
  testId: string;
  border: string;
}) {
  return (
    <Box
      component="input"
      readOnly
      value={value}
      aria-label={ariaLabel}
      data-testid={testId}
      onFocus={(e: React.FocusEvent<HTMLInputElement>) => e.currentTarget.select()}
      sx={{
        flex: "1 1 320px",
        minWidth: 0,
        p: 0.75,
        font: "inherit",
        fontSize: 13,
        color: "inherit",
        background: "transparent",
        border,
        borderRadius: 1,
      }}
    />
  );
}

/** A native select of the roles (it works without JavaScript). */
function RoleSelect({
  id,
  defaultValue,
  ariaLabel,
  testId,
  padding,
}: {
  id?: string;
  defaultValue: string;
  ariaLabel?: string;
  testId: string;
  padding: string;
}) {
  return (
    <select
      id={id}
      name="role"
      defaultValue={defaultValue}
      aria-label={ariaLabel}
      data-testid={testId}
      style={{
        padding,
        background: "transparent",
        color: "inherit",
        border: "1px solid rgba(255,255,255,0.23)",
        borderRadius: 4,
      }}
    >
      {ROLES.map((r) => (
        <option key={r} value={r} style={{ color: "#000" }}>
          {r}
        </option>
      ))}
    </select>
  );
}

function RoleForm({ user }: { user: UserRowView }) {
  return (
    <IntentForm
      action="/users"
      intent="update"
      values={{ id: user.id }}
      style={{ display: "flex", gap: 8, alignItems: "center" }}
    >
      <RoleSelect
        defaultValue={user.role}
        ariaLabel={`Role of ${user.username}`}
        testId={`role-${user.username}`}
        padding="4px 6px"
      />
      <Button type="submit" size="small" variant="outlined" data-testid={`save-role-${user.username}`}>
        Save
      </Button>
    </IntentForm>
  );
}

export function UsersScreen({ users, invites, settings, meId, confirmDeleteId, resetLink = null }: UsersScreenProps) {
  const hydrated = useHydrated();
  const copy = useCopy();
  const toDelete = users.find((u) => u.id === confirmDeleteId) ?? null;
  return (
    <Screen
      title="Users"
      actions={
        <Button component={RemixLink} to="/audit" size="small" data-testid="audit-link">
          Audit trail
        </Button>
      }
    >
      {resetLink ? (
        <Alert severity="success" sx={{ mb: 2 }} data-testid="reset-link">
          <Typography sx={{ mb: 1 }}>
            {`One-time password reset link for ${resetLink.username}, valid until ${when(resetLink.expiresAt)}. Hand it over yourself; it is shown only now. Opening it lets ${resetLink.username} choose a new password, once, and signs out all their sessions.`}
          </Typography>
          <Box sx={{ display: "flex", gap: 1, alignItems: "center", flexWrap: "wrap" }}>
            <LinkField
              value={resetLink.url}
              ariaLabel={`Password reset link for ${resetLink.username}`}
              testId="reset-link-url"
              border="1px solid rgba(128,128,128,0.5)"
            />
            {hydrated ? (
              <Button size="small" onClick={() => copy(resetLink.url, "Reset link")} data-testid="copy-reset-link">
                Copy
              </Button>
            ) : null}
          </Box>
        </Alert>
      ) : null}

      {toDelete ? (
        <Alert severity="warning" sx={{ mb: 2 }} data-testid="confirm-delete">
          <Typography
            sx={{ mb: 1 }}
          >{`Delete the account ${toDelete.username}? Its sessions end at once; this cannot be undone.`}</Typography>
          <IntentForm action="/users" intent="delete" values={{ id: toDelete.id }} style={{ display: "inline" }}>
            <Button type="submit" color="error" variant="contained" size="small" data-testid="confirm-delete-button">
              Delete {toDelete.username}
            </Button>
          </IntentForm>{" "}
          <Button component={RemixLink} to="/users" size="small">
            Cancel
          </Button>
        </Alert>
      ) : null}

      <Paper variant="outlined" sx={{ mb: 3 }}>
        <Typography variant="h3" component="h2" sx={{ p: 2, pb: 1 }}>
          Accounts
        </Typography>
        <TableContainer>
          <Table size="small" aria-label="Accounts" data-testid="users-table" sx={STACK_ON_PHONES}>
            <TableHead>
              <TableRow>
                <TableCell>User</TableCell>
                <TableCell>Role</TableCell>
                <TableCell>2FA</TableCell>
                <TableCell>Last login</TableCell>
                <TableCell>Status</TableCell>
                <TableCell align="right">Actions</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {users.map((u) => (
                <TableRow key={u.id} data-testid="user-row" data-username={u.username}>
                  <TableCell data-label="User">
                    {u.username}
                    {u.id === meId ? <Chip size="small" label="you" sx={{ ml: 1 }} /> : null}
                  </TableCell>
                  <TableCell data-label="Role">
                    <RoleForm user={u} />
                  </TableCell>
                  <TableCell data-label="2FA">
                    {u.twoFactorEnabled ? (
                      <Chip size="small" color="success" label="on" />
                    ) : (
                      <Chip size="small" variant="outlined" label="off" />
                    )}
                  </TableCell>
                  <TableCell data-label="Last login" sx={{ whiteSpace: "nowrap" }}>
                    {when(u.lastLoginAt)}
                  </TableCell>
                  <TableCell data-label="Status">
                    {u.disabled ? (
                      <Chip size="small" color="error" label="disabled" />
                    ) : (
                      <Chip size="small" color="success" variant="outlined" label="active" />
                    )}
                  </TableCell>
                  <TableCell align="right" data-label="Actions">
                    <Box sx={{ display: "flex", gap: 1, justifyContent: "flex-end", flexWrap: "wrap" }}>
                      {/* Your own 2FA goes off on the Account screen, with a current code (issue 23). */}
                      {u.twoFactorEnabled && u.id !== meId ? (
                        <IntentForm action="/users" intent="update" values={{ id: u.id, twoFactor: "false" }}>
                          <Button type="submit" size="small" color="warning" data-testid={`reset-2fa-${u.username}`}>
                            Reset 2FA
                          </Button>
                        </IntentForm>
                      ) : null}
                      {/* Your own password changes on the Account screen, with the current one (decision 041). */}
                      {u.id !== meId ? (
                        <IntentForm action="/users" intent="reset-password" values={{ id: u.id }}>
                          <Button
                            type="submit"
                            size="small"
                            color="warning"
                            data-testid={`reset-password-${u.username}`}
                          >
                            Reset password
                          </Button>
                        </IntentForm>
                      ) : null}
                      <IntentForm
                        action="/users"
                        intent="update"
                        values={{ id: u.id, disabled: u.disabled ? "false" : "true" }}
                      >
                        <Button
                          type="submit"
                          size="small"
                          color={u.disabled ? "success" : "warning"}
                          data-testid={`toggle-${u.username}`}
                        >
                          {u.disabled ? "Enable" : "Disable"}
                        </Button>
                      </IntentForm>
                      <Button
                        component={RemixLink}
                        to={`/users?delete=${u.id}`}
                        size="small"
                        color="error"
                        data-testid={`delete-${u.username}`}
                      >
                        Delete
                      </Button>
                    </Box>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      </Paper>

      <Paper variant="outlined" sx={{ mb: 3, p: 2 }}>
        <Typography variant="h3" component="h2" sx={{ mb: 1 }}>
          Invitations
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 2 }}>
          An invite link registers one account with its role; it works once, for 7 days.
        </Typography>
        <Form
          method="post"
          action="/users"
          style={{ display: "flex", gap: 8, alignItems: "center", marginBottom: 16, flexWrap: "wrap" }}
        >
          <input type="hidden" name="intent" value="invite" />
          <label htmlFor="invite-role">Role</label>
          <RoleSelect id="invite-role" defaultValue="trader" testId="invite-role" padding="6px 8px" />
          <Button type="submit" variant="contained" data-testid="create-invite">
            Create invite link
          </Button>
        </Form>
        {invites.length === 0 ? (
          <Typography color="text.secondary" data-testid="no-invites">
            No open invitations
          </Typography>
        ) : (
          <Box sx={{ display: "grid", gap: 1 }}>
            {invites.map((invite) => (
              <Box
                key={invite.code}
                data-testid="invite-row"
                sx={{ display: "flex", gap: 1, alignItems: "center", flexWrap: "wrap" }}
              >
                <Chip size="small" label={invite.role} />
                <LinkField
                  value={invite.url}
                  ariaLabel={`Invite link (${invite.role})`}
                  testId="invite-url"
                  border="1px solid rgba(255,255,255,0.23)"
                />
                <Typography variant="caption" color="text.secondary" sx={{ whiteSpace: "nowrap" }}>
                  expires {when(invite.expiresAt)}
                </Typography>
                {hydrated ? (
                  <Button size="small" onClick={() => copy(invite.url, "Invite link")} data-testid="copy-invite">
                    Copy link
                  </Button>
                ) : null}
                <Form method="post" action="/users">
                  <input type="hidden" name="intent" value="revoke" />
                  <input type="hidden" name="code" value={invite.code} />
                  <Button type="submit" size="small" color="error" data-testid="revoke-invite">
                    Revoke
                  </Button>
                </Form>
              </Box>
            ))}
          </Box>
        )}
      </Paper>

      <Paper variant="outlined" sx={{ p: 2 }}>
        <Typography variant="h3" component="h2" sx={{ mb: 1 }}>
          Security
        </Typography>
        <Form method="post" action="/users" style={{ display: "grid", gap: 8 }}>
          <input type="hidden" name="intent" value="settings" />
          {SECURITY_SWITCHES.map((option) => (
            <label key={option.name} style={{ display: "flex", gap: 8, alignItems: "center" }}>
              <input
                type="checkbox"
                name={option.name}
                defaultChecked={settings[option.name]}
                data-testid={option.testId}
              />
              {option.label}
            </label>
          ))}
          <Box>
            <Button type="submit" variant="outlined" data-testid="save-security">
              Save security settings
            </Button>
          </Box>
        </Form>
      </Paper>
    </Screen>
  );
}
