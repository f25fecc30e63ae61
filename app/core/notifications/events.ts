// Notifications (issue 13, decision 030): the channels and the events each can be switched on for.
export const CHANNELS = ["telegram", "webhook", "email"] as const;
export type Channel = (typeof CHANNELS)[number];
export const CHANNEL_LABELS: Record<Channel, string> = {
  telegram: "Telegram",
  webhook: "Webhook (Discord / Slack)",
  email: "E-mail (SMTP)",
};

export const NOTIFICATION_EVENTS = [
  "order_filled",
  "order_failed",
  "alert_failed",
  "alert_skipped",
  "position_closed",
  "rule_hit",
  "emergency_stop",
  "webhook_rejected",
  "missed_alert",
  "drift",
  "worker_down",
  "daily_summary",
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

export const EVENT_LABELS: Record<NotificationEvent, string> = {
  order_filled: "Order filled",
  order_failed: "Order failed",
  alert_failed: "Alert failed or refused (with the reason)",
  alert_skipped: "Alert skipped (too old, emergency stop, owner conflict, order in flight)",
  position_closed: "Position closed (with P&L)",
  rule_hit: "Take-profit / stop-loss / trailing hit",
  emergency_stop: "Emergency stop on / off",
  webhook_rejected: "Webhook rejected (aggregated)",
  missed_alert: "Missed alert (heartbeat)",
  drift: "Reconciliation drift",
  worker_down: "Worker down",
  daily_summary: "Daily summary",
};

/** Kinds of notification that are not events one switches: a test message, a digest of a flood. */
export type NotificationKind = NotificationEvent | "test" | "digest";

/**
 * Every event on for a new channel, except the chatty ones. The alert kinds (issue 25,
 * decision 046) were also switched on for the channels saved before they existed (migration
 * 2026_11_27_0500_alert_accounting).
 */
export const DEFAULT_EVENTS: NotificationEvent[] = NOTIFICATION_EVENTS.filter((e) => e !== "order_filled");

export const DELIVERY_STATUSES = ["queued", "sending", "sent", "retrying", "failed", "digested"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Global notification settings (the `notifications_config` setting). */
export interface NotificationsConfig {
  /** At most this many messages per minute per channel; beyond it one digest when the window reopens. */
  rateLimitPerMinute: number;
  /** UTC "HH:MM" of the daily summary. */
  dailySummaryTime: string;
  /**
   * Webhook and SMTP destinations on loopback, private, link-local or metadata addresses are
   * refused unless this is on (a self-hosted mail server on the LAN; docs/security.md).
   */
  allowPrivateDestinations: boolean;
}
export const DEFAULT_NOTIFICATIONS_CONFIG: NotificationsConfig = {
  rateLimitPerMinute: 20,
  dailySummaryTime: "20:00",
  allowPrivateDestinations: false,
};

/** The secret fields of each channel (encrypted at rest, never shown back). */
export const CHANNEL_SECRETS: Record<Channel, readonly string[]> = {
  telegram: ["botToken"],
  webhook: ["url", "signingSecret"],
  email: ["password"],
};

export interface TelegramSettings {
  chatId: string;
}
export interface WebhookSettings {
  /** The URL is a secret (a Discord/Slack incoming-webhook URL is a credential): only its host is kept in clear. */
  host: string;
}
export interface EmailSettings {
  host: string;
  port: number;
  secure: boolean;
  user: string;
  from: string;
  to: string;
}

export interface ChannelSecrets {
  botToken?: string;
  url?: string;
  signingSecret?: string;
  password?: string;
}

/** "…ab12": the last 4 characters of a secret at most (nothing of one shorter than 12). */
export function secretHint(value: string): string {
  return value.length >= 12 ? `…${value.slice(-4)}` : "saved";
}
