// /notifications: notification channels, events, rate limit, daily summary and the delivery
// log (issue 13, decision 030). Admins only, in the loader AND the action. Every form is a
// plain post (works without JavaScript), validated by Conform with the shared Zod schemas on
// both sides; the answer is a redirect with a flash toast, or the page with the errors.
import {
  type ActionFunctionArgs,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
  json,
} from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { NotificationsScreen } from "#app/components/notifications/notifications-screen.tsx";
import { handleNotificationForm } from "#app/services/notification-actions.server.ts";
import { loadNotificationsPage } from "#app/services/notifications.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";
import { requireAdmin } from "#app/services/sessions.server.ts";
import { redirectWithToast } from "#app/utils/toast.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdmin(request, context);
  return json(await loadNotificationsPage(context.db, new URL(request.url), 25), { headers: NO_STORE });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  const { intent, submission, outcome } = await handleNotificationForm(context, user, await request.formData());
  if (!outcome) return json({ intent, result: submission!.reply() }, { status: 400, headers: NO_STORE });
  if (!outcome.ok) {
    const result = submission?.reply({
      formErrors: [outcome.error],
      ...(outcome.field ? { fieldErrors: { [outcome.field]: [outcome.error] } } : {}),
    });
    if (intent === "test")
      return redirectWithToast(
        context,
        "/notifications",
        { title: "Test message failed", description: outcome.error, variant: "destructive" },
        { headers: NO_STORE },
      );
    return json({ intent, result, error: outcome.error }, { status: 400, headers: NO_STORE });
  }
  return redirectWithToast(
    context,
    "/notifications",
    { title: intent === "test" ? "Test message sent" : "Saved", description: outcome.message },
    { headers: NO_STORE },
  );
}

export const headers: HeadersFunction = () => NO_STORE;

export default function Page() {
  const data = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  return <NotificationsScreen data={data} actionData={actionData && "intent" in actionData ? actionData : undefined} />;
}

export const meta: MetaFunction = () => [{ title: "Notifications · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
