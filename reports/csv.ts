// A report table as CSV (RFC 4180: CRLF lines, fields quoted when they hold a comma, quote or
// line break). Only the header and the rows: the meta lines belong to the PDF's page.
import { toCsv } from "#app/core/format.ts";
import type { ReportTable } from "./build.ts";

export function reportCsvText(table: Pick<ReportTable, "columns" | "rows">): string {
  return toCsv(table.columns, table.rows);
}

export function reportCsv(table: Pick<ReportTable, "columns" | "rows">): Uint8Array {
  return new TextEncoder().encode(reportCsvText(table));
}
