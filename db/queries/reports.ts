// Reports (docs/spec/api.md#shapes Report): the request, its status (pending -> creating -> ready | failed)
// and the generated file, plus the reads the local report builders use (fills from trades,
// the paper profiles' filled orders for the ledger).
import { normalizeDecimal } from "../../app/core/decimal.ts";
import type { ReportRow } from "../schema.ts";
import { type Db, nowMs, toIso } from "./util.ts";

export type ReportStatusValue = "pending" | "creating" | "ready" | "failed";

export interface ReportRecord {
  id: string;
  reportId: string | null;
  type: string;
  format: string;
  status: ReportStatusValue;
  requestedAt: string;
  startDate: string | null;
  endDate: string | null;
  productId: string | null;
  profileId: string | null;
  year: string | null;
  /** Where the browser downloads the file (set once ready). */
  fileUrl: string | null;
  /** The remote provider's own file address (Coinbase), never sent to browsers. */
  remoteFileUrl: string | null;
  fileName: string | null;
  fileSize: number | null;
  errorMessage: string | null;
  completedAt: string | null;
  expiresAt: string | null;
  userId: string | null;
}

const COLUMNS = [
  "id",
  "report_id",
  "type",
  "format",
  "status",
  "requested_at",
  "start_date",
  "end_date",
  "product_id",
  "profile_id",
  "year",
  "file_path",
  "file_url",
  "file_name",
  "file_size",
  "error_message",
  "completed_at",
  "expires_at",
  "user_id",
] as const;

export const downloadPath = (id: string) => `/api/reports/${id}/download`;

function toRecord(row: Pick<ReportRow, (typeof COLUMNS)[number]>): ReportRecord {
  const ready = row.status === "ready";
  return {
    id: row.id,
    reportId: row.report_id,
    type: row.type,
    format: row.format,
    status: row.status as ReportStatusValue,
    requestedAt: toIso(row.requested_at)!,
    startDate: row.start_date,
    endDate: row.end_date,
    productId: row.product_id,
    profileId: row.profile_id,
    year: row.year,
    fileUrl: ready ? downloadPath(row.id) : null,
    remoteFileUrl: row.file_url,
    fileName: row.file_name,
    fileSize: row.file_size == null ? null : Number(row.file_size),
    errorMessage: row.error_message,
    completedAt: toIso(row.completed_at),
    expiresAt: toIso(row.expires_at),
    userId: row.user_id,
  };
}

export interface NewReport {
  id: string;
  type: string;
  format: string;
  startDate: string | null;
  endDate: string | null;
  productId: string | null;
  profileId: string | null;
  year: string | null;
  userId: string | null;
}

export async function insertReport(db: Db, report: NewReport): Promise<void> {
  const now = nowMs();
  await db
    .insertInto("reports")
    .values({
      id: report.id,
      report_id: null,
      type: report.type,
      format: report.format,
      status: "pending",
      requested_at: now,
      start_date: report.startDate,
      end_date: report.endDate,
      product_id: report.productId,
      profile_id: report.profileId,
      year: report.year,
      file_path: null,
      file_url: null,
      error_message: null,
      user_id: report.userId,
      file_data: null,
      file_name: null,
      content_type: null,
      file_size: null,
      completed_at: null,
      expires_at: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

export async function getReport(db: Db, id: string): Promise<ReportRecord | null> {
  const row = await db.selectFrom("reports").select(COLUMNS).where("id", "=", id).executeTakeFirst();
  return row ? toRecord(row) : null;
}

export async function listReports(
  db: Db,
  options: { type?: string; status?: string; limit?: number } = {},
): Promise<ReportRecord[]> {
  let query = db.selectFrom("reports").select(COLUMNS);
  if (options.type) query = query.where("type", "=", options.type);
  if (options.status) query = query.where("status", "=", options.status);
  const limit = Math.min(Math.max(Math.trunc(options.limit ?? 100), 1), 500);
  const rows = await query.orderBy("requested_at", "desc").orderBy("id", "desc").limit(limit).execute();
  return rows.map(toRecord);
}

/** Moves a report on; only from one of `from` (so a finished report never goes back). Returns whether it moved. */
export async function updateReportStatus(
  db: Db,
  id: string,
  status: ReportStatusValue,
  options: {
    from: ReportStatusValue[];
    errorMessage?: string | null;
    reportId?: string | null;
    remoteFileUrl?: string | null;
    expiresAt?: number | null;
  },
): Promise<boolean> {
  const now = nowMs();
  const result = await db
    .updateTable("reports")
    .set({
      status,
      updated_at: now,
      ...(options.errorMessage !== undefined ? { error_message: options.errorMessage } : {}),
      ...(options.reportId !== undefined ? { report_id: options.reportId } : {}),
      ...(options.remoteFileUrl !== undefined ? { file_url: options.remoteFileUrl } : {}),
      ...(options.expiresAt !== undefined ? { expires_at: options.expiresAt } : {}),
      ...(status === "failed" ? { completed_at: now } : {}),
    })
    .where("id", "=", id)
    .where("status", "in", options.from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Stores the file and marks the report ready, in one statement. */
export async function storeReportFile(
  db: Db,
  id: string,
  file: { data: Uint8Array; fileName: string; contentType: string; expiresAt: number },
): Promise<boolean> {
  const now = nowMs();
  const result = await db
    .updateTable("reports")
    .set({
      status: "ready",
      file_data: file.data,
      file_name: file.fileName,
      content_type: file.contentType,
      file_size: file.data.byteLength,
      error_message: null,
      completed_at: now,
      expires_at: file.expiresAt,
      updated_at: now,
    })
    .where("id", "=", id)
    .where("status", "in", ["pending", "creating"])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function getReportFile(
  db: Db,
  id: string,
): Promise<{ data: Uint8Array; fileName: string; contentType: string; expiresAt: number | null } | null> {
  const row = await db
    .selectFrom("reports")
    .select(["file_data", "file_name", "content_type", "expires_at", "status"])
    .where("id", "=", id)
    .executeTakeFirst();
  if (row?.status !== "ready" || row.file_data == null) return null;
  const data = row.file_data instanceof Uint8Array ? row.file_data : new Uint8Array(row.file_data as ArrayBuffer);
  return {
    data,
    fileName: row.file_name ?? `report-${id}`,
    contentType: row.content_type ?? "application/octet-stream",
    expiresAt: row.expires_at == null ? null : Number(row.expires_at),
  };
}

// ---------------------------------------------------------------------------------------
// Reads for the local builders

export interface FillRow {
  id: string;
  orderId: string | null;
  symbol: string;
  side: string;
  orderType: string;
  quantity: string;
  price: string;
  fee: string;
  realizedPnl: string | null;
  source: string;
  status: string;
  executedAt: number;
}

/** Executed trades (their fills) in [from, to), oldest first. */
export async function listFills(
  db: Db,
  options: { from?: number | null; to?: number | null; symbol?: string | null },
): Promise<FillRow[]> {
  let query = db
    .selectFrom("trades")
    .select([
      "id",
      "order_id",
      "symbol",
      "side",
      "order_type",
      "executed_quantity",
      "executed_price",
      "fee",
      "realized_pnl",
      "source",
      "status",
      "executed_at",
      "created_at",
    ])
    .where("status", "in", ["executed", "completed"])
    .where("executed_price", "is not", null);
  if (options.from != null) query = query.where("executed_at", ">=", options.from);
  if (options.to != null) query = query.where("executed_at", "<", options.to);
  if (options.symbol) query = query.where("symbol", "=", options.symbol);
  const rows = await query.orderBy("executed_at").orderBy("id").execute();
  return rows.map((row) => ({
    id: row.id,
    orderId: row.order_id,
    symbol: row.symbol,
    side: row.side,
    orderType: row.order_type,
    quantity: normalizeDecimal(row.executed_quantity) ?? "0",
    price: normalizeDecimal(row.executed_price) ?? "0",
    fee: normalizeDecimal(row.fee) ?? "0",
    realizedPnl: normalizeDecimal(row.realized_pnl),
    source: row.source,
    status: row.status,
    executedAt: Number(row.executed_at ?? row.created_at),
  }));
}

export interface SimFillRow {
  orderId: string;
  clientOrderId: string;
  symbol: string;
  side: string;
  quantity: string;
  price: string;
  fee: string;
  realizedPnl: string;
  filledAt: number;
}

/** The paper profile's filled orders (what changed its balance), oldest first. */
export async function listSimFills(db: Db, profileIds: string[]): Promise<(SimFillRow & { profileId: string })[]> {
  if (profileIds.length === 0) return [];
  const rows = await db
    .selectFrom("sim_orders")
    .select([
      "id",
      "client_order_id",
      "profile_id",
      "symbol",
      "side",
      "filled_quantity",
      "average_price",
      "fee",
      "realized_pnl",
      "updated_at",
    ])
    .where("status", "=", "filled")
    .where("profile_id", "in", profileIds)
    .orderBy("updated_at")
    .orderBy("id")
    .execute();
  return rows.map((row) => ({
    orderId: row.id,
    clientOrderId: row.client_order_id,
    profileId: row.profile_id,
    symbol: row.symbol,
    side: row.side,
    quantity: normalizeDecimal(row.filled_quantity) ?? "0",
    price: normalizeDecimal(row.average_price) ?? "0",
    fee: normalizeDecimal(row.fee) ?? "0",
    realizedPnl: normalizeDecimal(row.realized_pnl) ?? "0",
    filledAt: Number(row.updated_at),
  }));
}

/** Frees the bytes of expired reports (their rows stay, marked by expires_at). Returns how many. */
export async function pruneExpiredReportFiles(db: Db, now = nowMs()): Promise<number> {
  const result = await db
    .updateTable("reports")
    .set({ file_data: null, updated_at: now })
    .where("expires_at", "<", now)
    .where("file_data", "is not", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
