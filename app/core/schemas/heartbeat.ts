// The heartbeat expectation of a strategy (issue 12), one schema for the API and the form.
import { z } from "zod";

export const HEARTBEAT_MIN_SECONDS = 60;
export const HEARTBEAT_MAX_SECONDS = 7 * 86_400;

export const HeartbeatExpectationSchema = z.object({
  intervalSeconds: z.coerce
    .number({ error: "Interval must be a number of seconds" })
    .int({ message: "Interval must be a whole number of seconds" })
    .min(HEARTBEAT_MIN_SECONDS, { message: `Interval must be at least ${HEARTBEAT_MIN_SECONDS} seconds` })
    .max(HEARTBEAT_MAX_SECONDS, { message: "Interval must be at most 7 days" }),
  graceSeconds: z.preprocess(
    (v) => (v === "" || v === undefined ? null : v),
    z.coerce
      .number({ error: "Grace must be a number of seconds" })
      .int({ message: "Grace must be a whole number of seconds" })
      .min(0, { message: "Grace cannot be negative" })
      .max(86_400, { message: "Grace must be at most 1 day" })
      .nullable(),
  ),
});
