// Reports built from the account's own data, on both dialects: the CSV content row by row,
// the ledger's running balance against the balance the account holds, the balance at an
// earlier moment, the empty OTC report, and PDFs that are valid and show the expected text.
import { PDFDocument } from "pdf-lib";
import { beforeAll, describe, expect, test } from "vitest";
import { D } from "#app/core/decimal.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { SimulatorProfiles } from "#exchange/simulator/profiles.ts";
import { insertTrade, updateTrade } from "#db/queries/trades.ts";
import { testDialects } from "#tests/setup/db.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";
import { pdfText } from "#tests/setup/pdf-text.ts";
import {
  ACCOUNT_COLUMNS,
  FILLS_COLUMNS,
  OTC_FILLS_COLUMNS,
  buildReport,
  buildReportTable,
  reportFileName,
} from "./build.ts";
import { reportCsvText } from "./csv.ts";
import { reportPdf } from "./pdf.ts";

const T0 = Date.parse("2026-11-20T10:00:00.000Z");

describe("report files", () => {
  test("CSV: CRLF lines, the header, fields quoted only when needed", () => {
    const text = reportCsvText({
      columns: ["A", "B, with comma"],
      rows: [
        ["1", 'say "hi"'],
        ["line\nbreak", ""],
      ],
    });
    expect(text).toBe('A,"B, with comma"\r\n1,"say ""hi"""\r\n"line\nbreak",\r\n');
  });

  test("PDF: a valid document with the title, meta lines, header and cells; long tables go on several pages", async () => {
    const rows = Array.from({ length: 90 }, (_, i) => [`row-${i}`, `${i}.5`, "naïve ✓"]);
    const bytes = await reportPdf({
      title: "Fills report",
      meta: [["Period", "2026-11-01 to 2026-11-02"]],
      columns: ["Trade ID", "Amount", "Note"],
      rows,
    });
    expect(Buffer.from(bytes.subarray(0, 5)).toString()).toBe("%PDF-");
    const doc = await PDFDocument.load(bytes);
    expect(doc.getPageCount()).toBe(3);
    expect(doc.getTitle()).toBe("Fills report");
    const text = pdfText(bytes);
    for (const expected of [
      "Fills report",
      "Period: 2026-11-01 to 2026-11-02",
      "Rows: 90",
      "Trade ID",
      "row-0",
      "row-89",
      "89.5",
      "naïve ?",
      "Page 3 of 3",
    ]) {
      expect(text).toContain(expected);
    }
  });

  test("PDF of an empty report says so", async () => {
    const bytes = await reportPdf({ title: "OTC fills report", meta: [], columns: OTC_FILLS_COLUMNS, rows: [] });
    expect(pdfText(bytes)).toContain("No entries for this report.");
  });

  test("file names carry the type, the day and the report id", () => {
    expect(reportFileName("otc_fills", "pdf", "0123456789abcdef", T0)).toBe("otc-fills-report-20261120-01234567.pdf");
  });
});

describe.each(testDialects())("report data on %s", (dialect) => {
  const fresh = freshDatabase(dialect);
  let adapter: SimulatorAdapter;
  let main: string;
  let side: string;
  let transferAt = 0;
  const db = () => fresh.db;

  const trade = async (
    id: string,
    symbol: string,
    side: "buy" | "sell",
    qty: string,
    price: string,
    at: number,
    status: "executed" | "pending" = "executed",
  ) => {
    await insertTrade(db(), {
      id,
      symbol,
      side,
      orderType: "market",
      quantity: qty,
      price: null,
      source: "manual",
      clientOrderId: `c-${id}`,
      exchange: "simulator",
    });
    if (status === "executed") {
      await updateTrade(db(), id, {
        status,
        orderId: `o-${id}`,
        executedPrice: price,
        executedQuantity: qty,
        fee: D(qty).times(price).times("0.0006").toString(),
        executedAt: at,
        realizedPnl: side === "sell" ? "100" : null,
      });
    }
  };

  beforeAll(async () => {
    adapter = new SimulatorAdapter(db());
    main = await adapter.ensureAccount();
    const profiles = new SimulatorProfiles(db(), { account: adapter });
    side = (await profiles.createProfile("Side")).id;
    await trade("t-1", "ETH-PERP", "buy", "1", "3000", T0);
    await trade("t-2", "ETH-PERP", "sell", "1", "3100", T0 + 3_600_000);
    await trade("t-3", "BTC-PERP", "buy", "0.01", "95000", T0 + 86_400_000);
    await trade("t-4", "ETH-PERP", "buy", "2", "3000", T0, "pending");
    // The paper account itself: a round trip on ETH (fees and a realised gain), then a transfer.
    await setPrice(db(), "ETH-PERP", "3000");
    await adapter.placeOrder({
      clientOrderId: `b-${dialect}`,
      symbol: "ETH-PERP",
      side: "buy",
      type: "market",
      quantity: "1",
    });
    await new Promise((r) => setTimeout(r, 5));
    await setPrice(db(), "ETH-PERP", "3100");
    await adapter.placeOrder({
      clientOrderId: `s-${dialect}`,
      symbol: "ETH-PERP",
      side: "sell",
      type: "market",
      quantity: "1",
    });
    await new Promise((r) => setTimeout(r, 5));
    transferAt = Date.now();
    await new Promise((r) => setTimeout(r, 5));
    await profiles.transferFunds({ fromProfileId: main, toProfileId: side, currency: "USDC", amount: "250" });
  });

  test("fills: executed trades in the period, one product or all, oldest first; pending ones left out", async () => {
    const all = await buildReportTable(db(), { type: "fills", format: "csv" });
    expect(all.columns).toEqual(FILLS_COLUMNS);
    expect(all.rows.map((r) => r[0])).toEqual(["t-1", "t-2", "t-3"]);
    const day = await buildReportTable(db(), {
      type: "fills",
      format: "csv",
      startDate: "2026-11-20",
      endDate: "2026-11-20",
      productId: "ETH-PERP",
    });
    expect(reportCsvText(day)).toBe(
      [
        FILLS_COLUMNS.join(","),
        "t-1,o-t-1,2026-11-20T10:00:00.000Z,ETH-PERP,BUY,market,1,3000,1.8,3000,,manual",
        "t-2,o-t-2,2026-11-20T11:00:00.000Z,ETH-PERP,SELL,market,1,3100,1.86,3100,100,manual",
        "",
      ].join("\r\n"),
    );
    // A profile the app does not trade on has no fills.
    expect((await buildReportTable(db(), { type: "fills", format: "csv", profileId: side })).rows).toEqual([]);
  });

  test("account: the ledger's running balance ends at what the profile holds now", async () => {
    const table = await buildReportTable(db(), { type: "account", format: "csv" });
    expect(table.columns).toEqual(ACCOUNT_COLUMNS);
    expect(table.rows.map((r) => r[2])).toEqual(["fee", "realized_pnl", "fee", "transfer_out"]);
    const [usdc] = await adapter.getBalances();
    const now = D(usdc!.available).plus(usdc!.hold).toString();
    expect(table.rows.at(-1)![4]).toBe(now);
    expect(table.rows.at(-1)![3]).toBe("-250");
    // Each balance is the one before plus the amount, back to the opening 10,000.
    let balance = D(10000);
    for (const row of table.rows) {
      balance = balance.plus(row[3]!);
      expect(row[4]).toBe(balance.toString());
    }
    const sideLedger = await buildReportTable(db(), { type: "account", format: "csv", profileId: side });
    expect(sideLedger.rows.map((r) => [r[2], r[3], r[4]])).toEqual([["transfer_in", "250", "250"]]);
  });

  test("balance: every profile per currency now, and before the transfer", async () => {
    const now = await buildReportTable(db(), { type: "balance", format: "csv" });
    const [usdc] = await adapter.getBalances();
    const total = D(usdc!.available).plus(usdc!.hold);
    expect(now.rows.map((r) => [r[1], r[2], r[3]])).toEqual([
      ["Paper trading", "USDC", total.toString()],
      ["Side", "USDC", "250"],
    ]);
    const before = await buildReportTable(db(), {
      type: "balance",
      format: "csv",
      endDate: new Date(transferAt).toISOString(),
    });
    expect(before.rows.map((r) => [r[1], r[3]])).toEqual([
      ["Paper trading", total.plus(250).toString()],
      ["Side", "0"],
    ]);
  });

  test("otc_fills: the simulator makes none, so the file is the header alone", async () => {
    const built = await buildReport(db(), { type: "otc_fills", format: "csv" }, "abcdef0123456789", T0);
    expect(built.contentType).toBe("text/csv; charset=utf-8");
    expect(new TextDecoder().decode(built.data)).toBe(`${OTC_FILLS_COLUMNS.join(",")}\r\n`);
  });

  test("a PDF report of fills shows its rows", async () => {
    const built = await buildReport(db(), { type: "fills", format: "pdf", productId: "BTC-PERP" }, "abcdef0123456789");
    expect(built.contentType).toBe("application/pdf");
    const text = pdfText(built.data);
    expect(text).toContain("Fills report");
    expect(text).toContain("Product: BTC-PERP");
    expect(text).toContain("t-3");
    expect(text).not.toContain("t-1");
  });

  test("an unknown profile is refused", async () => {
    await expect(buildReportTable(db(), { type: "account", format: "csv", profileId: "nope" })).rejects.toThrow(
      "Unknown profile nope",
    );
  });
});
