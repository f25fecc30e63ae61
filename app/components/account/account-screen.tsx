// Account (every role): who you are, and your two-factor authentication: set it up with a
// QR code (or the key typed by hand) and a code from the app, see the ten recovery codes
// once, make new ones, or turn it off with a current code. Plain forms posted to /account:
// works without JavaScript.
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Paper from "@mui/material/Paper";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { Form } from "@remix-run/react";
import type { ReactNode } from "react";
import type { SubmissionResult } from "@conform-to/react";
import { Screen } from "../screen.tsx";
import { ChangePasswordCard } from "./change-password.tsx";
import Chip from "@mui/material/Chip";

export interface AccountScreenProps {
  user: { username: string; role: string; twoFactorEnabled: boolean };
  enrolment: { secretGroups: string; otpauthUri: string; qrDataUrl: string } | null;
  recoveryCodesLeft: number;
  required: boolean;
  /** From the action: codes to show once, or what went wrong and for which form. */
  result: { recoveryCodes?: string[]; error?: string; intent?: string; result?: SubmissionResult<string[]> } | null;
}

function CodeForm({
  intent,
  label,
  color = "primary",
  error,
  helper = "6 digits from the app, or a recovery code",
  children,
}: {
  intent: string;
  label: string;
  color?: "primary" | "error";
  error?: string;
  helper?: string;
  children?: ReactNode;
}) {
  return (
    <Form
      method="post"
      action="/account"
      style={{ display: "flex", gap: 8, alignItems: "flex-start", flexWrap: "wrap" }}
    >
      <input type="hidden" name="intent" value={intent} />
      <TextField
        name="code"
        label="Code"
        size="small"
        required
        autoComplete="one-time-code"
        error={Boolean(error)}
        helperText={error ?? helper}
        slotProps={{
          htmlInput: { "data-testid": `${intent}-code`, spellCheck: false, autoCapitalize: "off", maxLength: 40 },
        }}
        sx={{ width: 260 }}
      />
      <Button
        type="submit"
        variant={color === "error" ? "outlined" : "contained"}
        color={color}
        data-testid={`${intent}-submit`}
        sx={{ mt: 0.25 }}
      >
        {label}
      </Button>
      {children}
    </Form>
  );
}

export function AccountScreen({ user, enrolment, recoveryCodesLeft, required, result }: AccountScreenProps) {
  const errorFor = (intent: string) => (result?.intent === intent ? result.error : undefined);
  return (
    <Screen title="Account">
      <Paper variant="outlined" sx={{ p: 2, mb: 3 }}>
        <Typography variant="h3" component="h2" sx={{ mb: 1 }}>
          Signed in as {user.username}
        </Typography>
        <Typography color="text.secondary" component="div">
          Role: <Chip size="small" variant="outlined" label={user.role} data-testid="account-role" />{" "}
          {user.role === "admin"
            ? "everything, including settings, profiles and users."
            : user.role === "trader"
              ? "place and close trades, cancel orders and activate the emergency stop."
              : "read-only; you can activate the emergency stop."}
        </Typography>
      </Paper>

      <ChangePasswordCard lastResult={result?.intent === "password" ? result.result : undefined} />

      <Paper variant="outlined" sx={{ p: 2 }} data-testid="two-factor">
        <Box sx={{ display: "flex", gap: 1, alignItems: "center", mb: 1 }}>
          <Typography variant="h3" component="h2">
            Two-factor authentication
          </Typography>
          {user.twoFactorEnabled ? (
            <Chip size="small" color="success" label="on" data-testid="two-factor-state" />
          ) : (
            <Chip size="small" variant="outlined" label="off" data-testid="two-factor-state" />
          )}
        </Box>

        {required && !user.twoFactorEnabled ? (
          <Alert severity="warning" sx={{ mb: 2 }} data-testid="two-factor-required">
            An admin requires two-factor authentication: set it up to use the app.
          </Alert>
        ) : null}

        {result?.recoveryCodes ? (
          <Alert severity="success" sx={{ mb: 2 }} data-testid="recovery-codes">
            <Typography sx={{ mb: 1 }}>
              {result.intent === "renew"
                ? "New recovery codes: the old ones no longer work."
                : "Two-factor authentication is on."}{" "}
              Save these recovery codes somewhere safe: each signs you in once if you lose your phone, and they are
              shown only now.
            </Typography>
            <Box
              sx={{
                display: "grid",
                gridTemplateColumns: "repeat(auto-fill, minmax(120px, 1fr))",
                gap: 0.5,
                maxWidth: 560,
              }}
            >
              {result.recoveryCodes.map((code) => (
                <Box component="code" key={code} data-testid="recovery-code" sx={{ fontSize: 15 }}>
                  {code}
                </Box>
              ))}
            </Box>
          </Alert>
        ) : null}

        {user.twoFactorEnabled ? (
          <Box sx={{ display: "grid", gap: 3 }}>
            <Typography color="text.secondary">
              Signing in asks for a code from your authenticator app after the password. Recovery codes left:{" "}
              <b data-testid="recovery-left">{recoveryCodesLeft}</b>
              {recoveryCodesLeft <= 3 ? " (make new ones before you run out)" : ""}.
            </Typography>
            <Box>
              <Typography variant="subtitle2" sx={{ mb: 1 }}>
                New recovery codes
              </Typography>
              <CodeForm intent="renew" label="Make new recovery codes" error={errorFor("renew")} />
            </Box>
            <Box>
              <Typography variant="subtitle2" sx={{ mb: 1 }}>
                Turn off
              </Typography>
              <CodeForm
                intent="disable"
                label="Turn off two-factor authentication"
                color="error"
                error={errorFor("disable")}
              />
            </Box>
          </Box>
        ) : enrolment ? (
          <Box sx={{ display: "grid", gap: 2 }} data-testid="enrolment">
            <Typography>
              1. Scan this QR code with your authenticator app (Google Authenticator, 1Password, Authy, Bitwarden...).
            </Typography>
            <Box
              component="img"
              src={enrolment.qrDataUrl}
              alt="QR code for your authenticator app"
              data-testid="two-factor-qr"
              sx={{ width: 200, height: 200, bgcolor: "#fff", borderRadius: 1 }}
            />
            <Typography color="text.secondary">
              Or type this key into the app: <code data-testid="two-factor-secret">{enrolment.secretGroups}</code>
            </Typography>
            <Typography>2. Enter the 6-digit code the app shows.</Typography>
            <CodeForm intent="confirm" label="Turn on" helper="6 digits" error={errorFor("confirm")} />
            <Form method="post" action="/account">
              <input type="hidden" name="intent" value="cancel" />
              <Button type="submit" size="small" data-testid="cancel-enrolment">
                Cancel setup
              </Button>
            </Form>
          </Box>
        ) : (
          <Box sx={{ display: "grid", gap: 2, justifyItems: "start" }}>
            <Typography color="text.secondary">
              Protect your account with a code from an authenticator app on your phone, asked for after your password.
              Anyone who learns your password still cannot sign in or trade.
            </Typography>
            <Form method="post" action="/account">
              <input type="hidden" name="intent" value="start" />
              <Button type="submit" variant="contained" data-testid="start-enrolment">
                Set up two-factor authentication
              </Button>
            </Form>
          </Box>
        )}
      </Paper>
    </Screen>
  );
}
