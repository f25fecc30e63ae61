// Reports built from the account's own data (the simulator's provider, and whenever no
// Coinbase Exchange key with a passphrase is configured):
// - fills: the executed trades (one row per fill) in the period, optionally one product;
// - account: the profile's ledger (fees, realised P&L, transfers) with the balance after each;
// - balance: every profile's balance per currency at a moment (the end date, else now);
// - otc_fills: OTC fills; the simulator makes none, so the report is its header alone.
// The table is then written as CSV or PDF (csv.ts, pdf.ts).
import type { ReportRequest } from "#app/core/exchange/accounts.ts";
import { D } from "#app/core/decimal.ts";
import { parseReportDate } from "#app/core/schemas/reports.ts";
import { listProfileRecords, type ProfileRecord } from "#db/queries/profiles.ts";
import { listFills } from "#db/queries/reports.ts";
import type { Db } from "#db/queries/util.ts";
import { SIMULATOR_NAME } from "#exchange/simulator/adapter.ts";
import { reportCsv } from "./csv.ts";
import { balancesAt, buildLedger } from "./ledger.ts";
import { reportPdf } from "./pdf.ts";

export interface ReportTable {
  title: string;
  /** Label/value lines above the table (period, product, profile, generated at). */
  meta: [string, string][];
  columns: string[];
  rows: string[][];
}

export class ReportInputError extends Error {}

export const FILLS_COLUMNS = [
  "Trade ID",
  "Order ID",
  "Created At",
  "Product",
  "Side",
  "Type",
  "Size",
  "Price",
  "Fee",
  "Total",
  "Realized P&L (net of fees)",
  "Source",
];
export const ACCOUNT_COLUMNS = ["Time", "Profile", "Type", "Amount", "Balance", "Currency", "Reference", "Details"];
export const BALANCE_COLUMNS = ["Profile ID", "Profile", "Currency", "Balance", "As Of"];
export const OTC_FILLS_COLUMNS = ["Trade ID", "Created At", "Product", "Side", "Size", "Price", "Fee", "Total"];

const TITLES = {
  fills: "Fills report",
  account: "Account report",
  balance: "Balance report",
  otc_fills: "OTC fills report",
} as const;

const iso = (ms: number) => new Date(ms).toISOString();

function period(request: ReportRequest): { from: number | null; to: number | null; text: string } {
  const from = request.startDate ? parseReportDate(request.startDate, "start") : null;
  const to = request.endDate ? parseReportDate(request.endDate, "end") : null;
  if (request.startDate && from === null) throw new ReportInputError(`Invalid start date ${request.startDate}`);
  if (request.endDate && to === null) throw new ReportInputError(`Invalid end date ${request.endDate}`);
  const text = `${from === null ? "the beginning" : iso(from)} to ${to === null ? "now" : iso(to)}`;
  return { from, to, text };
}

async function profilesFor(
  db: Db,
  profileId: string | null | undefined,
): Promise<{ all: ProfileRecord[]; chosen: ProfileRecord | null }> {
  const all = await listProfileRecords(db, { source: SIMULATOR_NAME, includeInactive: true });
  if (!profileId) return { all, chosen: null };
  const chosen = all.find((p) => p.id === profileId || p.profileId === profileId) ?? null;
  if (!chosen) throw new ReportInputError(`Unknown profile ${profileId}`);
  return { all, chosen };
}

/** The report's rows, read in one transaction so every figure comes from the same moment. */
export function buildReportTable(db: Db, request: ReportRequest, now = Date.now()): Promise<ReportTable> {
  return db.transaction().execute((trx) => buildInside(trx, request, now));
}

async function buildInside(db: Db, request: ReportRequest, now: number): Promise<ReportTable> {
  const { from, to, text } = period(request);
  const meta: [string, string][] = [];
  const title = TITLES[request.type];
  if (!title) throw new ReportInputError(`Unknown report type ${String(request.type)}`);

  if (request.type === "fills" || request.type === "otc_fills") {
    meta.push(["Period", text]);
    meta.push(["Product", request.productId || "all products"]);
    const { chosen } = await profilesFor(db, request.profileId);
    if (chosen) meta.push(["Profile", chosen.name]);
    meta.push(["Generated", iso(now)]);
    if (request.type === "otc_fills") return { title, meta, columns: OTC_FILLS_COLUMNS, rows: [] };
    // Every order the app sends trades on the default profile: another profile has no fills.
    const fills =
      chosen && !chosen.isDefault ? [] : await listFills(db, { from, to, symbol: request.productId || null });
    const rows = fills.map((f) => [
      f.id,
      f.orderId ?? "",
      iso(f.executedAt),
      f.symbol,
      f.side.toUpperCase(),
      f.orderType,
      f.quantity,
      f.price,
      f.fee,
      D(f.quantity).times(f.price).toString(),
      f.realizedPnl ?? "",
      f.source,
    ]);
    return { title, meta, columns: FILLS_COLUMNS, rows };
  }

  if (request.type === "account") {
    const { all, chosen } = await profilesFor(db, request.profileId);
    const profile = chosen ?? all.find((p) => p.isDefault) ?? null;
    meta.push(["Period", text]);
    meta.push(["Profile", profile ? profile.name : "none"]);
    meta.push(["Generated", iso(now)]);
    if (!profile) return { title, meta, columns: ACCOUNT_COLUMNS, rows: [] };
    const ledger = await buildLedger(db, [profile.id]);
    const rows = ledger
      .filter((e) => (from === null || e.at >= from) && (to === null || e.at < to))
      .map((e) => [iso(e.at), profile.name, e.type, e.amount, e.balance, e.currency, e.reference, e.details]);
    return { title, meta, columns: ACCOUNT_COLUMNS, rows };
  }

  // balance: at the end date (the end of that day for a date), else now.
  const at =
    to === null
      ? now
      : Math.min(to - (request.endDate && /^\d{4}-\d{2}-\d{2}$/.test(request.endDate.trim()) ? 1 : 0), now);
  const { all, chosen } = await profilesFor(db, request.profileId);
  const existing = (chosen ? [chosen] : all).filter((p) => p.createdAt <= at);
  meta.push(["As of", iso(at)]);
  meta.push(["Profiles", chosen ? chosen.name : "all"]);
  meta.push(["Generated", iso(now)]);
  const figures = await balancesAt(
    db,
    existing.map((p) => p.id),
    at,
  );
  const byId = new Map(existing.map((p) => [p.id, p]));
  const rows = figures
    // A deleted profile appears only while it still held something.
    .filter((f) => byId.get(f.profileId)!.active || !D(f.balance).eq(0))
    .map((f) => [f.profileId, byId.get(f.profileId)!.name, f.currency, f.balance, iso(at)]);
  return { title, meta, columns: BALANCE_COLUMNS, rows };
}

export interface BuiltReport {
  data: Uint8Array;
  contentType: string;
  fileName: string;
}

export const CONTENT_TYPES = { csv: "text/csv; charset=utf-8", pdf: "application/pdf" } as const;

export function reportFileName(type: string, format: string, id: string, now = Date.now()): string {
  const day = new Date(now).toISOString().slice(0, 10).replace(/-/g, "");
  return `${type.replace(/_/g, "-")}-report-${day}-${id.slice(0, 8)}.${format}`;
}

/** Builds the report's file from the account's data. */
export async function buildReport(db: Db, request: ReportRequest, id: string, now = Date.now()): Promise<BuiltReport> {
  const table = await buildReportTable(db, request, now);
  const data = request.format === "pdf" ? await reportPdf(table) : reportCsv(table);
  return {
    data,
    contentType: CONTENT_TYPES[request.format],
    fileName: reportFileName(request.type, request.format, id, now),
  };
}
