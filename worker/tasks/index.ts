// The task registry: task identifier → payload schema + executor.
import type { z } from "zod";
import { TASK_PAYLOADS, type TaskName } from "../../app/core/schemas/job-payloads.ts";
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

export function isTaskName(name: string): name is TaskName {
  return name in TASKS;
}
