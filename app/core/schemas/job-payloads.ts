// Payload contracts of the worker's tasks: each task parses its payload first.
import { z } from "zod";

export const ExecuteSignalPayload = z.object({ signalId: z.string().min(1) });
export const PlaceOrderPayload = z.object({ tradeId: z.string().min(1) });

export const TASK_PAYLOADS = {
  "execute-signal": ExecuteSignalPayload,
  "place-order": PlaceOrderPayload,
} as const;
export type TaskName = keyof typeof TASK_PAYLOADS;
