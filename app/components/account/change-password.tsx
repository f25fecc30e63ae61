// Account → Change password (issue 23, decision 041): the current password, the new one twice
// (the registration's rules, checked in the browser by the same Zod schema the /account action
// uses, through Conform). A plain form posted to /account (intent=password): works without
// JavaScript; the action answers the field errors, or redirects with a toast once changed (the
// other sessions of the account are then signed out, this one stays).
import { getFormProps, type SubmissionResult } from "@conform-to/react";
import Paper from "@mui/material/Paper";
import Typography from "@mui/material/Typography";
import { Form, useNavigation } from "@remix-run/react";
import { AuthSubmit, NewPasswordFields } from "#app/components/auth-screens.tsx";
import { Field, FormError, useZodForm } from "#app/components/forms.tsx";
import { ChangePasswordSchema } from "#app/core/schemas/auth.ts";

export function ChangePasswordCard({ lastResult }: { lastResult: SubmissionResult<string[]> | undefined }) {
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formData?.get("intent") === "password";
  const [form, fields] = useZodForm({
    id: "change-password",
    schema: ChangePasswordSchema,
    lastResult,
    shouldValidate: "onBlur",
  });
  return (
    <Paper variant="outlined" sx={{ p: 2, mb: 3 }} data-testid="change-password">
      <Typography variant="h3" component="h2" sx={{ mb: 1 }}>
        Change password
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 1 }}>
        Your other sessions (other browsers and devices) are signed out when the password changes; this one stays signed
        in.
      </Typography>
      <FormError errors={form.errors} />
      <Form method="post" action="/account" {...getFormProps(form)} style={{ maxWidth: 420 }}>
        <input type="hidden" name="intent" value="password" />
        <Field
          field={fields.currentPassword}
          label="Current password"
          type="password"
          autoComplete="current-password"
          slotProps={{ htmlInput: { "data-testid": "current-password", maxLength: 100 } }}
        />
        <NewPasswordFields newPassword={fields.newPassword} confirmPassword={fields.confirmPassword} />
        <AuthSubmit busy={busy} label="Change password" busyLabel="Changing password..." />
      </Form>
    </Paper>
  );
}
