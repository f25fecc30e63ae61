import { getFormProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import Alert from "@mui/material/Alert";
import Link from "@mui/material/Link";
import Typography from "@mui/material/Typography";
import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, json, redirect } from "@remix-run/node";
import {
  Form,
  Link as RemixLink,
  useActionData,
  useLoaderData,
  useNavigation,
  useSearchParams,
} from "@remix-run/react";
import { useEffect } from "react";
import { AuthCard, AuthSubmit } from "#app/components/auth-screens.tsx";
import { Field, useZodForm } from "#app/components/forms.tsx";
import { useToast } from "#app/components/toaster.tsx";
import { RegisterFormSchema } from "#app/core/schemas/auth.ts";
import type { Toast } from "#app/core/schemas/toast.ts";
import { REGISTRATION_BY_INVITATION } from "#app/core/schemas/auth.ts";
import { UsernameTakenError } from "#app/core/types/users.ts";
import { RegistrationClosedError, registerUser, registrationMode } from "#app/services/auth.server.ts";
import { requireAnonymous, startSession } from "#app/services/sessions.server.ts";
import { safeRedirect } from "#app/utils/safe-redirect.ts";

const ROLE_TEXT = { admin: "an administrator", trader: "a trader", viewer: "a viewer (read-only)" } as const;

/** What this screen may offer: a form (first account, invitation, open registration) or the closed notice. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAnonymous(request, context);
  const mode = await registrationMode(context.db, new URL(request.url).searchParams.get("invite"));
  return json({
    kind: mode.kind,
    role:
      mode.kind === "invite"
        ? mode.invite.role
        : mode.kind === "open"
          ? "viewer"
          : mode.kind === "first"
            ? "admin"
            : null,
    inviteInvalid: mode.kind === "closed" && mode.inviteInvalid,
  });
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireAnonymous(request, context);
  const formData = await request.formData();
  const submission = parseWithZod(formData, { schema: RegisterFormSchema });
  if (submission.status !== "success") {
    return json(
      { result: submission.reply({ hideFields: ["password", "confirmPassword"] }), toast: null as Toast | null },
      { status: 400 },
    );
  }
  try {
    const user = await registerUser(context.db, { ...submission.value, ip: context.clientIp });
    const cookie = await startSession(request, context, user);
    return redirect(safeRedirect(formData.get("redirectTo")), { headers: { "Set-Cookie": cookie } });
  } catch (error) {
    if (error instanceof RegistrationClosedError) {
      return json(
        {
          result: submission.reply({ formErrors: [error.message], hideFields: ["password", "confirmPassword"] }),
          toast: { title: "Registration Failed", description: error.message, variant: "destructive" } as Toast | null,
        },
        { status: 403 },
      );
    }
    if (!(error instanceof UsernameTakenError)) throw error;
    return json(
      {
        result: submission.reply({
          fieldErrors: { username: [error.message] },
          hideFields: ["password", "confirmPassword"],
        }),
        toast: { title: "Registration Failed", description: error.message, variant: "destructive" } as Toast | null,
      },
      { status: 409 },
    );
  }
}

export const meta: MetaFunction = () => [{ title: "Create account · PerpDesk" }];

export default function RegisterPage() {
  const actionData = useActionData<typeof action>();
  const mode = useLoaderData<typeof loader>();
  const [searchParams] = useSearchParams();
  const redirectTo = searchParams.get("redirectTo") ?? "";
  const inviteCode = searchParams.get("invite") ?? "";
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formAction?.startsWith("/register") === true;
  const toast = useToast();

  const [form, fields] = useZodForm({
    id: "register-form",
    schema: RegisterFormSchema,
    lastResult: actionData?.result,
    shouldValidate: "onBlur",
  });

  useEffect(() => {
    if (actionData?.toast) toast(actionData.toast);
  }, [actionData, toast]);

  return (
    <AuthCard
      title="Create account"
      footer={
        <>
          Already have an account?{" "}
          <Link
            component={RemixLink}
            to={redirectTo ? `/login?redirectTo=${encodeURIComponent(redirectTo)}` : "/login"}
          >
            Sign in
          </Link>
        </>
      }
    >
      {mode.kind === "closed" ? (
        <Alert severity="info" sx={{ mb: 1 }} data-testid="registration-closed">
          {mode.inviteInvalid ? "This invite link is not valid any more (used, revoked or expired). " : ""}
          {REGISTRATION_BY_INVITATION}
        </Alert>
      ) : (
        <Typography color="text.secondary" sx={{ mb: 2 }}>
          {mode.kind === "first"
            ? "The first account becomes the administrator."
            : `This account will be ${ROLE_TEXT[mode.role ?? "viewer"]}.`}
        </Typography>
      )}
      {actionData?.toast ? (
        <Alert severity="error" sx={{ mb: 1 }}>
          {actionData.toast.title}: {actionData.toast.description}
        </Alert>
      ) : null}
      {mode.kind === "closed" ? null : (
        <Form
          method="post"
          action={inviteCode ? `/register?invite=${encodeURIComponent(inviteCode)}` : "/register"}
          {...getFormProps(form)}
        >
          <input type="hidden" name="redirectTo" value={redirectTo} />
          <input type="hidden" name="invite" value={inviteCode} />
          <Field
            field={fields.username}
            label="Username"
            autoComplete="username"
            autoFocus
            helperText="3-20 letters, numbers or underscores"
          />
          <Field field={fields.password} label="Password" type="password" autoComplete="new-password" />
          <Field field={fields.confirmPassword} label="Confirm password" type="password" autoComplete="new-password" />
          <AuthSubmit busy={busy} label="Create account" busyLabel="Creating account..." />
        </Form>
      )}
    </AuthCard>
  );
}
