// /two-factor: the second login step for an account with 2FA on. The login action sends
// here after a right password (a 5-minute signed cookie names the account); a right app
// code or recovery code starts the session. Plain form post: works without JavaScript.
import { getFormProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import Link from "@mui/material/Link";
import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, json, redirect } from "@remix-run/node";
import { Form, Link as RemixLink, useActionData, useNavigation } from "@remix-run/react";
import { AuthCard, AuthSubmit } from "#app/components/auth-screens.tsx";
import { Field, useZodForm } from "#app/components/forms.tsx";
import { TwoFactorCodeFormSchema } from "#app/core/schemas/auth.ts";
import { completeLogin } from "#app/services/auth.server.ts";
import { checkSecondFactor, secondStepUser } from "#app/services/two-factor.server.ts";
import { requireAnonymous, startSession } from "#app/services/sessions.server.ts";
import { safeRedirect } from "#app/utils/safe-redirect.ts";
import { clearSecondFactor, readSecondFactor } from "#app/utils/session.server.ts";

export const meta: MetaFunction = () => [{ title: "Two-factor code · PerpDesk" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAnonymous(request, context);
  if (!(await readSecondFactor(request, context))) throw redirect("/login");
  return null;
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireAnonymous(request, context);
  const pending = await readSecondFactor(request, context);
  const user = pending ? await secondStepUser(context.db, pending.userId) : null;
  if (!pending || !user) {
    return redirect("/login", { headers: { "Set-Cookie": await clearSecondFactor(context) } });
  }
  const formData = await request.formData();
  const submission = parseWithZod(formData, { schema: TwoFactorCodeFormSchema });
  if (submission.status !== "success") return json({ result: submission.reply() }, { status: 400 });
  const checked = await checkSecondFactor(context.db, context.config.appSecret, user.id, submission.value.code, {
    ip: context.clientIp,
    purpose: "login",
  });
  if (!checked.ok) {
    const headers: HeadersInit = checked.retryAfterSeconds ? { "Retry-After": String(checked.retryAfterSeconds) } : {};
    return json(
      { result: submission.reply({ formErrors: [checked.error], resetForm: true }) },
      { status: checked.status, headers },
    );
  }
  const headers = new Headers();
  headers.append(
    "Set-Cookie",
    await startSession(request, context, await completeLogin(context.db, user, context.clientIp)),
  );
  headers.append("Set-Cookie", await clearSecondFactor(context));
  return redirect(safeRedirect(pending.redirectTo), { headers });
}

export default function TwoFactorPage() {
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formAction === "/two-factor";
  const [form, fields] = useZodForm({
    id: "two-factor-form",
    schema: TwoFactorCodeFormSchema,
    lastResult: actionData?.result,
  });

  return (
    <AuthCard
      title="Two-factor code"
      intro="Enter the 6-digit code your authenticator app shows for PerpDesk. Lost your phone? Enter one of your recovery codes instead."
      error={form.errors?.[0]}
      errorId={form.errorId}
      footer={
        <Link component={RemixLink} to="/login">
          Back to sign in
        </Link>
      }
    >
      <Form method="post" action="/two-factor" {...getFormProps(form)}>
        <Field
          field={fields.code}
          label="Authentication code"
          autoComplete="one-time-code"
          autoFocus
          slotProps={{ htmlInput: { inputMode: "text", spellCheck: false, autoCapitalize: "off" } }}
        />
        <AuthSubmit busy={busy} label="Verify" busyLabel="Verifying..." />
      </Form>
    </AuthCard>
  );
}
