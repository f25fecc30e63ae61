// Payload contracts of the worker's tasks: each task parses its payload first.
import { z } from "zod";
import { CHANNELS } from "../notifications/events.ts";

export const ExecuteSignalPayload = z.object({ signalId: z.string().min(1) });
export const PlaceOrderPayload = z.object({ tradeId: z.string().min(1) });

/**
 * close-position: a reduce-only market order for min(quantity, what remains less the closes
 * already pending) of one position. `quantity` is a decimal or "all"; `source` says who asked
 * (the rules monitor or a person); `trigger` names the rule ("tp1", "sl", "trail").
 */
export const ClosePositionPayload = z.object({
  positionId: z.string().min(1),
  quantity: z.union([z.literal("all"), z.string().regex(/^\d+(\.\d+)?$/, 'quantity must be a decimal or "all"')]),
  reason: z.string().min(1).max(200),
  source: z.enum(["rule", "manual"]),
  trigger: z.string().max(32).optional(),
  requestedBy: z.string().max(100).optional(),
});
export type ClosePositionJob = z.infer<typeof ClosePositionPayload>;

/** cancel-order: cancels a resting order on the exchange and books what it became. */
export const CancelOrderPayload = z.object({ tradeId: z.string().min(1), requestedBy: z.string().max(100) });

/**
 * resolve-drift: a person resolves a drift alarm. adopt: the app books the fill that makes
 * its position equal the exchange's as it is now; close: adopt, then close that position at
 * market on the exchange.
 */
export const DRIFT_ACTIONS = ["adopt", "close"] as const;
export const ResolveDriftPayload = z.object({
  driftId: z.string().min(1),
  action: z.enum(DRIFT_ACTIONS),
  requestedBy: z.string().max(100),
});

/** generate-report: builds (or fetches from Coinbase) the file of one reports row. */
export const GenerateReportPayload = z.object({ reportId: z.string().min(1) });

/** send-notification: one notification on one channel (decision 030); its own queue, never ahead of orders. */
export const SendNotificationPayload = z.object({ notificationId: z.string().min(1), channel: z.enum(CHANNELS) });

export const TASK_PAYLOADS = {
  "execute-signal": ExecuteSignalPayload,
  "place-order": PlaceOrderPayload,
  "close-position": ClosePositionPayload,
  "cancel-order": CancelOrderPayload,
  "generate-report": GenerateReportPayload,
  "resolve-drift": ResolveDriftPayload,
  "send-notification": SendNotificationPayload,
} as const;
export type TaskName = keyof typeof TASK_PAYLOADS;

/** Closes protect money: they are claimed before signals and manual orders. */
export const CLOSE_JOB_PRIORITY = 10;
