// /account: the signed-in user's own account and two-factor authentication (issue 10).
// Intents: start | cancel (enrolment), confirm (turns 2FA on, answers the recovery codes
// once), renew (new recovery codes), disable. start, cancel and disable redirect with a
// toast; confirm and renew answer the page with the codes (a redirect would lose them).
import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, json } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { AccountScreen } from "#app/components/account/account-screen.tsx";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { TwoFactorCodeSchema } from "#app/core/schemas/auth.ts";
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

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const [enrolment, left, required] = await Promise.all([
    user.twoFactorEnabled ? null : pendingEnrolment(context.db, context.config.appSecret, user),
    user.twoFactorEnabled ? recoveryCodesLeft(context.db, user.id) : 0,
    isTwoFactorRequired(context.db),
  ]);
  return json(
    { user: { username: user.username, role: user.role, twoFactorEnabled: user.twoFactorEnabled }, enrolment, recoveryCodesLeft: left, required },
    { headers: NO_STORE },
  );
}

type ActionResult = { intent: string; error?: string; recoveryCodes?: string[] };

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireUser(request, context);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const { db, config, clientIp } = context;
  const refused = (error: string, status = 400) => json<ActionResult>({ intent, error }, { status, headers: NO_STORE });
  const code = () => TwoFactorCodeSchema.safeParse(String(form.get("code") ?? ""));

  switch (intent) {
    case "start": {
      if (!(await beginEnrolment(db, config.appSecret, user))) return refused("Two-factor authentication is already on", 409);
      return redirectWithToast(context, "/account", { title: "Scan the QR code", description: "Then enter the code your app shows to turn two-factor authentication on." });
    }
    case "cancel": {
      await cancelEnrolment(db, user);
      return redirectWithToast(context, "/account", { title: "Setup cancelled", description: "Two-factor authentication stays off." });
    }
    case "confirm":
    case "renew":
    case "disable": {
      const parsed = code();
      if (!parsed.success) return refused(parsed.error.issues[0]!.message);
      if (intent === "disable") {
        const outcome = await disableTwoFactor(db, config.appSecret, user, parsed.data, clientIp);
        if (!outcome.ok) return refused(outcome.error, outcome.status);
        return redirectWithToast(context, "/account", { title: "Two-factor authentication is off", description: "Signing in asks for your password only." });
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
