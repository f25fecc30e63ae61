// The Notifications screen's operations, one entry for the page action (form posts) and
// POST /api/notifications (JSON) alike: parse with the form's schema, run, answer.
import { parseWithZod } from "@conform-to/zod/v4";
import type { AppLoadContext } from "@remix-run/node";
import { NOTIFICATION_FORMS, type NotificationFormIntent } from "#app/core/schemas/notifications.ts";
import type { User } from "#db/queries/users.ts";
import {
  type SaveOutcome,
  saveEmail,
  saveGeneral,
  saveTelegram,
  saveWebhook,
  sendTestMessage,
} from "./notifications.server.ts";

export const isNotificationIntent = (intent: string): intent is NotificationFormIntent => intent in NOTIFICATION_FORMS;

/** Runs one form's operation on parsed values. */
export async function runNotificationIntent(
  context: Pick<AppLoadContext, "db" | "config">,
  user: Pick<User, "username">,
  intent: NotificationFormIntent,
  value: unknown,
): Promise<SaveOutcome> {
  const { db, config } = context;
  switch (intent) {
    case "telegram":
      return saveTelegram(db, config.appSecret, user.username, value as never);
    case "webhook":
      return saveWebhook(db, config.appSecret, user.username, value as never);
    case "email":
      return saveEmail(db, config.appSecret, user.username, value as never);
    case "general":
      return saveGeneral(db, user.username, value as never);
    case "test":
      return sendTestMessage(
        db,
        config.appSecret,
        user.username,
        (value as { channel: "telegram" | "webhook" | "email" }).channel,
      );
  }
}

/** A form post: the submission (for Conform's errors) and the outcome. */
export async function handleNotificationForm(
  context: Pick<AppLoadContext, "db" | "config">,
  user: Pick<User, "username">,
  formData: FormData,
) {
  const intent = String(formData.get("intent") ?? "");
  if (!isNotificationIntent(intent))
    return { intent, submission: null, outcome: { ok: false, error: "Unknown action" } as SaveOutcome };
  const submission = parseWithZod(formData, { schema: NOTIFICATION_FORMS[intent] });
  if (submission.status !== "success") return { intent, submission, outcome: null };
  return { intent, submission, outcome: await runNotificationIntent(context, user, intent, submission.value) };
}
