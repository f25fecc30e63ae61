// The task registry: task identifier → payload schema + executor.
import type { z } from "zod";
import type { TASK_PAYLOADS, TaskName } from "../../app/core/schemas/job-payloads.ts";
import { type ExecutionContext, executeTrade } from "../execution.ts";
import { cancelOrder } from "./cancel-order.ts";
import { closePosition } from "./close-position.ts";
import { executeSignal } from "./execute-signal.ts";
import { generateReport } from "./generate-report.ts";
import { resolveDrift } from "./resolve-drift.ts";
import { sendNotification } from "./send-notification.ts";

export type TaskContext = ExecutionContext & { jobId: number };

type Executor<N extends TaskName> = (ctx: TaskContext, payload: z.infer<(typeof TASK_PAYLOADS)[N]>) => Promise<unknown>;

export const TASKS: { [N in TaskName]: Executor<N> } = {
  "execute-signal": executeSignal,
  "place-order": (ctx, payload) => executeTrade(ctx, payload.tradeId),
  "close-position": closePosition,
  "cancel-order": cancelOrder,
  "generate-report": generateReport,
  "resolve-drift": resolveDrift,
  "send-notification": sendNotification,
};

/**
 * How a task's final failure is logged (default "error", which also raises the live "System
 * Alert" on every open page). A notification that could not be delivered is a warning: its
 * delivery log says so, and a chat or mail server being down is not a trading failure.
 */
export const FINAL_FAILURE_LEVEL: Partial<Record<TaskName, "warning">> = { "send-notification": "warning" };

export function isTaskName(name: string): name is TaskName {
  return name in TASKS;
}
