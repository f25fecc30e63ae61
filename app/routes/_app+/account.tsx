// /account: the signed-in user's own account and two-factor authentication (issue 10).
// Intents: start | cancel (enrolment), confirm (turns 2FA on, answers the recovery codes
// once), renew (new recovery codes), disable, password (change the own password: the
// current one required, the others sessions end; decision 041). start, cancel, disable and
// password redirect with a toast; confirm and renew answer the page with the codes (a
// redirect would lose them).
import type { SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
  json,
} from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { AccountScreen } from "#app/components/account/account-screen.tsx";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { ChangePasswordSchema, TwoFactorCodeSchema } from "#app/core/schemas/auth.ts";
import { changeOwnPassword } from "#app/services/passwords.server.ts";
import { readSessionToken } from "#app/utils/session.server.ts";
import {
  beginEnrolment,
  cancelEnrolment,
  confirmEnrolment,
  disableTwoFactor,
  isTwoFactorRequired,
  pendingEnrolment,
  recoveryCodesLeft,
  renewRecoveryCodes,
} from "#app/services/two-factor.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";
import { redirectWithToast } from "#app/utils/toast.server.ts";

export const meta: MetaFunction = () => [{ title: "Account · PerpDesk" }];

// A throttled password change (429) says when to try again, also to a browser without JavaScript.
export const headers: HeadersFunction = ({ actionHeaders }) => {
  const out = new Headers({ "Cache-Control": "no-store" });
  const retryAfter = actionHeaders.get("Retry-After");
  if (retryAfter) out.set("Retry-After", retryAfter);
  return out;
};

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const [enrolment, left, required] = await Promise.all([
    user.twoFactorEnabled ? null : pendingEnrolment(context.db, context.config.appSecret, user),
    user.twoFactorEnabled ? recoveryCodesLeft(context.db, user.id) : 0,
    isTwoFactorRequired(context.db),
  ]);
  return json(
    {
      user: { username: user.username, role: user.role, twoFactorEnabled: user.twoFactorEnabled },
      enrolment,
      recoveryCodesLeft: left,
      required,
    },
    { headers: NO_STORE },
  );
}

type ActionResult = { intent: string; error?: string; recoveryCodes?: string[]; result?: SubmissionResult<string[]> };

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireUser(request, context);
  // A body that is not a form (JSON, XML, broken multipart) is an unknown action, not a 500.
  const form = await request.formData().catch(() => new FormData());
  const intent = String(form.get("intent") ?? "");
  const { db, config, clientIp } = context;
  const refused = (error: string, status = 400) => json<ActionResult>({ intent, error }, { status, headers: NO_STORE });
  const code = () => TwoFactorCodeSchema.safeParse(String(form.get("code") ?? ""));

  switch (intent) {
    case "password": {
      // Conform's reply carries the field errors back (also without JavaScript); passwords are never sent back.
      const submission = parseWithZod(form, { schema: ChangePasswordSchema });
      const hideFields = ["currentPassword", "newPassword", "confirmPassword"];
      if (submission.status !== "success")
        return json<ActionResult>(
          { intent, result: submission.reply({ hideFields }) },
          { status: 400, headers: NO_STORE },
        );
      const outcome = await changeOwnPassword(db, {
        user,
        currentPassword: submission.value.currentPassword,
        newPassword: submission.value.newPassword,
        keepSessionToken: await readSessionToken(request, context),
        ip: clientIp,
      });
      if (!outcome.ok) {
        const headers = new Headers(NO_STORE);
        const wait = outcome.error.match(/in (\d+) seconds/)?.[1];
        if (outcome.status === 429 && wait) headers.set("Retry-After", wait);
        return json<ActionResult>(
          {
            intent,
            error: outcome.error,
            result: submission.reply({
              fieldErrors: { [outcome.field ?? "currentPassword"]: [outcome.error] },
              hideFields,
            }),
          },
          { status: outcome.status, headers },
        );
      }
      const ended = outcome.value.sessionsEnded;
      return redirectWithToast(context, "/account", {
        title: "Password changed",
        description:
          ended > 0
            ? `Your ${ended} other session${ended === 1 ? " was" : "s were"} signed out; this one stays signed in.`
            : "This session stays signed in; no other session was open.",
      });
    }
    case "start": {
      if (!(await beginEnrolment(db, config.appSecret, user)))
        return refused("Two-factor authentication is already on", 409);
      return redirectWithToast(context, "/account", {
        title: "Scan the QR code",
        description: "Then enter the code your app shows to turn two-factor authentication on.",
      });
    }
    case "cancel": {
      await cancelEnrolment(db, user);
      return redirectWithToast(context, "/account", {
        title: "Setup cancelled",
        description: "Two-factor authentication stays off.",
      });
    }
    case "confirm":
    case "renew":
    case "disable": {
      const parsed = code();
      if (!parsed.success) return refused(parsed.error.issues[0]!.message);
      if (intent === "disable") {
        const outcome = await disableTwoFactor(db, config.appSecret, user, parsed.data, clientIp);
        if (!outcome.ok) return refused(outcome.error, outcome.status);
        return redirectWithToast(context, "/account", {
          title: "Two-factor authentication is off",
          description: "Signing in asks for your password only.",
        });
      }
      const outcome =
        intent === "confirm"
          ? await confirmEnrolment(db, config.appSecret, user, parsed.data, clientIp)
          : await renewRecoveryCodes(db, config.appSecret, user, parsed.data, clientIp);
      if (!outcome.ok) return refused(outcome.error, outcome.status);
      return json<ActionResult>({ intent, recoveryCodes: outcome.recoveryCodes }, { headers: NO_STORE });
    }
    default:
      return refused("Unknown action");
  }
}

export default function Page() {
  const data = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() ?? null;
  return <AccountScreen {...data} result={result} />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
