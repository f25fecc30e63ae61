// GET /api/notifications: the notification settings (no secret, only "saved" / last 4
// characters) and the delivery log (?before=<id>&limit=<n>, newest first). POST: one of the
// screen's operations as JSON ({ intent: "telegram" | "webhook" | "email" | "general" | "test", ... }).
// Admins only (decision 030).
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { NOTIFICATION_FORMS } from "#app/core/schemas/notifications.ts";
import { isNotificationIntent, runNotificationIntent } from "#app/services/notification-actions.server.ts";
import { loadNotificationsPage } from "#app/services/notifications.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";
import { requireAdmin } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdmin(request, context);
  const { firstPage: _first, ...data } = await loadNotificationsPage(context.db, new URL(request.url));
  const log = data.log;
  return json(data, {
    headers: { ...NO_STORE, ...(log.nextBefore ? { "X-Next-Cursor": String(log.nextBefore) } : {}) },
  });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  if (request.method !== "POST")
    return json({ success: false, error: "Method not allowed" }, { status: 405, headers: NO_STORE });
  const body = (await request.json().catch(() => null)) as Record<string, unknown> | null;
  const intent = String(body?.intent ?? "");
  if (!isNotificationIntent(intent))
    return json(
      { success: false, error: "intent must be telegram, webhook, email, general or test" },
      { status: 400, headers: NO_STORE },
    );
  const parsed = NOTIFICATION_FORMS[intent].safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return json(
      { success: false, error: issue?.message ?? "Invalid request", field: issue?.path.join(".") },
      { status: 400, headers: NO_STORE },
    );
  }
  const outcome = await runNotificationIntent(context, user, intent, parsed.data);
  if (!outcome.ok)
    return json(
      { success: false, error: outcome.error, field: outcome.field },
      { status: intent === "test" ? 502 : 400, headers: NO_STORE },
    );
  return json({ success: true, message: outcome.message }, { headers: NO_STORE });
}
