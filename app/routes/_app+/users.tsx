// /users: the Users screen (issue 10, admin only). Its action takes the screen's plain form
// posts (intent invite | revoke | update | delete | settings), does what /api/invites,
// /api/users and /api/security-settings do, and redirects back with a toast (no JavaScript
// needed). intent reset-password answers the page with a one-time reset link for another
// account, shown this once (a redirect would lose it; decision 041).
import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, json } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { UsersScreen } from "#app/components/users/users-screen.tsx";
import { InviteCreateSchema, UserUpdateSchema } from "#app/core/schemas/users.ts";
import {
  createInviteBy,
  deleteUserBy,
  getSecuritySettings,
  listInvites,
  listUsers,
  revokeInviteBy,
  updateSecuritySettings,
  updateUserBy,
} from "#app/services/users.server.ts";
import { createPasswordResetLink } from "#app/services/passwords.server.ts";
import { NO_STORE, publicOrigin } from "#app/utils/api.server.ts";
import { requirePermission } from "#app/services/sessions.server.ts";
import { redirectWithToast } from "#app/utils/toast.server.ts";

export const meta: MetaFunction = () => [{ title: "Users · PerpDesk" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const me = await requirePermission(request, context, "users.manage");
  const [users, invites, settings] = await Promise.all([
    listUsers(context.db),
    listInvites(context.db, publicOrigin(request, context)),
    getSecuritySettings(context.db),
  ]);
  const confirmDeleteId = new URL(request.url).searchParams.get("delete");
  return json({ users, invites, settings, meId: me.id, confirmDeleteId }, { headers: NO_STORE });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const me = await requirePermission(request, context, "users.manage");
  // A body that is not a form (JSON, broken multipart) is an unknown action (400), not a 500.
  const form = Object.fromEntries(await request.formData().catch(() => new FormData()));
  const done = (title: string, description: string) => redirectWithToast(context, "/users", { title, description });
  const failed = (description: string) =>
    redirectWithToast(context, "/users", { title: "Change refused", description, variant: "destructive" });
  switch (form.intent) {
    case "invite": {
      const parsed = InviteCreateSchema.safeParse(form);
      if (!parsed.success) return failed(parsed.error.issues[0]!.message);
      await createInviteBy(context.db, me, parsed.data.role, publicOrigin(request, context));
      return done(
        "Invitation created",
        `A ${parsed.data.role} invite link is ready: copy it below and send it to the person.`,
      );
    }
    case "revoke": {
      const outcome = await revokeInviteBy(context.db, me, String(form.code ?? ""));
      return outcome.ok ? done("Invitation revoked", "The link no longer works.") : failed(outcome.error);
    }
    case "update": {
      const parsed = UserUpdateSchema.safeParse({
        role: form.role,
        disabled: form.disabled,
        twoFactor: form.twoFactor,
      });
      if (!parsed.success) return failed(parsed.error.issues[0]!.message);
      const outcome = await updateUserBy(context.db, me, String(form.id ?? ""), parsed.data);
      if (!outcome.ok) return failed(outcome.error);
      if (parsed.data.twoFactor === false) {
        return done(
          "Two-factor authentication reset",
          `${outcome.value.username} signs in with the password only until they set it up again.`,
        );
      }
      return done(
        "User updated",
        `${outcome.value.username}: ${outcome.value.role}${outcome.value.disabled ? ", disabled" : ""}`,
      );
    }
    case "reset-password": {
      const outcome = await createPasswordResetLink(
        context.db,
        me,
        String(form.id ?? ""),
        publicOrigin(request, context),
      );
      if (!outcome.ok) return failed(outcome.error);
      return json({ resetLink: outcome.value }, { headers: NO_STORE });
    }
    case "delete": {
      const outcome = await deleteUserBy(context.db, me, String(form.id ?? ""));
      return outcome.ok ? done("User deleted", "The account and its sessions are gone.") : failed(outcome.error);
    }
    case "settings": {
      const settings = await updateSecuritySettings(context.db, me, {
        registrationOpen: form.registrationOpen === "on",
        requireTwoFactor: form.requireTwoFactor === "on",
      });
      return done(
        "Security settings saved",
        `Registration ${settings.registrationOpen ? "open (viewers)" : "by invitation"}; two-factor ${settings.requireTwoFactor ? "required" : "optional"}.`,
      );
    }
    default:
      return json({ error: "Unknown action" }, { status: 400, headers: NO_STORE });
  }
}

export default function Page() {
  const data = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return <UsersScreen {...data} resetLink={result && "resetLink" in result ? result.resetLink : null} />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
