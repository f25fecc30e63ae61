// Manual Trading, Trade History and Trading Rules in a real browser (docs/spec/screens.md, screens.md#states, api.md#validation,
// §7, §8, §9), on their OWN app instance (a fresh SQLite DATA_DIR started from the global
// setup's frozen build), so the first account registered here is the admin whatever order
// the files run in.
// A manual market order with 'Trade Executed' (and 'Trade Failed' under an emergency stop);
// the Trade History row, cards, filters, trade-history.csv checked by content, and a row
// expanded with its details (polled while expanded, never after) and the error state; the
// Trading Rules form saved with JavaScript and without, reloaded to show the saved values,
// the take-profit total error toast, the header's Emergency Stop (a toast, no call), and
// the confirmations of Apply Rules / Reset Statistics (their endpoints answered by the
// test: another part of the app owns them). Screenshots in test-results/e2e/screens-*.png.
// Each test signs in on its own (suite.login) on a clean slate (resetTrading) and makes the
// trades and rules it needs, so any one runs alone (`-t`) and in any order.
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { TRADE_TABLE_COLUMNS } from "../setup/fixtures.ts";
import {
  type Browser,
  type BrowserContext,
  type Page,
  type PageProblems,
  type RunningApp,
  apiJson,
  cardLines,
  countRequests,
  expectToastOnScreen,
  expectToastShown,
  fetchHealth,
  field,
  gotoHydrated,
  h1,
  maxToastsSeen,
  pathOf,
  resetTrading,
  screenshot as fullScreenshot,
  signedInWithoutJs,
  silenceLiveUpdates,
  squash,
  cardText,
  submitForm,
  type Session,
  useSuite,
  visible,
  waitForSystemStatus,
  watchProblems,
  withAppDatabase,
} from "./utils.ts";

const ADMIN = { username: "screens_admin", password: "screens-admin-secret-1" };
const TP_ERROR_110 = "Invalid Portfolio Allocation: Enabled Take Profit levels must total 100%, currently 110%";
const CSV_HEADER =
  "Date,Symbol,Side,Type,Quantity,Price,Status,Source,Fee,Realized P&L (net of fees),Trade ID,Order ID";

interface TradeJson {
  id: string;
  symbol: string;
  side: string;
  orderType: string;
  quantity: string;
  price: string | null;
  executedPrice: string | null;
  executedQuantity: string;
  status: string;
  source: string;
  orderId: string | null;
  fee: string;
  createdAt: string;
}
interface ConfigJson {
  takeProfits: { portfolio: number; priceDeviation: number; enabled: boolean }[];
  stopLossOffset: number;
  trailingStop: { activation: number; execute: number };
  autoTradingEnabled: boolean;
  applyAmountControlToSignals: boolean;
  orderSizeMultiplier: string;
  signalAmountType: string;
  signalAmountValue: string;
  breakEvenEnabled: boolean;
  trailingStopEnabled: boolean;
}

let baseUrl: string;
let browser: Browser;
let screensApp: RunningApp | undefined;
let login: () => Promise<Session>;
let initialConfig: Record<string, unknown>;
// The running test's own admin session (set by start()).
let adminContext: BrowserContext;
let adminPage: Page;
let adminProblems: PageProblems;

useSuite({ label: "screens", port: 5107, admin: ADMIN }, (suite) => {
  ({ app: screensApp, baseUrl, browser, login, initialConfig } = suite);
});

/** The test's own start: the admin signed in on a new context, nothing open, no history, the fresh app's rules. */
async function start(): Promise<void> {
  ({ context: adminContext, page: adminPage, problems: adminProblems } = await login());
  await resetTrading(adminPage, initialConfig);
}

/** Manual positions without protection, so the worker's rules engine never adds a closing trade while a test counts rows. */
const MANUAL_PROTECTION_OFF = {
  applyTakeProfitToManual: false,
  applyStopLossToManual: false,
  applyBreakEvenToManual: false,
  applyTrailingStopToManual: false,
};

/** The rules test 6 saves with JavaScript (take-profits 25/25/50 %), as later tests find them stored. */
const RULES_SAVED_WITH_JS = {
  takeProfits: [
    { portfolio: 0.25, priceDeviation: 0.006, enabled: true },
    { portfolio: 0.25, priceDeviation: 0.01, enabled: true },
    { portfolio: 0.5, priceDeviation: 0.02, enabled: true },
  ],
  stopLossOffset: 0.008,
  trailingStop: { activation: 0.02, execute: 0.007 },
  autoTradingEnabled: false,
  applyAmountControlToSignals: true,
  orderSizeMultiplier: "2.5",
  signalAmountType: "usd",
  signalAmountValue: "50",
};

/** What test 2 places on the Manual Trading screen, placed through POST /api/trades: a market BUY of 0.02 ETH-PERP at 2x, executed. */
async function placeManualBuy(page: Page): Promise<TradeJson> {
  await waitForPrices();
  expect((await page.request.post("/api/trading-config", { data: MANUAL_PROTECTION_OFF })).status()).toBe(200);
  const placed = await page.request.post("/api/trades", {
    data: {
      symbol: "ETH-PERP",
      side: "buy",
      orderType: "market",
      amountType: "quantity",
      quantity: "0.02",
      leverage: "2",
    },
  });
  expect(placed.status(), await placed.text()).toBeLessThan(300);
  let executed: TradeJson | undefined;
  await expect
    .poll(
      async () => {
        [executed] = await apiJson<TradeJson[]>(page, "/api/trades?limit=50");
        return executed?.status;
      },
      { timeout: 20_000, message: "the manual BUY executed" },
    )
    .toBe("executed");
  return executed!;
}

// --- small page helpers ------------------------------------------------------------------

const input = (page: Page, name: string) => page.locator(`input[name="${name}"]`);

const tradingConfig = async (page: Page) => (await apiJson<{ config: ConfigJson }>(page, "/api/trading-config")).config;

const tradeRows = (page: Page) => page.getByTestId("trade-row");

const waitForPrices = () =>
  waitForSystemStatus(baseUrl, { coinbase_api: "online" }, "GET /api/health: coinbase_api online (prices)");

/** A full-page screenshot from the top (the shell's fixed parts stay where they belong). */
async function screenshot(page: Page, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await fullScreenshot(page, name);
}

// --- the suite ---------------------------------------------------------------------------

describe("screens: Manual Trading, Trade History, Trading Rules (SQLite, own instance)", () => {
  test("1. the first account is the admin", async () => {
    await start();
    expect(await apiJson<{ role: string }>(adminPage, "/api/user")).toMatchObject({
      role: "admin",
      username: ADMIN.username,
    });
  });

  test("2. Manual Trading: Place Order card fed by balances, the notes, a market BUY → 'Trade Executed'; 'Trade Failed' under an emergency stop", async () => {
    await start();
    const page = adminPage;
    await waitForPrices();
    await gotoHydrated(page, "/manual-trading", "Manual Trading", adminProblems);
    const form = page.getByTestId("manual-trade-form");
    await visible(form.getByText("Place Order", { exact: true }));
    expect(squash(await form.innerText())).toMatch(/Simulator \(paper trading\) · [\d.]+ USDC available/);
    const info = squash(await page.getByTestId("manual-info").innerText());
    for (const note of [
      "Market orders execute immediately",
      "Limit orders fill at the limit price or better",
      "quantity",
      "USD",
      "percentage",
      "leverage from 1x to 10x",
      "Cross or Isolated",
      "Stop loss and take profit are supported",
    ]) {
      expect(info).toContain(note);
    }
    expect((await page.getByTestId("protection-line").allInnerTexts()).map(squash)).toEqual([
      "Take profit 20% at +0.5%, 30% at +1.0%, 50% at +1.5%",
      "Stop loss 0.5% from the entry price",
      "Breakeven Stop moves to the entry after the first take profit",
      "Trailing stop Arms at +1.2%, closes on a 0.6% retrace",
    ]);
    expect(await page.getByTestId("exchange-status").innerText()).toBe("Exchange connected");
    expect(await form.getByLabel("Leverage", { exact: true }).locator("option").allInnerTexts()).toEqual([
      "1x",
      "2x",
      "3x",
      "5x",
      "10x",
    ]);
    expect(await form.getByLabel("Margin type", { exact: true }).locator("option").allInnerTexts()).toEqual([
      "Cross",
      "Isolated",
    ]);

    // A validation message first (docs/spec/api.md#validation): nothing is sent.
    const posts = countRequests(page, (method) => method === "POST");
    await form.getByRole("button", { name: "Buy / Long", exact: true }).click();
    await expect
      .poll(async () => squash(await form.innerText()), { timeout: 5000 })
      .toMatch(/Amount is required|Quantity must be a positive number greater than 0/);
    posts.stop();
    expect(posts.seen).toEqual([]);

    // The position this order opens carries no protection, so the worker's rules engine
    // never adds a closing trade while the test counts rows.
    expect((await page.request.post("/api/trading-config", { data: MANUAL_PROTECTION_OFF })).status()).toBe(200);

    // A market BUY of 0.02 ETH-PERP at 2x.
    await form.getByLabel("Quantity", { exact: true }).fill("0.02");
    await form.getByLabel("Leverage", { exact: true }).selectOption("2");
    let since = Date.now();
    expect(
      await submitForm(page, "/manual-trading", form.getByRole("button", { name: "Buy / Long", exact: true })),
    ).toBe(200);
    await expectToastShown(
      page,
      "Trade Executed",
      "BUY order for ETH-PERP has been placed successfully",
      "default",
      since,
    );
    // The worker sends it; the simulator fills a market order at once.
    await expect
      .poll(
        async () =>
          (await apiJson<TradeJson[]>(page, "/api/trades?limit=50")).map(
            (t) => `${t.symbol} ${t.side} ${t.source} ${t.status}`,
          ),
        { timeout: 20_000 },
      )
      .toEqual(["ETH-PERP buy manual executed"]);
    const [trade] = await apiJson<TradeJson[]>(page, "/api/trades?limit=50");
    expect(trade!.executedPrice).toBeTruthy();
    await screenshot(page, "screens-01-manual-trading");

    // Under an emergency stop the order is refused: 'Trade Failed' with the server's reason.
    expect((await page.request.post("/api/emergency-stop")).status()).toBe(200);
    try {
      since = Date.now();
      await form.getByLabel("Quantity", { exact: true }).fill("0.01");
      // A BUY adds to the long (an entry): refused. A SELL would reduce it, which the stop lets through (decision 019).
      await form.getByRole("button", { name: "Buy / Long", exact: true }).click();
      await expectToastShown(
        page,
        "Trade Failed",
        "Emergency stop is active: no new positions are opened until it is reset",
        "destructive",
        since,
      );
      await screenshot(page, "screens-01-manual-trading-failed");
    } finally {
      expect((await page.request.post("/api/reset-emergency-stop")).status()).toBe(200);
    }
    expect(await apiJson<TradeJson[]>(page, "/api/trades?limit=50")).toHaveLength(1);
    expect(await maxToastsSeen(page)).toBeLessThanOrEqual(1);
    // The browser logs the refused order's 409 answer itself.
    expect(adminProblems.errors.filter((e) => !e.includes("status of 409"))).toEqual([]);
    adminProblems.clear();
  });

  test("3. Trade History: the row with its position's state, the cards, the filters and Clear Filters", async () => {
    await start();
    const page = adminPage;
    const trade = await placeManualBuy(page);
    await gotoHydrated(page, "/history", "Trade History", adminProblems);
    await expect.poll(() => tradeRows(page).count()).toBe(1);
    const headers = await page.getByTestId("trade-history-table").locator("thead th").allInnerTexts();
    expect(headers.map((h) => h.trim())).toEqual(TRADE_TABLE_COLUMNS);
    const cells = (await tradeRows(page).first().locator("td").allInnerTexts()).map(squash);
    expect(cells[0]).toMatch(/^ETH-PERP BUY 0\.0200 · market · manual /);
    expect(cells[1]).toBe(Number(trade.executedPrice).toFixed(4));
    // The entry of a position: its real state (drawdown on the random walk, manual protection
    // with no take-profit: 'Manual'); an entry realizes nothing: P/L '—', ROI 'N/A'.
    expect(cells[2]).toMatch(/^(-\d+\.\d{2}|0\.00)%$/);
    expect(cells.slice(3, 11)).toEqual(["Manual", "None", "Inactive", "Inactive", "100%", "—", "N/A", "executed"]);

    expect(await cardLines(page, "card-total-trades")).toEqual(["Total Trades", "1", "All orders"]);
    expect(await cardLines(page, "card-completed")).toEqual(["Completed", "1", "Executed or completed"]);
    expect(await cardLines(page, "card-failed")).toEqual(["Failed", "0", "Rejected or not filled"]);
    const pnl = await apiJson<{ totalPnL: string; realizedMatches: number; closingTrades: number }>(
      page,
      "/api/closed-trades-pnl",
    );
    // Loaded by the browser (GET /api/closed-trades-pnl), not by the page's loader.
    await expect
      .poll(() => cardLines(page, "card-trade-pnl"))
      .toEqual([
        "P&L",
        Number(pnl.totalPnL).toFixed(2),
        `All time, net of fees: ${pnl.closingTrades} closing ${pnl.closingTrades === 1 ? "trade" : "trades"}`,
      ]);

    // Filters: symbol text, status, Clear Filters.
    const symbol = page.getByTestId("trade-filters").getByLabel("Symbol", { exact: true });
    const status = page.getByTestId("trade-filters").getByLabel("Status", { exact: true });
    expect(await status.locator("option").allInnerTexts()).toEqual(["All", "Executed", "Pending", "Failed"]);
    await symbol.fill("btc");
    await visible(page.getByText("No trades found", { exact: true }));
    expect(await tradeRows(page).count()).toBe(0);
    await page.getByTestId("trade-clear-filters").click();
    await expect.poll(() => tradeRows(page).count()).toBe(1);
    expect(await symbol.inputValue()).toBe("");
    await status.selectOption("failed");
    await visible(page.getByText("No trades found", { exact: true }));
    await status.selectOption("executed");
    await symbol.fill("eth");
    await expect.poll(() => tradeRows(page).count()).toBe(1);
    await screenshot(page, "screens-02-trade-history");
    await page.getByTestId("trade-clear-filters").click();
    expect(await status.inputValue()).toBe("all");
    expect(adminProblems.errors).toEqual([]);
  });

  test("4. Trade History: Export writes trade-history.csv with the SPEC columns, of the filtered rows", async () => {
    await start();
    const page = adminPage;
    const trade = await placeManualBuy(page);
    await gotoHydrated(page, "/history", "Trade History", adminProblems);
    await expect.poll(() => tradeRows(page).count()).toBe(1);
    const expected = [
      CSV_HEADER,
      `${trade.createdAt},ETH-PERP,buy,market,${trade.executedQuantity},${trade.executedPrice},executed,manual,${Number(trade.fee)},,${trade.id},${trade.orderId ?? ""}`,
    ];
    const since = Date.now();
    const [download] = await Promise.all([
      page.waitForEvent("download", { timeout: 10_000 }),
      page.getByRole("link", { name: "Export", exact: true }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("trade-history.csv");
    const csv = readFileSync((await download.path())!, "utf8");
    expect(csv.split("\r\n")).toEqual([...expected, ""]);
    await expectToastShown(page, "Export successful", "Exported 1 trade as CSV file", "default", since);

    // Filtered to nothing: no file, a toast instead.
    await page.getByTestId("trade-filters").getByLabel("Symbol", { exact: true }).fill("SOL");
    let downloads = 0;
    const onDownload = () => (downloads += 1);
    page.on("download", onDownload);
    await page.getByRole("link", { name: "Export", exact: true }).click();
    await expectToastShown(
      page,
      "No trades to export",
      "Apply different filters or wait for trades to be placed",
      "default",
      since,
    );
    page.off("download", onDownload);
    expect(downloads).toBe(0);
    await page.getByTestId("trade-clear-filters").click();
    expect(adminProblems.errors).toEqual([]);
  });

  test("5. Trade History: a row expanded shows its details, loaded only while expanded, every 10 s; the error state", async () => {
    await start();
    const page = adminPage;
    const trade = await placeManualBuy(page);
    // The page's timers run on Playwright's clock: the 10 s polls are fast-forwarded, not waited
    // for; and its live socket stays silent, so only the row's own poll loads the details.
    await page.clock.install();
    await silenceLiveUpdates(page);
    await gotoHydrated(page, "/history", "Trade History", adminProblems);
    await expect.poll(() => tradeRows(page).count()).toBe(1);
    const detailsPath = `/api/trades/${trade.id}/details`;
    const calls = countRequests(page, (method, path) => method === "GET" && path === detailsPath);
    try {
      await page.clock.fastForward(11_000);
      await page.evaluate(() => undefined);
      expect(calls.seen, "nothing loads while collapsed, even past a poll interval").toEqual([]);
      await tradeRows(page).first().click();
      const details = page.getByTestId("trade-details");
      await visible(details);
      expect(await tradeRows(page).first().getAttribute("aria-expanded")).toBe("true");
      const text = async (id: string) => squash(await details.getByTestId(id).innerText());
      expect(await text("detail-trade-id")).toBe(`Trade ID ${trade.id.slice(0, 8)}`);
      expect(await text("detail-exchange")).toBe("Exchange Simulator (paper trading)");
      expect(await text("detail-order-id")).toBe(`Order ID ${trade.orderId!.slice(0, 12)}`);
      expect(await text("detail-source")).toBe("Source manual");
      expect(await text("detail-signal")).toBe("Related signal None (not from a signal)");
      const value = (Number(trade.executedQuantity) * Number(trade.executedPrice!)).toFixed(2);
      expect(await text("detail-total-value")).toBe(`Total value ${value} USD`);
      expect(await text("detail-executed-quantity")).toBe("Executed quantity 0.0200");
      expect(await text("detail-fees")).toMatch(/^Estimated fees \d+\.\d{4} USD$/);
      await visible(details.getByText("No related trades", { exact: true }));
      await screenshot(page, "screens-03-trade-details");

      // Polled every 10 s while expanded…
      await page.clock.fastForward(10_000);
      await expect.poll(() => calls.seen.length, { timeout: 5000, interval: 100 }).toBe(2);
      // …and never after collapsing: 11 s on the page's clock, and a round trip to the page after it.
      await page.getByRole("button", { name: `Hide details of trade ${trade.id.slice(0, 8)}`, exact: true }).click();
      await details.waitFor({ state: "detached" });
      const count = calls.seen.length;
      await page.clock.fastForward(11_000);
      await page.evaluate(() => undefined);
      expect(calls.seen.length).toBe(count);
    } finally {
      calls.stop();
    }

    // A failing details call: the toast and the inline message asking to expand again.
    const failing = (url: URL) => url.pathname === detailsPath;
    await page.route(failing, (route) =>
      route.fulfill({
        status: 404,
        contentType: "application/json",
        body: JSON.stringify({ error: "Trade not found" }),
      }),
    );
    try {
      const since = Date.now();
      await page.getByRole("button", { name: `Show details of trade ${trade.id.slice(0, 8)}`, exact: true }).click();
      await expectToastShown(page, "Failed to Load Trade Details", "Trade not found", "destructive", since);
      await visible(page.getByTestId("trade-details-error"));
      expect(squash(await page.getByTestId("trade-details-error").innerText())).toBe(
        "Failed to load trade details. Collapse the row and expand it again to retry.",
      );
      await screenshot(page, "screens-03-trade-details-error");
    } finally {
      await page.unroute(failing);
    }
    // Expanding again loads it.
    await tradeRows(page).first().click();
    await page.getByTestId("trade-details-error").waitFor({ state: "detached" });
    await tradeRows(page).first().click();
    await visible(page.getByTestId("trade-details"));
    expect(await maxToastsSeen(page)).toBeLessThanOrEqual(1);
    // The browser logs the mocked 404 answer itself.
    expect(adminProblems.errors.filter((e) => !e.includes("status of 404"))).toEqual([]);
    adminProblems.clear();
  });

  test("6. Trading Rules with JavaScript: conditional sections, Emergency Stop (a toast, no call), save, reload shows the saved values", async () => {
    await start();
    const page = adminPage;
    await gotoHydrated(page, "/trading-rules", "Trading Rules", adminProblems);
    for (const section of [
      "System Controls",
      "Signal Protection",
      "Manual Position Protection",
      "Amount Control",
      "Advanced Trading Controls",
      "Performance Statistics",
    ]) {
      await visible(page.getByRole("heading", { level: 2, name: section, exact: true }));
    }
    // Amount control is off by default: its fields are hidden until it is switched on.
    const amountFields = page.getByTestId("amount-control-fields");
    expect(await amountFields.getAttribute("data-shown")).toBe("false");
    await expect.poll(() => field(page, "Order Size Multiplier").isVisible()).toBe(false);
    await input(page, "applyAmountControlToSignals").check();
    await expect.poll(() => field(page, "Order Size Multiplier").isVisible()).toBe(true);
    // Breakeven and trailing details follow their switches.
    await input(page, "breakEvenEnabled").uncheck();
    await expect.poll(() => page.getByTestId("breakeven-details").getAttribute("data-shown")).toBe("false");
    await input(page, "breakEvenEnabled").check();
    await input(page, "trailingStopEnabled").uncheck();
    await expect.poll(() => field(page, "Activation %").isVisible()).toBe(false);
    await input(page, "trailingStopEnabled").check();
    await expect.poll(() => field(page, "Activation %").isVisible()).toBe(true);

    // The header's Emergency Stop is the real one (issue 11): it stops, then offers Reset.
    let since = Date.now();
    await page.getByRole("button", { name: "Emergency Stop", exact: true }).click();
    await expectToastShown(
      page,
      "Emergency Stop Activated",
      "Emergency stop activated: no new positions are opened until it is reset; stop-loss, take-profit and Close keep working",
      "destructive",
      since,
    );
    await expect
      .poll(async () => (await fetchHealth(baseUrl)).systemStatus.find((s) => s.component === "system")?.status)
      .toBe("warning");
    await visible(page.getByTestId("emergency-banner"));
    since = Date.now();
    await page.getByRole("button", { name: "Reset Emergency Stop", exact: true }).click();
    await expectToastShown(page, "Emergency Stop Reset", "Emergency stop reset: trading resumed", "default", since);
    await expect
      .poll(async () => (await fetchHealth(baseUrl)).systemStatus.find((s) => s.component === "system")?.status)
      .toBe("online");
    await expect.poll(() => page.getByTestId("emergency-banner").count()).toBe(0);
    await visible(page.getByRole("button", { name: "Emergency Stop", exact: true }));

    // Clamping as typed: 150 becomes 100; the live total follows.
    await input(page, "takeProfits[0].portfolio").fill("150");
    expect(await input(page, "takeProfits[0].portfolio").inputValue()).toBe("100");
    expect(await page.getByTestId("tp-total").innerText()).toBe("Enabled levels total 180%");

    // The new rules (percent on screen).
    await input(page, "takeProfits[0].portfolio").fill("25");
    await input(page, "takeProfits[0].priceDeviation").fill("0.6");
    await input(page, "takeProfits[1].portfolio").fill("25");
    await input(page, "takeProfits[2].priceDeviation").fill("2");
    expect(await page.getByTestId("tp-total").innerText()).toBe("Enabled levels total 100%");
    await field(page, "Stop Loss Offset %").fill("0.8");
    await field(page, "Activation %").fill("2");
    await field(page, "Execute %").fill("0.7");
    await field(page, "Order Size Multiplier").fill("2.5");
    await field(page, "Signal Amount Type").selectOption("usd");
    await field(page, "Signal Amount Value").fill("50");
    await input(page, "autoTradingEnabled").uncheck();
    // Nothing is saved until Save.
    expect((await tradingConfig(page)).autoTradingEnabled).toBe(true);
    await screenshot(page, "screens-04-trading-rules-edited");

    since = Date.now();
    expect(
      await submitForm(page, "/trading-rules", page.getByRole("button", { name: "Save Trading Rules", exact: true })),
    ).toBe(200);
    await expectToastShown(
      page,
      "Trading Rules Saved",
      "Your trading rules have been updated successfully",
      "default",
      since,
    );
    expect(await tradingConfig(page)).toMatchObject(RULES_SAVED_WITH_JS);

    // Reload: the saved values, in percent.
    await gotoHydrated(page, "/trading-rules", "Trading Rules", adminProblems);
    expect(await input(page, "takeProfits[0].portfolio").inputValue()).toBe("25");
    expect(await input(page, "takeProfits[0].priceDeviation").inputValue()).toBe("0.6");
    expect(await input(page, "takeProfits[2].priceDeviation").inputValue()).toBe("2");
    expect(await field(page, "Stop Loss Offset %").inputValue()).toBe("0.8");
    expect(await field(page, "Activation %").inputValue()).toBe("2");
    expect(await field(page, "Execute %").inputValue()).toBe("0.7");
    expect(await input(page, "autoTradingEnabled").isChecked()).toBe(false);
    expect(await input(page, "applyAmountControlToSignals").isChecked()).toBe(true);
    expect(await amountFields.getAttribute("data-shown")).toBe("true");
    expect(await field(page, "Order Size Multiplier").inputValue()).toBe("2.5");
    expect(await field(page, "Signal Amount Type").inputValue()).toBe("usd");
    expect(await field(page, "Signal Amount Value").inputValue()).toBe("50");
    await screenshot(page, "screens-04-trading-rules-saved");
    expect(await maxToastsSeen(page)).toBeLessThanOrEqual(1);
    expect(adminProblems.errors).toEqual([]);
  });

  test("7. Trading Rules: the take-profit total error toast, nothing sent, nothing saved", async () => {
    await start();
    const page = adminPage;
    expect((await page.request.post("/api/trading-config", { data: RULES_SAVED_WITH_JS })).status()).toBe(200);
    await gotoHydrated(page, "/trading-rules", "Trading Rules", adminProblems);
    const before = await tradingConfig(page);
    await input(page, "takeProfits[0].portfolio").fill("35");
    expect(await page.getByTestId("tp-total").innerText()).toBe("Enabled levels total 110%");
    const posts = countRequests(page, (method, path) => method === "POST" && path === "/trading-rules");
    const since = Date.now();
    await page.getByRole("button", { name: "Save Trading Rules", exact: true }).click();
    await expectToastShown(page, "Error Saving Rules", TP_ERROR_110, "destructive", since);
    await visible(page.getByTestId("tp-error").getByText(TP_ERROR_110, { exact: true }));
    await screenshot(page, "screens-05-trading-rules-tp-error");
    posts.stop();
    expect(posts.seen).toEqual([]);
    expect(await tradingConfig(page)).toEqual(before);
    // Fixed as typed, the message goes.
    await input(page, "takeProfits[0].portfolio").fill("25");
    await page.getByTestId("tp-error").waitFor({ state: "detached" });
    expect(adminProblems.errors).toEqual([]);
  });

  test("8. Trading Rules: Apply Rules and Reset Statistics ask first, then call; their toasts", async () => {
    await start();
    const page = adminPage;
    await gotoHydrated(page, "/trading-rules", "Trading Rules", adminProblems);
    const dialogs: string[] = [];
    let answer = false;
    const onDialog = async (dialog: { message(): string; accept(): Promise<void>; dismiss(): Promise<void> }) => {
      dialogs.push(dialog.message());
      await (answer ? dialog.accept() : dialog.dismiss());
    };
    page.on("dialog", onDialog);
    const applyPath = (url: URL) => url.pathname === "/api/positions/apply-rules";
    const resetPath = (url: URL) => url.pathname === "/api/reset-stats";
    let applyAnswer = { status: 200, body: { appliedCount: 2, totalPositions: 3 } as Record<string, unknown> };
    let resetAnswer = { status: 200, body: { success: true } as Record<string, unknown> };
    const calls: string[] = [];
    await page.route(applyPath, (route) => {
      calls.push(`${route.request().method()} apply-rules`);
      return route.fulfill({
        status: applyAnswer.status,
        contentType: "application/json",
        body: JSON.stringify(applyAnswer.body),
      });
    });
    await page.route(resetPath, (route) => {
      calls.push(`${route.request().method()} reset-stats`);
      return route.fulfill({
        status: resetAnswer.status,
        contentType: "application/json",
        body: JSON.stringify(resetAnswer.body),
      });
    });
    try {
      const apply = page.getByRole("button", { name: "Apply Rules to Existing Positions", exact: true });
      const reset = page.getByRole("button", { name: "Reset Statistics", exact: true });
      // Declined: no call.
      await apply.click();
      await reset.click();
      await expect.poll(() => dialogs.length).toBe(2);
      expect(dialogs[0]).toContain("Apply the saved trading rules to all existing open positions?");
      expect(dialogs[1]).toContain("Reset all performance statistics?");
      // The clicks' handlers have run (a round trip to the page comes after them): no call.
      await page.evaluate(() => undefined);
      expect(calls).toEqual([]);

      answer = true;
      let since = Date.now();
      await apply.click();
      await expectToastShown(
        page,
        "Rules Applied",
        "Applied the trading rules to 2 of 3 open positions",
        "default",
        since,
      );
      applyAnswer = { status: 500, body: { error: "Rules engine unavailable" } };
      since = Date.now();
      await apply.click();
      await expectToastShown(page, "Failed to Apply Rules", "Rules engine unavailable", "destructive", since);

      since = Date.now();
      await reset.click();
      await expectToastShown(
        page,
        "Statistics Reset",
        "All trades, signals, positions and activity logs have been deleted",
        "default",
        since,
      );
      resetAnswer = { status: 500, body: { error: "Database busy" } };
      since = Date.now();
      await reset.click();
      await expectToastShown(page, "Reset Failed", "Database busy", "destructive", since);
      expect(calls).toEqual(["POST apply-rules", "POST apply-rules", "POST reset-stats", "POST reset-stats"]);
      await screenshot(page, "screens-06-trading-rules-reset-failed");
    } finally {
      page.off("dialog", onDialog);
      await page.unroute(applyPath);
      await page.unroute(resetPath);
    }
    expect(await maxToastsSeen(page)).toBeLessThanOrEqual(1);
    expect(adminProblems.errors.filter((e) => !e.includes("status of 500"))).toEqual([]);
    adminProblems.clear();
  });

  test("9. Trading Rules without JavaScript: every section shown, a plain post saves, reload shows the values, the total error on the page", async () => {
    await start();
    expect((await adminPage.request.post("/api/trading-config", { data: RULES_SAVED_WITH_JS })).status()).toBe(200);
    const page = await signedInWithoutJs(browser, baseUrl, adminContext);
    try {
      const problems = watchProblems(page);
      const response = await page.goto("/trading-rules");
      expect(response?.status()).toBe(200);
      await visible(h1(page, "Trading Rules"));
      // Nothing can hide a section without JavaScript: every conditional field is there.
      for (const testId of ["amount-control-fields", "breakeven-details", "trailing-details"]) {
        expect(await page.getByTestId(testId).getAttribute("data-shown"), testId).toBe("true");
      }
      // The values stored before (as test 6 saves them with JavaScript).
      expect(await input(page, "takeProfits[0].portfolio").inputValue()).toBe("25");
      expect(await input(page, "autoTradingEnabled").isChecked()).toBe(false);

      await input(page, "takeProfits[0].portfolio").fill("20");
      await input(page, "takeProfits[0].priceDeviation").fill("0.5");
      await input(page, "takeProfits[1].portfolio").fill("30");
      await input(page, "takeProfits[2].enabled").uncheck();
      await input(page, "takeProfits[1].portfolio").fill("80");
      await field(page, "Stop Loss Offset %").fill("0.6");
      await input(page, "autoTradingEnabled").check();
      await input(page, "applyAmountControlToSignals").uncheck();
      await field(page, "Order Size Multiplier").fill("50"); // out of range: falls back to 1
      await input(page, "trailingStopEnabled").uncheck();
      await screenshot(page, "screens-07-trading-rules-nojs");

      expect(
        await submitForm(page, "/trading-rules", page.getByRole("button", { name: "Save Trading Rules", exact: true })),
      ).toBe(302);
      await page.waitForLoadState("load");
      expect(pathOf(page)).toBe("/trading-rules");
      await expectToastOnScreen(page, "Trading Rules Saved", "Your trading rules have been updated successfully");
      const stored = await tradingConfig(page);
      expect(stored).toMatchObject({
        takeProfits: [
          { portfolio: 0.2, priceDeviation: 0.005, enabled: true },
          { portfolio: 0.8, priceDeviation: 0.01, enabled: true },
          { portfolio: 0.5, priceDeviation: 0.02, enabled: false },
        ],
        stopLossOffset: 0.006,
        autoTradingEnabled: true,
        applyAmountControlToSignals: false,
        orderSizeMultiplier: "1",
        // Switched-off sections keep their stored details.
        signalAmountType: "usd",
        signalAmountValue: "50",
        trailingStopEnabled: false,
        trailingStop: { activation: 0.02, execute: 0.007 },
      });

      // Reload: the saved values.
      await page.reload();
      await visible(h1(page, "Trading Rules"));
      expect(await input(page, "takeProfits[0].portfolio").inputValue()).toBe("20");
      expect(await input(page, "takeProfits[1].portfolio").inputValue()).toBe("80");
      expect(await input(page, "takeProfits[2].enabled").isChecked()).toBe(false);
      expect(await field(page, "Stop Loss Offset %").inputValue()).toBe("0.6");
      expect(await field(page, "Order Size Multiplier").inputValue()).toBe("1");
      expect(await input(page, "autoTradingEnabled").isChecked()).toBe(true);
      expect(await input(page, "applyAmountControlToSignals").isChecked()).toBe(false);
      expect(await input(page, "trailingStopEnabled").isChecked()).toBe(false);
      await screenshot(page, "screens-07-trading-rules-nojs-saved");

      // The total rule, checked by the server: the page again with the message, values kept.
      await input(page, "takeProfits[2].enabled").check();
      await input(page, "takeProfits[1].portfolio").fill("40");
      await input(page, "takeProfits[2].portfolio").fill("50");
      expect(
        await submitForm(page, "/trading-rules", page.getByRole("button", { name: "Save Trading Rules", exact: true })),
      ).toBe(400);
      await page.waitForLoadState("load");
      const alert = page.getByTestId("rules-error");
      await visible(alert);
      expect(squash(await alert.innerText())).toBe(`Error Saving Rules ${TP_ERROR_110}`);
      await visible(page.getByTestId("tp-error").getByText(TP_ERROR_110, { exact: true }));
      expect(await input(page, "takeProfits[1].portfolio").inputValue()).toBe("40");
      expect((await tradingConfig(page)).takeProfits[1]!.portfolio).toBe(0.8);
      await screenshot(page, "screens-07-trading-rules-nojs-error");
      expect(problems.errors.filter((e) => !e.includes("status of 400"))).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  test("10. the other Trade History paths show the same screen; Manual Trading without JavaScript places an order", async () => {
    await start();
    const page = adminPage;
    await placeManualBuy(page);
    for (const path of ["/trade-history", "/trades", "/signals"]) {
      await gotoHydrated(page, path, "Trade History", adminProblems);
      await expect.poll(() => tradeRows(page).count()).toBe(1);
    }
    await screenshot(page, "screens-08-trade-history-signals-path");

    const nojs = await signedInWithoutJs(browser, baseUrl, adminContext);
    try {
      await nojs.goto("/manual-trading");
      await visible(h1(nojs, "Manual Trading"));
      const form = nojs.getByTestId("manual-trade-form");
      await form.getByLabel("Order type", { exact: true }).selectOption("limit");
      await form.getByLabel("Quantity", { exact: true }).fill("0.01");
      await form.getByLabel("Price", { exact: true }).fill("100");
      expect(
        await submitForm(nojs, "/manual-trading", form.getByRole("button", { name: "Buy / Long", exact: true })),
      ).toBe(302);
      await nojs.waitForLoadState("load");
      // A limit far below the market rests: the toast says so, not 'Trade Executed' (issue 11).
      await expectToastOnScreen(
        nojs,
        "Limit order resting",
        "BUY 0.01 ETH-PERP @ 100 waits on the exchange: see Open orders on Positions",
      );
      await screenshot(nojs, "screens-09-manual-trading-nojs");
      // A resting limit: pending in the history (server-rendered, no JavaScript).
      await nojs.goto("/history?status=pending");
      await expect.poll(() => tradeRows(nojs).count(), { timeout: 10_000 }).toBe(1);
      expect(await tradeRows(nojs).first().getAttribute("data-status")).toBe("pending");
      await screenshot(nojs, "screens-09-trade-history-nojs-filtered");
    } finally {
      await nojs.context().close();
    }
    expect(adminProblems.errors).toEqual([]);
  });

  test("11. Trade History pages (issue 22): 50 a page; Older loads in place with JavaScript and is a link without it; the header counts the filter's orders", async () => {
    await start();
    const page = adminPage;
    // The newest order: test 2's manual BUY (placed through the API).
    await placeManualBuy(page);
    // 60 older XRP orders (cancelled: no fill, no P&L), one a minute from 2026-01-01.
    const firstAt = Date.parse("2026-01-01T00:00:00Z");
    withAppDatabase(screensApp!, (db) => {
      const insert = db.query(
        "INSERT INTO trades (id, symbol, side, order_type, quantity, status, source, client_order_id, exchange, created_at, updated_at) VALUES (?, 'XRP-PERP', 'buy', 'market', '10', 'cancelled', 'manual', ?, 'simulator', ?, ?)",
      );
      for (let i = 0; i < 60; i++)
        insert.run(
          `paging-${String(i).padStart(3, "0")}`,
          `pd-paging-${i}`,
          firstAt + i * 60_000,
          firstAt + i * 60_000,
        );
    });
    const xrpIds = Array.from({ length: 60 }, (_, i) => `paging-${String(59 - i).padStart(3, "0")}`);
    const total = (await apiJson<TradeJson[]>(page, "/api/trades?limit=1000")).length;
    expect(total).toBeGreaterThan(60);
    expect(total).toBeLessThanOrEqual(100);
    const rowIds = (p: Page) => tradeRows(p).evaluateAll((rows) => rows.map((r) => r.getAttribute("data-trade-id")));

    // With JavaScript: the newest 50, then Older appends the rest in place (same URL), each row once.
    await gotoHydrated(page, "/history", "Trade History", adminProblems);
    await expect.poll(() => tradeRows(page).count()).toBe(50);
    expect(await cardLines(page, "card-total-trades")).toEqual(["Total Trades", String(total), "All orders"]);
    const url = page.url();
    await page.getByTestId("trades-older").click();
    await expect.poll(() => tradeRows(page).count()).toBe(total);
    expect(page.url()).toBe(url);
    const ids = await rowIds(page);
    expect(new Set(ids).size).toBe(total);
    expect(ids.slice(-60)).toEqual(xrpIds);
    expect(await page.getByTestId("trades-older").count()).toBe(0);

    // A filter typed applies on the server: the cards count its orders, the rows page again.
    await page.getByTestId("trade-filters").getByLabel("Symbol", { exact: true }).fill("xrp");
    await expect
      .poll(() => cardLines(page, "card-total-trades"), { timeout: 10_000 })
      .toEqual(["Total Trades", "60", "Matching the filters"]);
    expect(new URL(page.url()).search).toBe("?symbol=xrp");
    await expect.poll(() => tradeRows(page).count()).toBe(50);
    await expect
      .poll(() => cardLines(page, "card-trade-pnl"))
      .toEqual(["P&L", "0.00", "All time, net of fees: 0 closing trades"]);
    await page.getByTestId("trades-older").click();
    await expect.poll(() => tradeRows(page).count()).toBe(60);
    expect(await rowIds(page)).toEqual(xrpIds);
    await screenshot(page, "screens-10-trade-history-paged");
    await page.getByTestId("trade-clear-filters").click();
    await expect.poll(() => tradeRows(page).count()).toBe(50);
    expect(adminProblems.errors).toEqual([]);

    // Without JavaScript: the same pages through the Older link (?before=), and back to newest.
    const nojs = await signedInWithoutJs(browser, baseUrl, adminContext);
    try {
      await nojs.goto("/history?symbol=xrp");
      await expect.poll(() => tradeRows(nojs).count(), { timeout: 10_000 }).toBe(50);
      expect(await cardLines(nojs, "card-total-trades")).toEqual(["Total Trades", "60", "Matching the filters"]);
      // Export is a link to the page's CSV: the filter's 50 newest rows, the columns of the file the browser writes.
      const [download] = await Promise.all([
        nojs.waitForEvent("download", { timeout: 10_000 }),
        nojs.getByRole("link", { name: "Export", exact: true }).click(),
      ]);
      expect(download.suggestedFilename()).toBe("trade-history.csv");
      const exported = readFileSync((await download.path())!, "utf8")
        .trim()
        .split("\r\n");
      expect(exported.length).toBe(51);
      expect(exported.slice(1).map((line) => line.split(",").at(-2))).toEqual(xrpIds.slice(0, 50));
      // The P&L card's figure comes with the page (the loader's GET /api/closed-trades-pnl for the filter).
      expect(await cardLines(nojs, "card-trade-pnl")).toEqual([
        "P&L",
        "0.00",
        "All time, net of fees: 0 closing trades",
      ]);
      expect(await rowIds(nojs)).toEqual(xrpIds.slice(0, 50));
      const older = nojs.getByTestId("trades-older");
      expect(await older.getAttribute("href")).toMatch(/^\/history\?symbol=xrp&before=\d+_paging-010$/);
      await older.click();
      await nojs.waitForURL(/before=/);
      await expect.poll(() => tradeRows(nojs).count(), { timeout: 10_000 }).toBe(10);
      expect(await rowIds(nojs)).toEqual(xrpIds.slice(50));
      expect(await nojs.getByTestId("trades-older").count()).toBe(0);
      await screenshot(nojs, "screens-11-trade-history-nojs-older");
      await nojs.getByRole("link", { name: "back to newest", exact: true }).click();
      await nojs.waitForURL((u) => !u.search.includes("before="));
      await expect.poll(() => tradeRows(nojs).count(), { timeout: 10_000 }).toBe(50);
    } finally {
      await nojs.context().close();
    }
  });

  test("12. Trade History at 390 px: a card per trade, no sideways scroll, with and without JavaScript; Positions at 1440 px: ROI and Status clear of the sticky Close column (issue 25)", async () => {
    await start();
    const page = adminPage;
    const trade = await placeManualBuy(page);
    const pageWidth = (p: Page) => p.evaluate(() => document.documentElement.scrollWidth);
    // The table's head row, visually hidden when CSS lays the rows out as cards (ui/phone-cards.css.ts).
    const headWidth = async (p: Page) =>
      (await p.getByTestId("trade-history-table").locator("thead").boundingBox())?.width ?? 0;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await gotoHydrated(page, "/trade-history", "Trade History", adminProblems);
      // The trade's row, laid out as a card (one markup per row, issue 24).
      const card = page.locator(`[data-testid=trade-row][data-trade-id="${trade.id}"]`);
      await visible(card);
      expect(await headWidth(page)).toBeLessThanOrEqual(1);
      expect(await pageWidth(page)).toBeLessThanOrEqual(390);
      expect(await cardText(card)).toMatch(
        /^ETH-PERP BUY 0\.0200 · market · manual .+ executed Entry \d+\.\d{4} Max Drawdown .+% TP Manual SL None BE Inactive Trailing Inactive Portfolio 100% P\/L — ROI .+$/,
      );
      // With JavaScript the card opens the row's details in place, still within the screen.
      const expand = card.getByTestId("trade-expand");
      expect(await expand.getAttribute("aria-label")).toMatch(/^Show details of trade /);
      await expand.click();
      await visible(
        page.locator(`[data-testid=trade-details-row][data-trade-id="${trade.id}"]`).getByTestId("trade-details"),
      );
      expect(await pageWidth(page)).toBeLessThanOrEqual(390);
      await screenshot(page, "screens-12-trade-history-390");
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }

    const nojs = await signedInWithoutJs(browser, baseUrl, adminContext);
    try {
      await nojs.setViewportSize({ width: 390, height: 844 });
      await nojs.goto("/trade-history");
      const card = nojs.locator(`[data-testid=trade-row][data-trade-id="${trade.id}"]`);
      await visible(card);
      expect(await headWidth(nojs)).toBeLessThanOrEqual(1);
      expect(await cardText(card)).toMatch(/^ETH-PERP BUY 0\.0200 · market · manual .+ executed Entry \d+\.\d{4} /);
      expect(await pageWidth(nojs)).toBeLessThanOrEqual(390);
      await screenshot(nojs, "screens-12-trade-history-390-nojs");
    } finally {
      await nojs.context().close();
    }

    await page.setViewportSize({ width: 1440, height: 900 });
    try {
      await gotoHydrated(page, "/positions", "Futures Positions", adminProblems);
      await visible(page.getByTestId("position-row"));
      // The table fits its container, so the right-sticky Actions column covers nothing.
      const box = async (name: string) =>
        (await page
          .getByTestId("positions-table")
          .locator("thead th")
          .filter({ hasText: new RegExp(`^${name}$`) })
          .boundingBox())!;
      const [roi, status, actions] = [await box("ROI"), await box("Status"), await box("Actions")];
      expect(roi.x + roi.width).toBeLessThanOrEqual(status.x + 1);
      expect(status.x + status.width).toBeLessThanOrEqual(actions.x + 1);
      expect(
        await page
          .getByTestId("positions-table")
          .evaluate((t) => t.parentElement!.scrollWidth - t.parentElement!.clientWidth),
      ).toBeLessThanOrEqual(0);
      await screenshot(page, "screens-12-positions-1440");
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    expect(adminProblems.errors).toEqual([]);
  });
});
