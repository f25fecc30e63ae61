// POST /api/drifts/{id}/resolve and the Positions page's drift form: one contract.
import { z } from "zod";
import { DRIFT_ACTIONS } from "./job-payloads.ts";

export const DriftResolveSchema = z.object({
  action: z.enum(DRIFT_ACTIONS, { error: "action must be adopt or close" }),
});
export type DriftAction = (typeof DRIFT_ACTIONS)[number];
