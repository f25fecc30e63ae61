// Reports (docs/spec/screens.md Reports, api.md#shapes Report, screens.md#states, api.md): a request becomes a reports row and a
// generate-report job in ONE transaction; the worker (worker/tasks/generate-report.ts) builds
// the file, or has Coinbase build it when a key with a passphrase is configured, and moves the
// status pending -> creating -> ready | failed. Download serves the stored file.
import type { Kysely } from "kysely";
import { SIMULATOR_NAME } from "#exchange/simulator/adapter.ts";
import type { ReportForm } from "#app/core/schemas/reports.ts";
import { REPORT_JOB_ATTEMPTS, REPORT_TYPE_LABELS } from "#app/core/schemas/reports.ts";
import { recordActivity } from "#db/queries/activity-logs.ts";
import { enqueueJob } from "#db/queries/jobs.ts";
import { listProfileRecords } from "#db/queries/profiles.ts";
import {
  type ReportRecord,
  getReport,
  getReportFile,
  insertReport,
  listReports,
  pruneExpiredReportFiles,
} from "#db/queries/reports.ts";
import { newId } from "#db/queries/util.ts";
import type { DB } from "#db/schema.ts";
import { getRemoteReportsProvider } from "#exchange/factory.ts";

type Db = Kysely<DB>;

/** What the API and the screen show: the record without the provider's own file address. */
export type ReportView = Omit<ReportRecord, "remoteFileUrl" | "userId">;

export const toReportView = ({ remoteFileUrl: _remote, userId: _user, ...view }: ReportRecord): ReportView => view;

export type Outcome<T> = { ok: true; value: T } | { ok: false; status: number; error: string; field?: string };

export async function listReportViews(
  db: Db,
  filters: { type?: string; status?: string; limit?: number } = {},
): Promise<ReportView[]> {
  return (await listReports(db, filters)).map(toReportView);
}

/** Stores the request and queues its job (one transaction). */
export async function requestReport(
  db: Db,
  form: ReportForm,
  user: { id: string; username: string },
): Promise<Outcome<ReportView>> {
  const remote = await getRemoteReportsProvider(db).catch(() => null);
  if (!remote && form.profileId) {
    // Local reports read the paper profiles: an unknown one is a mistake to report now, not later.
    const profiles = await listProfileRecords(db, { source: SIMULATOR_NAME, includeInactive: true });
    if (!profiles.some((p) => p.id === form.profileId || p.profileId === form.profileId)) {
      return { ok: false, status: 400, error: `Unknown profile ${form.profileId}`, field: "profileId" };
    }
  }
  const id = newId();
  await pruneExpiredReportFiles(db).catch(() => 0);
  await db.transaction().execute(async (trx) => {
    await insertReport(trx, {
      id,
      type: form.type,
      format: form.format,
      startDate: form.startDate ?? null,
      endDate: form.endDate ?? null,
      productId: form.productId ?? null,
      profileId: form.profileId ?? null,
      year: form.year ?? null,
      userId: user.id,
    });
    await enqueueJob(trx, {
      task: "generate-report",
      payload: { reportId: id },
      jobKey: `report-${id}`,
      maxAttempts: REPORT_JOB_ATTEMPTS,
    });
    await recordActivity(trx, {
      type: "system",
      level: "info",
      message: `${REPORT_TYPE_LABELS[form.type]} report (${form.format.toUpperCase()}) requested by ${user.username}`,
      data: { reportId: id, type: form.type, format: form.format, provider: remote ? remote.name : "local" },
    });
  });
  return { ok: true, value: toReportView((await getReport(db, id))!) };
}

export type DownloadOutcome =
  | { ok: true; data: Uint8Array; fileName: string; contentType: string }
  | { ok: false; status: number; error: string };

export async function downloadReport(db: Db, id: string, now = Date.now()): Promise<DownloadOutcome> {
  const report = await getReport(db, id);
  if (!report) return { ok: false, status: 404, error: "Report not found" };
  if (report.status === "failed")
    return { ok: false, status: 409, error: `The report failed: ${report.errorMessage ?? "Generation failed"}` };
  if (report.status !== "ready") return { ok: false, status: 409, error: "The report is not ready yet" };
  if (report.expiresAt && Date.parse(report.expiresAt) < now)
    return { ok: false, status: 410, error: "The report has expired: generate it again" };
  const file = await getReportFile(db, id);
  if (!file) return { ok: false, status: 410, error: "The report's file is no longer available: generate it again" };
  return { ok: true, ...file };
}
