// Screens before login: the full-screen loading and 'Initializing...' states, and the card
// of the sign-in, registration and two-factor forms.
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Card from "@mui/material/Card";
import CardContent from "@mui/material/CardContent";
import CircularProgress from "@mui/material/CircularProgress";
import Typography from "@mui/material/Typography";
import type { FieldMetadata } from "@conform-to/react";
import type { ReactNode } from "react";
import { Field } from "./forms.tsx";
import { Logo } from "./logo.tsx";

export function FullScreenMessage({ text, testId }: { text: string; testId: string }) {
  return (
    <Box
      data-testid={testId}
      role="status"
      aria-live="polite"
      sx={{
        position: "fixed",
        inset: 0,
        zIndex: (t) => t.zIndex.modal + 1,
        bgcolor: "background.default",
        display: "flex",
        flexDirection: "column",
        alignItems: "center",
        justifyContent: "center",
        gap: 2,
      }}
    >
      <Logo size={48} />
      <CircularProgress size={28} />
      <Typography color="text.secondary">{text}</Typography>
    </Box>
  );
}

export const LoadingScreen = () => <FullScreenMessage text="Loading..." testId="loading-screen" />;
export const InitializingScreen = () => <FullScreenMessage text="Initializing..." testId="initializing-screen" />;

/**
 * The card of the sign-in, registration and two-factor screens: the title, an optional
 * intro line, the form's error, the form, and a footer line (the link to the other screen).
 */
export function AuthCard({
  title,
  intro,
  error,
  errorId,
  footer,
  children,
}: {
  title: string;
  intro?: ReactNode;
  error?: string;
  errorId?: string;
  footer: ReactNode;
  children: ReactNode;
}) {
  return (
    <Card sx={{ width: "100%", maxWidth: 420 }} variant="outlined">
      <CardContent sx={{ p: 4 }}>
        <Typography variant="h2" component="h1" gutterBottom>
          {title}
        </Typography>
        {intro ? (
          <Typography color="text.secondary" sx={{ mb: 2 }}>
            {intro}
          </Typography>
        ) : null}
        {error ? (
          <Alert severity="error" id={errorId} sx={{ mb: 1 }}>
            {error}
          </Alert>
        ) : null}
        {children}
        <Typography sx={{ mt: 3 }} color="text.secondary">
          {footer}
        </Typography>
      </CardContent>
    </Card>
  );
}

/** The screens' one submit button, full width, with its busy label while the post runs. */
export function AuthSubmit({ busy, label, busyLabel }: { busy: boolean; label: string; busyLabel: string }) {
  return (
    <Button type="submit" variant="contained" size="large" fullWidth sx={{ mt: 2 }} disabled={busy}>
      {busy ? busyLabel : label}
    </Button>
  );
}

/** A new password and its confirmation, as Account's Change password and the reset link's page ask for them. */
export function NewPasswordFields({
  newPassword,
  confirmPassword,
  autoFocus,
}: {
  newPassword: FieldMetadata<string | undefined>;
  confirmPassword: FieldMetadata<string | undefined>;
  autoFocus?: boolean;
}) {
  return (
    <>
      <Field
        field={newPassword}
        label="New password"
        type="password"
        autoComplete="new-password"
        autoFocus={autoFocus}
        helperText="At least 6 characters"
        slotProps={{ htmlInput: { "data-testid": "new-password", maxLength: 100 } }}
      />
      <Field
        field={confirmPassword}
        label="Confirm new password"
        type="password"
        autoComplete="new-password"
        slotProps={{ htmlInput: { "data-testid": "confirm-password", maxLength: 100 } }}
      />
    </>
  );
}
