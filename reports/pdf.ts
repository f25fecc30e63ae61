// A report table as PDF (pdf-lib, standard Helvetica, A4 landscape): the title, the meta
// lines, then the table with its header repeated on every page and page numbers. Cells too
// wide for their column are shortened with "...". Text outside Latin-1 is replaced by "?"
// (the standard fonts' WinAnsi encoding cannot carry it).
import { PDFDocument, type PDFFont, StandardFonts, rgb } from "pdf-lib";
import type { ReportTable } from "./build.ts";

const PAGE_WIDTH = 842;
const PAGE_HEIGHT = 595;
const MARGIN = 36;
const FONT_SIZE = 8;
const ROW_HEIGHT = 13;
const CELL_PAD = 4;

export const winAnsiSafe = (text: string) => text.replace(/[^\x20-\x7e\xa0-\xff]/g, "?");

function fit(font: PDFFont, text: string, width: number): string {
  const safe = winAnsiSafe(text);
  if (font.widthOfTextAtSize(safe, FONT_SIZE) <= width) return safe;
  let cut = safe;
  while (cut.length > 0 && font.widthOfTextAtSize(`${cut}...`, FONT_SIZE) > width) cut = cut.slice(0, -1);
  return `${cut}...`;
}

function columnWidths(font: PDFFont, bold: PDFFont, table: Pick<ReportTable, "columns" | "rows">): number[] {
  const available = PAGE_WIDTH - 2 * MARGIN;
  const natural = table.columns.map((column, i) => {
    let widest = bold.widthOfTextAtSize(winAnsiSafe(column), FONT_SIZE) + 1;
    for (const row of table.rows.slice(0, 500)) {
      widest = Math.max(widest, font.widthOfTextAtSize(winAnsiSafe((row[i] ?? "").slice(0, 60)), FONT_SIZE));
    }
    return widest + 2 * CELL_PAD;
  });
  const total = natural.reduce((a, b) => a + b, 0);
  return total <= available ? natural : natural.map((w) => (w / total) * available);
}

export async function reportPdf(table: ReportTable): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(table.title);
  doc.setProducer("PerpDesk");
  doc.setCreator("PerpDesk reports");
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const widths = columnWidths(font, bold, table);
  const pages: ReturnType<typeof doc.addPage>[] = [];

  let page = doc.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  pages.push(page);
  let y = PAGE_HEIGHT - MARGIN;
  page.drawText(winAnsiSafe(table.title), { x: MARGIN, y: y - 16, size: 16, font: bold });
  y -= 32;
  for (const [label, value] of table.meta) {
    page.drawText(winAnsiSafe(`${label}: ${value}`), { x: MARGIN, y: y - 10, size: 9, font });
    y -= 13;
  }
  page.drawText(`Rows: ${table.rows.length}`, { x: MARGIN, y: y - 10, size: 9, font });
  y -= 24;

  const drawHeader = () => {
    page.drawRectangle({
      x: MARGIN,
      y: y - ROW_HEIGHT + 3,
      width: PAGE_WIDTH - 2 * MARGIN,
      height: ROW_HEIGHT,
      color: rgb(0.9, 0.92, 0.95),
    });
    let x = MARGIN;
    table.columns.forEach((column, i) => {
      page.drawText(fit(bold, column, widths[i]! - 2 * CELL_PAD), {
        x: x + CELL_PAD,
        y: y - 7,
        size: FONT_SIZE,
        font: bold,
      });
      x += widths[i]!;
    });
    y -= ROW_HEIGHT;
  };
  drawHeader();

  if (table.rows.length === 0) {
    page.drawText("No entries for this report.", { x: MARGIN + CELL_PAD, y: y - 9, size: 9, font });
  }
  for (const row of table.rows) {
    if (y - ROW_HEIGHT < MARGIN + 12) {
      page = doc.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
      pages.push(page);
      y = PAGE_HEIGHT - MARGIN;
      drawHeader();
    }
    let x = MARGIN;
    row.forEach((cell, i) => {
      if (i >= widths.length) return;
      page.drawText(fit(font, cell ?? "", widths[i]! - 2 * CELL_PAD), {
        x: x + CELL_PAD,
        y: y - 7,
        size: FONT_SIZE,
        font,
        color: rgb(0.1, 0.1, 0.1),
      });
      x += widths[i]!;
    });
    y -= ROW_HEIGHT;
  }
  for (const [i, p] of pages.entries())
    p.drawText(`Page ${i + 1} of ${pages.length}`, { x: PAGE_WIDTH - MARGIN - 60, y: MARGIN / 2, size: 7, font });
  return doc.save({ useObjectStreams: false });
}
