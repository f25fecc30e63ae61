import { z } from "zod";

export const ToastSchema = z.object({
  id: z.string().default(() => Math.random().toString(36).slice(2)),
  title: z.string(),
  description: z.string().optional(),
  variant: z.enum(["default", "destructive"]).default("default"),
});
export type Toast = z.input<typeof ToastSchema>;
