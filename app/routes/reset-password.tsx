// /reset-password?token=…: the page a one-time password reset link opens (issue 23, decision
// 041). No sign-in needed (nor refused: the link is the credential). A valid link (unused,
// under 1 h old, the newest one for the account) shows the new-password form; posting it sets
// the password, uses the link up and signs out every session of the account, then sends the
// browser to /login with a toast. A plain form: works without JavaScript.
import { getFormProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Link from "@mui/material/Link";
import Typography from "@mui/material/Typography";
import {
  type ActionFunctionArgs,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
  json,
} from "@remix-run/node";
import { Form, Link as RemixLink, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { AuthCard, AuthSubmit, NewPasswordFields } from "#app/components/auth-screens.tsx";
import { useZodForm } from "#app/components/forms.tsx";
// RESET_LINK_INVALID comes from the shared schema module: a .server module is empty in the browser,
// and the page compares with it while rendering (a mismatch would break hydration).
import { RESET_LINK_INVALID, ResetPasswordSchema } from "#app/core/schemas/auth.ts";
import { findPasswordReset, redeemPasswordReset } from "#app/services/passwords.server.ts";
import { redirectWithToast } from "#app/utils/toast.server.ts";

// The token is in the address: never cached, never sent on as a referrer.
const HEADERS = { "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" };
export const headers: HeadersFunction = () => HEADERS;

export const meta: MetaFunction = () => [{ title: "Set a new password · PerpDesk" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const token = new URL(request.url).searchParams.get("token") ?? "";
  const reset = await findPasswordReset(context.db, token);
  return json({ token: reset ? token : "", username: reset?.username ?? null }, { headers: HEADERS });
}

export async function action({ request, context }: ActionFunctionArgs) {
  // A body that is not a form is answered like an empty form (400), not a 500.
  const submission = parseWithZod(await request.formData().catch(() => new FormData()), {
    schema: ResetPasswordSchema,
  });
  const hideFields = ["newPassword", "confirmPassword"];
  if (submission.status !== "success")
    return json(
      { result: submission.reply({ hideFields }), error: null as string | null },
      { status: 400, headers: HEADERS },
    );
  const outcome = await redeemPasswordReset(context.db, {
    token: submission.value.token,
    newPassword: submission.value.newPassword,
    ip: context.clientIp,
  });
  if (!outcome.ok)
    return json(
      { result: submission.reply({ formErrors: [outcome.error], hideFields }), error: outcome.error as string | null },
      { status: outcome.status, headers: HEADERS },
    );
  return redirectWithToast(
    context,
    "/login",
    { title: "Password changed", description: `Sign in as ${outcome.value.username} with your new password.` },
    { headers: HEADERS },
  );
}

export default function ResetPasswordPage() {
  const { token, username } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formAction?.startsWith("/reset-password") === true;
  const [form, fields] = useZodForm({
    id: "reset-password",
    schema: ResetPasswordSchema,
    lastResult: actionData?.result,
    shouldValidate: "onBlur",
  });
  const invalid = !token || actionData?.error === RESET_LINK_INVALID;
  return (
    <Box sx={{ minHeight: "100vh", display: "flex", alignItems: "center", justifyContent: "center", p: 3 }}>
      <AuthCard
        title="Set a new password"
        footer={
          <Link component={RemixLink} to="/login">
            Back to sign in
          </Link>
        }
      >
        {invalid ? (
          <Alert severity="error" data-testid="reset-invalid">
            {RESET_LINK_INVALID}
          </Alert>
        ) : (
          <>
            <Typography color="text.secondary" sx={{ mb: 1 }} data-testid="reset-for">
              {`For the account ${username}. Every session of the account is signed out when the new password is set; this link then stops working.`}
            </Typography>
            {form.errors?.length ? (
              <Alert severity="error" sx={{ mb: 1 }}>
                {form.errors[0]}
              </Alert>
            ) : null}
            <Form method="post" action={`/reset-password?${new URLSearchParams({ token })}`} {...getFormProps(form)}>
              <input type="hidden" name="token" value={token} />
              <NewPasswordFields newPassword={fields.newPassword} confirmPassword={fields.confirmPassword} autoFocus />
              <AuthSubmit busy={busy} label="Set new password" busyLabel="Saving..." />
            </Form>
          </>
        )}
      </AuthCard>
    </Box>
  );
}
