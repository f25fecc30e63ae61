// /profiles: the Profiles screen (docs/spec/screens.md, api.md#validation, api.md#errors). The action serves the three dialogs
// (intent create | transfer | delete) with the same services as /api/profiles*: JSON and a
// toast with JavaScript (`_js=1`), a redirect with a flash toast without; validation errors
// come back with the dialog open and the messages by the fields.
import { parseWithZod } from "@conform-to/zod/v4";
import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, json } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { type DialogKind, type DialogState, ProfilesScreen } from "#app/components/profiles/profiles-screen.tsx";
import { CreateProfileSchema, DeleteProfileSchema, TransferSchema } from "#app/core/schemas/profiles.ts";
import type { Toast } from "#app/core/schemas/toast.ts";
import {
  type ProfileView,
  createProfile,
  deleteProfile,
  listProfileViews,
  transferFunds,
} from "#app/services/profiles.server.ts";
import { requireUser, requirePermission } from "#app/services/sessions.server.ts";
import { redirectWithToast } from "#app/utils/toast.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";

const DIALOGS: DialogKind[] = ["create", "transfer", "delete"];
const FALLBACKS: Record<DialogKind, string> = {
  create: "Failed to create profile",
  transfer: "Failed to complete transfer",
  delete: "Failed to delete profile",
};

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const url = new URL(request.url);
  const kind = url.searchParams.get("dialog") as DialogKind | null;
  const dialog: DialogState | null =
    kind && DIALOGS.includes(kind) ? { kind, profileId: url.searchParams.get("profile") } : null;
  try {
    const { provider, profiles } = await listProfileViews(context.db);
    return json(
      { profiles: profiles as ProfileView[] | null, provider, loadError: null as string | null, dialog },
      { headers: NO_STORE },
    );
  } catch (error) {
    return json(
      { profiles: null, provider: "unknown", loadError: `Profiles unavailable: ${(error as Error).message}`, dialog },
      { headers: NO_STORE },
    );
  }
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requirePermission(request, context, "profiles.manage");
  const formData = await request.formData();
  const wantsJson = formData.get("_js") === "1";
  const intent = String(formData.get("intent") ?? "") as DialogKind;
  if (!DIALOGS.includes(intent)) return json({ error: "Unknown action" }, { status: 400, headers: NO_STORE });
  const fail = (message: string): Toast => ({
    title: "Error",
    description: message || FALLBACKS[intent],
    variant: "destructive",
  });

  let outcome: { ok: true; toast: Toast } | { ok: false; status: number; error: string };
  let reply: (options?: { formErrors?: string[]; resetForm?: boolean }) => unknown;
  if (intent === "create") {
    const submission = parseWithZod(formData, { schema: CreateProfileSchema });
    if (submission.status !== "success")
      return json({ intent, result: submission.reply() }, { status: 400, headers: NO_STORE });
    reply = submission.reply;
    const result = await createProfile(context.db, submission.value.name, user.username);
    outcome = result.ok
      ? { ok: true, toast: { title: "Profile Created", description: `Profile ${result.value.name} has been created` } }
      : result;
  } else if (intent === "transfer") {
    const submission = parseWithZod(formData, { schema: TransferSchema });
    if (submission.status !== "success")
      return json({ intent, result: submission.reply() }, { status: 400, headers: NO_STORE });
    reply = submission.reply;
    const result = await transferFunds(context.db, submission.value, user.username);
    outcome = result.ok
      ? { ok: true, toast: { title: "Transfer Complete", description: result.value.message } }
      : result;
  } else {
    const submission = parseWithZod(formData, { schema: DeleteProfileSchema });
    if (submission.status !== "success")
      return json({ intent, result: submission.reply() }, { status: 400, headers: NO_STORE });
    reply = submission.reply;
    const result = await deleteProfile(
      context.db,
      submission.value.profileId,
      submission.value.toProfileId,
      user.username,
    );
    outcome = result.ok ? { ok: true, toast: { title: "Profile Deleted", description: result.value.message } } : result;
  }

  if (!outcome.ok) {
    return json(
      { intent, result: reply({ formErrors: [outcome.error || FALLBACKS[intent]] }), toast: fail(outcome.error) },
      { status: outcome.status, headers: NO_STORE },
    );
  }
  if (wantsJson)
    return json(
      { intent, result: reply({ resetForm: true }), toast: outcome.toast, done: true },
      { headers: NO_STORE },
    );
  return redirectWithToast(context, "/profiles", outcome.toast, { headers: NO_STORE });
}

export default function Page() {
  const data = useLoaderData<typeof loader>();
  return (
    <ProfilesScreen
      key={data.dialog ? `${data.dialog.kind}-${data.dialog.profileId}` : "none"}
      initial={data.profiles}
      loadError={data.loadError}
      provider={data.provider}
      initialDialog={data.dialog}
    />
  );
}

export const meta: MetaFunction = () => [{ title: "Profiles · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
