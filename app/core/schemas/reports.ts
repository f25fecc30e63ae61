// The Generate Report form and POST /api/reports (docs/spec/api.md#shapes Report, api.md#validation): type and format
// required, the other fields optional strings, checked further here (dates, their order,
// a four-digit year) so the worker never starts on a request it cannot build.
import { z } from "zod";

export const REPORT_TYPES = ["fills", "balance", "account", "otc_fills"] as const;
export const REPORT_FORMATS = ["csv", "pdf"] as const;
export const REPORT_STATUSES = ["pending", "creating", "ready", "failed"] as const;

/** How often the worker tries a report before it is failed (Coinbase builds its own slowly). */
export const REPORT_JOB_ATTEMPTS = 6;

export const REPORT_TYPE_LABELS: Record<(typeof REPORT_TYPES)[number], string> = {
  fills: "Fills",
  balance: "Balance",
  account: "Account",
  otc_fills: "OTC Fills",
};

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

/** "2026-11-20" (a whole UTC day) or an ISO date-time; null when it is neither. */
export function parseReportDate(value: string, edge: "start" | "end"): number | null {
  const text = value.trim();
  if (DATE_RE.test(text)) {
    const at = Date.parse(`${text}T00:00:00.000Z`);
    if (!Number.isFinite(at) || new Date(at).toISOString().slice(0, 10) !== text) return null;
    return edge === "end" ? at + 86_400_000 : at; // an end date includes its whole day
  }
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text)) return null;
  const at = Date.parse(text);
  return Number.isFinite(at) ? at : null;
}

const optionalText = (max: number, label: string) =>
  z
    .string()
    .trim()
    .max(max, `${label} must be at most ${max} characters`)
    .optional()
    .transform((v) => (v ? v : undefined));

export const ReportFormSchema = z
  .object({
    type: z.enum(REPORT_TYPES, { error: "Report type is required" }),
    format: z.enum(REPORT_FORMATS, { error: "Format is required" }),
    startDate: optionalText(40, "Start date"),
    endDate: optionalText(40, "End date"),
    profileId: optionalText(100, "Profile"),
    productId: optionalText(64, "Product"),
    year: optionalText(4, "Year"),
  })
  .superRefine((v, ctx) => {
    const start = v.startDate ? parseReportDate(v.startDate, "start") : undefined;
    const end = v.endDate ? parseReportDate(v.endDate, "end") : undefined;
    if (start === null)
      ctx.addIssue({ code: "custom", path: ["startDate"], message: "Start date must be a date (YYYY-MM-DD)" });
    if (end === null)
      ctx.addIssue({ code: "custom", path: ["endDate"], message: "End date must be a date (YYYY-MM-DD)" });
    if (typeof start === "number" && typeof end === "number" && start >= end) {
      ctx.addIssue({ code: "custom", path: ["endDate"], message: "End date must be on or after the start date" });
    }
    if (v.year !== undefined && !/^\d{4}$/.test(v.year))
      ctx.addIssue({ code: "custom", path: ["year"], message: "Year must have four digits" });
  });

export type ReportForm = z.infer<typeof ReportFormSchema>;

/** The API body (JSON) as the schema expects it: strings, blanks and nulls dropped. */
export function reportFormFromBody(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ["type", "format", "startDate", "endDate", "profileId", "productId", "year"]) {
    const value = body[key];
    if (value === null || value === undefined || value === "") continue;
    out[key] = typeof value === "number" ? String(value) : value;
  }
  return out;
}
