// generate-report: produces the file of one reports row and moves its status
// pending -> creating -> ready | failed (docs/spec/screens.md#states).
// - Local (no Coinbase Exchange key with a passphrase): the file is built from the account's
//   own data (reports/build.ts) and stored with the row in one statement.
// - Remote (getRemoteReportsProvider): the report is created at Coinbase once (its id kept on
//   the row, so a retried job polls the same report instead of creating a second), polled
//   until ready, and its file downloaded and stored. Coinbase being busy or unreachable
//   retries the job with back-off; the last attempt, or any refusal, marks the report failed.
// Every outcome is an activity-log line, whose live event refreshes the Reports screen.
import type { z } from "zod";
import type {
  RemoteReport,
  RemoteReportsProvider,
  ReportFormat,
  ReportRequest,
  ReportType,
} from "../../app/core/exchange/accounts.ts";
import { TemporaryError, isRetryable } from "../../app/core/exchange/errors.ts";
import { CONTENT_TYPES, buildReport, reportFileName } from "#reports/build.ts";
import type { GenerateReportPayload } from "../../app/core/schemas/job-payloads.ts";
import { REPORT_JOB_ATTEMPTS, REPORT_TYPE_LABELS } from "../../app/core/schemas/reports.ts";
import { getRemoteReportsProvider } from "#exchange/factory.ts";
import { recordActivity } from "../../db/queries/activity-logs.ts";
import { type ReportRecord, getReport, storeReportFile, updateReportStatus } from "../../db/queries/reports.ts";
import type { Db } from "../../db/queries/util.ts";
import { PermanentFailure } from "../execution.ts";
import type { TaskContext } from "./index.ts";

/** Local and downloaded files are kept this long (Coinbase's own links expire within days). */
export const REPORT_TTL_MS = 7 * 24 * 3600_000;
/** How long one job run polls a remote report before handing back to the queue's back-off. */
export const REMOTE_POLL_MS = 120_000;
export const REMOTE_POLL_INTERVAL_MS = 2_000;

export interface GenerateReportOptions {
  remote?: RemoteReportsProvider | null;
  pollMs?: number;
  pollIntervalMs?: number;
}

const label = (r: Pick<ReportRecord, "type" | "format">) =>
  `${REPORT_TYPE_LABELS[r.type as ReportType] ?? r.type} report (${r.format.toUpperCase()})`;

export function reportRequestOf(r: ReportRecord): ReportRequest {
  return {
    type: r.type as ReportType,
    format: r.format as ReportFormat,
    startDate: r.startDate,
    endDate: r.endDate,
    profileId: r.profileId,
    productId: r.productId,
    year: r.year,
  };
}

async function fail(db: Db, report: ReportRecord, reason: string): Promise<"failed"> {
  await db.transaction().execute(async (trx) => {
    const moved = await updateReportStatus(trx, report.id, "failed", {
      from: ["pending", "creating"],
      errorMessage: reason.slice(0, 2000),
    });
    if (moved)
      await recordActivity(trx, {
        type: "system",
        level: "warning",
        message: `${label(report)} failed: ${reason}`,
        data: { reportId: report.id },
      });
  });
  return "failed";
}

async function ready(
  db: Db,
  report: ReportRecord,
  file: { data: Uint8Array; fileName: string; contentType: string; expiresAt: number },
): Promise<"ready"> {
  await db.transaction().execute(async (trx) => {
    const stored = await storeReportFile(trx, report.id, file);
    if (stored) {
      await recordActivity(trx, {
        type: "system",
        level: "success",
        message: `${label(report)} ready: ${file.fileName}`,
        data: { reportId: report.id, size: file.data.byteLength },
      });
    }
  });
  return "ready";
}

export async function generateReport(
  ctx: TaskContext,
  payload: z.infer<typeof GenerateReportPayload>,
  options: GenerateReportOptions = {},
) {
  const report = await getReport(ctx.db, payload.reportId);
  if (!report) throw new PermanentFailure(`Report ${payload.reportId} not found`);
  if (report.status === "ready" || report.status === "failed") return report.status;

  const remote = options.remote !== undefined ? options.remote : await getRemoteReportsProvider(ctx.db);
  if (remote) return generateRemote(ctx, report, remote, options);

  try {
    await updateReportStatus(ctx.db, report.id, "creating", { from: ["pending"] });
    let built;
    try {
      built = await buildReport(ctx.db, reportRequestOf(report), report.id);
    } catch (error) {
      // The data is ours: what fails here fails again, so the report says why at once.
      return await fail(ctx.db, report, (error as Error).message || "Generation failed");
    }
    return await ready(ctx.db, report, { ...built, expiresAt: Date.now() + REPORT_TTL_MS });
  } catch (error) {
    // Storing failed (database busy or down): retry; the last attempt leaves the reason.
    if (ctx.attempt < REPORT_JOB_ATTEMPTS) throw error;
    return fail(ctx.db, report, `Generation failed: ${(error as Error).message}`);
  }
}

async function generateRemote(
  ctx: TaskContext,
  report: ReportRecord,
  remote: RemoteReportsProvider,
  options: GenerateReportOptions,
) {
  const pollMs = options.pollMs ?? REMOTE_POLL_MS;
  const interval = options.pollIntervalMs ?? REMOTE_POLL_INTERVAL_MS;
  try {
    let remoteId = report.reportId;
    let state: RemoteReport;
    if (!remoteId) {
      state = await remote.createReport(reportRequestOf(report));
      remoteId = state.id;
      await updateReportStatus(ctx.db, report.id, state.status === "pending" ? "pending" : "creating", {
        from: ["pending", "creating"],
        reportId: remoteId,
      });
    } else {
      state = await remote.getReport(remoteId);
    }
    const deadline = Date.now() + pollMs;
    while (state.status === "pending" || state.status === "creating") {
      if (state.status === "creating") await updateReportStatus(ctx.db, report.id, "creating", { from: ["pending"] });
      if (Date.now() >= deadline) {
        if (ctx.attempt >= REPORT_JOB_ATTEMPTS)
          return fail(ctx.db, report, "Coinbase did not finish the report in time");
        throw new TemporaryError(`Coinbase is still creating report ${remoteId}`); // retried with back-off
      }
      await new Promise((resolve) => setTimeout(resolve, interval));
      state = await remote.getReport(remoteId);
    }
    if (state.status === "failed") return fail(ctx.db, report, "Coinbase could not generate the report");
    if (!state.fileUrl) return fail(ctx.db, report, "Coinbase reported the report ready without a file");
    await updateReportStatus(ctx.db, report.id, "creating", {
      from: ["pending", "creating"],
      remoteFileUrl: state.fileUrl,
    });
    const data = await remote.downloadReport(state.fileUrl);
    const expires = state.expiresAt ? Date.parse(state.expiresAt) : NaN;
    return ready(ctx.db, report, {
      data,
      fileName: reportFileName(report.type, report.format, report.id),
      contentType: CONTENT_TYPES[report.format as ReportFormat] ?? "application/octet-stream",
      expiresAt: Number.isFinite(expires) ? Math.min(expires, Date.now() + REPORT_TTL_MS) : Date.now() + REPORT_TTL_MS,
    });
  } catch (error) {
    const message = (error as Error).message || String(error);
    if (isRetryable(error) && ctx.attempt < REPORT_JOB_ATTEMPTS) throw error;
    return fail(ctx.db, report, message);
  }
}
