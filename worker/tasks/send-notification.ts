// send-notification (decision 030): one notification on one channel. Its own queue (the
// worker's notification runner), so a slow channel never holds an order job's slot.
//
// Delivery is at-least-once with a narrow window: the attempt is recorded (`sending`) before
// the channel is asked and `sent` right after it accepted. A retried job (the channel failed,
// or the worker died) finds a `sent` delivery and sends nothing; only a worker dying between
// the channel's "accepted" and that write can repeat a message. The rate limit is decided
// under the channel's lock in the same step (db/queries/notifications.ts reserveDelivery).
import type { z } from "zod";
import { loadConfig } from "../../app/core/env.ts";
import { digestText } from "../../app/core/notifications/format.ts";
import type { SendNotificationPayload } from "../../app/core/schemas/job-payloads.ts";
import { type ChannelConfig, SendError, secretValues, sendOnChannel } from "../../app/core/notifications/channels.ts";
import { PermanentFailure } from "../execution.ts";
import {
  NOTIFICATION_MAX_ATTEMPTS,
  RATE_WINDOW_MS,
  getNotificationsConfig,
  loadChannelConfigs,
  markDeliveryFailed,
  markDeliverySent,
  reserveDelivery,
} from "../../db/queries/notifications.ts";
import type { TaskContext } from "./index.ts";

/** The APP_SECRET the channel secrets are encrypted with. */
const appSecret = () => loadConfig().appSecret;

export async function sendNotification(
  ctx: TaskContext,
  payload: z.infer<typeof SendNotificationPayload>,
): Promise<string> {
  const { notificationId, channel } = payload;
  let configs: ChannelConfig[];
  try {
    configs = await loadChannelConfigs(ctx.db, appSecret());
  } catch {
    const reason = "Saved notification secrets cannot be decrypted (APP_SECRET changed): enter them again";
    await markDeliveryFailed(ctx.db, notificationId, channel, reason, true);
    throw new PermanentFailure(reason);
  }
  const config = configs.find((c) => c.channel === channel);
  if (!config?.enabled) {
    await markDeliveryFailed(ctx.db, notificationId, channel, `The ${channel} channel is switched off`, true);
    return "disabled";
  }
  const { rateLimitPerMinute } = await getNotificationsConfig(ctx.db);
  const reservation = await reserveDelivery(ctx.db, notificationId, channel, rateLimitPerMinute);
  if (reservation.action !== "send") return reservation.action;

  let { title, body } = reservation.notification;
  if (reservation.notification.kind === "digest") {
    if (reservation.digestItems.length === 0) {
      await markDeliverySent(ctx.db, notificationId, channel); // nothing was folded into it: nothing to say
      return "empty-digest";
    }
    ({ title, body } = digestText(reservation.digestItems, RATE_WINDOW_MS / 1000));
  }
  try {
    await sendOnChannel(
      config,
      {
        kind: reservation.notification.kind,
        title,
        body,
        createdAt: reservation.notification.createdAt,
        notificationId,
      },
      secretValues(configs),
    );
  } catch (error) {
    const send = error instanceof SendError ? error : new SendError("Sending failed");
    const final = !send.retryable || ctx.attempt >= NOTIFICATION_MAX_ATTEMPTS;
    await markDeliveryFailed(ctx.db, notificationId, channel, send.message, final);
    if (!send.retryable) throw new PermanentFailure(send.message);
    throw send; // the runner retries it with the job table's back-off
  }
  await markDeliverySent(ctx.db, notificationId, channel);
  return "sent";
}
