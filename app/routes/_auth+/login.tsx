import { getFormProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import Link from "@mui/material/Link";
import { type ActionFunctionArgs, type MetaFunction, json, redirect } from "@remix-run/node";
import { Form, Link as RemixLink, useActionData, useNavigation, useSearchParams } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { AuthCard, AuthSubmit } from "#app/components/auth-screens.tsx";
import { Field, useZodForm } from "#app/components/forms.tsx";
import { useToast } from "#app/components/toaster.tsx";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { LoginSchema } from "#app/core/schemas/auth.ts";
import type { Toast } from "#app/core/schemas/toast.ts";
import { LoginError, authenticateForm, requireAnonymous, startSession } from "#app/services/sessions.server.ts";
import { safeRedirect } from "#app/utils/safe-redirect.ts";
import { commitSecondFactor } from "#app/utils/session.server.ts";

export const LOGIN_FAILED_401 = "Invalid username or password. Please try again.";

export async function action({ request, context }: ActionFunctionArgs) {
  await requireAnonymous(request, context);
  // remix-auth-form reads the body itself: Conform parses a clone.
  const formData = await request.clone().formData();
  const submission = parseWithZod(formData, { schema: LoginSchema });
  if (submission.status !== "success") {
    return json(
      { result: submission.reply({ hideFields: ["password"] }), toast: null as Toast | null },
      { status: 400 },
    );
  }
  try {
    const { user, secondFactor } = await authenticateForm(request, context);
    const redirectTo = safeRedirect(formData.get("redirectTo"));
    if (secondFactor) {
      // The password was right; the session waits for the code (/two-factor).
      const pending = await commitSecondFactor(context, { userId: user.id, redirectTo });
      return redirect("/two-factor", { headers: { "Set-Cookie": pending } });
    }
    const cookie = await startSession(request, context, user);
    return redirect(redirectTo, { headers: { "Set-Cookie": cookie } });
  } catch (error) {
    if (!(error instanceof LoginError)) throw error;
    const description = error.result.status === 401 ? LOGIN_FAILED_401 : error.result.error;
    const headers: HeadersInit = error.result.retryAfterSeconds
      ? { "Retry-After": String(error.result.retryAfterSeconds) }
      : {};
    return json(
      {
        result: submission.reply({ formErrors: [description], resetForm: true }),
        toast: { title: "Login Failed", description, variant: "destructive" } as Toast | null,
      },
      { status: error.result.status, headers },
    );
  }
}

export const meta: MetaFunction = () => [{ title: "Sign in · PerpDesk" }];

export default function LoginPage() {
  const actionData = useActionData<typeof action>();
  const [searchParams] = useSearchParams();
  const redirectTo = searchParams.get("redirectTo") ?? "";
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formAction === "/login";
  const toast = useToast();
  const usernameRef = useRef<HTMLInputElement>(null);
  const hydrated = useHydrated();

  const [form, fields] = useZodForm({
    id: "login-form",
    schema: LoginSchema,
    lastResult: actionData?.result,
  });

  // A failed login clears the form, focuses the username and shows the toast (docs/spec/api.md#errors).
  useEffect(() => {
    if (actionData?.toast) {
      toast(actionData.toast);
      usernameRef.current?.focus();
    }
  }, [actionData, toast]);

  return (
    <AuthCard
      title="Sign in"
      intro="Sign in to manage your trading automation."
      // A refused sign-in resets the form (its errors too): with JavaScript the toast says why;
      // without it the server-rendered card says it, in the toast's words (issue 23).
      error={form.errors?.[0] ?? (hydrated ? undefined : (actionData?.toast?.description ?? undefined))}
      errorId={form.errorId}
      footer={
        <>
          No account yet?{" "}
          <Link
            component={RemixLink}
            to={redirectTo ? `/register?redirectTo=${encodeURIComponent(redirectTo)}` : "/register"}
          >
            Create account
          </Link>
        </>
      }
    >
      <Form method="post" action="/login" {...getFormProps(form)}>
        <input type="hidden" name="redirectTo" value={redirectTo} />
        <Field field={fields.username} label="Username" autoComplete="username" autoFocus inputRef={usernameRef} />
        <Field field={fields.password} label="Password" type="password" autoComplete="current-password" />
        <AuthSubmit busy={busy} label="Sign in" busyLabel="Signing in..." />
      </Form>
    </AuthCard>
  );
}
