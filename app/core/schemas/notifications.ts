// The Notifications screen's forms (issue 13, decision 030): one schema per form, shared by the
// page action (parseWithZod on the server) and the form (Conform on the client). Secret fields
// left empty keep what is saved; they are never sent back to the browser.
import { z } from "zod";
import { CHANNELS, NOTIFICATION_EVENTS } from "../notifications/events.ts";

const events = z.array(z.enum(NOTIFICATION_EVENTS)).default([]);
const optionalSecret = (max: number, message: string) => z.string().trim().max(max, message).optional();

export const TelegramForm = z.object({
  intent: z.literal("telegram"),
  enabled: z.boolean().default(false),
  chatId: z
    .string({ error: "Chat id is required" })
    .trim()
    .regex(/^-?\d{1,20}$|^@[A-Za-z0-9_]{5,32}$/, "Chat id is a number (e.g. 123456789 or -100123…) or @channelname"),
  botToken: optionalSecret(200, "Bot token is too long").refine(
    (v) => !v || /^\d{3,}:[A-Za-z0-9_-]{20,}$/.test(v),
    "Bot token looks like 123456789:AA… (from @BotFather)",
  ),
  events,
});

export const WebhookForm = z.object({
  intent: z.literal("webhook"),
  enabled: z.boolean().default(false),
  url: optionalSecret(2000, "URL is too long").refine(
    (v) => !v || /^https?:\/\/[^\s]+$/i.test(v),
    "URL must start with https:// (or http://)",
  ),
  signingSecret: optionalSecret(200, "Signing secret is too long"),
  clearSigningSecret: z.boolean().default(false),
  events,
});

export const EmailForm = z.object({
  intent: z.literal("email"),
  enabled: z.boolean().default(false),
  host: z.string({ error: "SMTP host is required" }).trim().min(1, "SMTP host is required").max(255),
  port: z.coerce
    .number({ error: "Port must be a number" })
    .int("Port must be a whole number")
    .min(1, "Port is 1 to 65535")
    .max(65535, "Port is 1 to 65535"),
  secure: z.boolean().default(false),
  user: z.string().trim().max(255).optional(),
  password: optionalSecret(500, "Password is too long"),
  from: z.string({ error: "From address is required" }).trim().email("From must be an e-mail address"),
  to: z.string({ error: "To address is required" }).trim().email("To must be an e-mail address"),
  events,
});

export const GeneralForm = z.object({
  intent: z.literal("general"),
  rateLimitPerMinute: z.coerce
    .number({ error: "Rate limit must be a number" })
    .int("Rate limit must be a whole number")
    .min(1, "At least 1 message per minute")
    .max(600, "At most 600 messages per minute"),
  dailySummaryTime: z
    .string({ error: "Time is required" })
    .trim()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, "Time is HH:MM (UTC), e.g. 20:00"),
  // The screen sends "off" (a hidden field) then "on" when ticked; JSON may send a boolean.
  // Absent: unchanged (docs/security.md, "Outgoing notifications").
  allowPrivateDestinations: z
    .preprocess(
      (v) => (Array.isArray(v) ? v[v.length - 1] : v),
      z.union([z.boolean(), z.enum(["on", "off", "true", "false"])]),
    )
    .transform((v) => v === true || v === "on" || v === "true")
    .optional(),
});

export const TestForm = z.object({ intent: z.literal("test"), channel: z.enum(CHANNELS) });

export const NOTIFICATION_FORMS = {
  telegram: TelegramForm,
  webhook: WebhookForm,
  email: EmailForm,
  general: GeneralForm,
  test: TestForm,
} as const;
export type NotificationFormIntent = keyof typeof NOTIFICATION_FORMS;
export type TelegramFormValue = z.infer<typeof TelegramForm>;
export type WebhookFormValue = z.infer<typeof WebhookForm>;
export type EmailFormValue = z.infer<typeof EmailForm>;
export type GeneralFormValue = z.infer<typeof GeneralForm>;
