// The Dashboard in a real browser (docs/spec/screens.md Dashboard, screens.md#states, api.md, api.md#errors, figures.md#defaults-and-limits), on its OWN app
// instance (a fresh SQLite DATA_DIR, started from the global setup's frozen build), so the
// first account registered here is the admin whatever order the files run in.
// Live status and the header, the four status cards, the Signals panel, the admin's Webhook
// Endpoint box and its copy button; a TradingView webhook followed live to its order and
// position; Emergency Stop and its reset; Stop and flatten (its confirm dialog); the Manual Trading form; the Activity Log panel's
// filter and CSV export; a non-admin's dashboard; the Webhook Config screen and its alert
// template builder (with and without JavaScript, at 1440 and 390 px); the dashboard
// without JavaScript; and no page or console errors anywhere.
// Each test signs in on its own (suite.login), starts from a clean slate (resetTrading) and
// makes the signals, orders and positions it looks at itself (the webhook BUY of test 2, the
// skipped signal of test 3, the test alert of 7d, the manual SELL of test 4), so any one runs
// alone (`-t`) and in any order (docs/decisions/045-browser-tests-login-fixture.md). Every test
// checks its own pages for page and console errors and for one toast at a time.
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { ALERT_PLACEHOLDERS } from "../setup/fixtures.ts";
import {
  type Locator,
  type Page,
  type PageProblems,
  type RunningApp,
  type Session,
  apiJson,
  cardLines,
  expectToastOnScreen,
  expectToastShown,
  fetchHealth,
  h1,
  liveSocketReady,
  maxToastsSeen,
  pathOf,
  resetTrading,
  screenshot,
  squash,
  submitForm,
  submitLogin,
  useSuite,
  visible,
  waitForHydration,
  waitForSystemStatus,
} from "./utils.ts";

const ADMIN = { username: "dash_admin", password: "dash-admin-secret-1" };

const WEBHOOK_PATH = "/api/webhook/tradingview";
// The server's messages (app/services/trading.server.ts), shown in the toasts.
const EMERGENCY_STOP_MESSAGE =
  "Emergency stop activated: no new positions are opened until it is reset; stop-loss, take-profit and Close keep working";
const EMERGENCY_RESET_MESSAGE = "Emergency stop reset: trading resumed";
const CSV_HEADER = "Timestamp,Type,Level,Message,Data";

let app: RunningApp | undefined;
let baseUrl: string;
let login: (options?: { role?: "admin" | "trader"; javaScriptEnabled?: boolean }) => Promise<Session>;
let initialConfig: Record<string, unknown>;
// The running test's own admin page (set by start()).
let adminPage: Page;
let adminProblems: PageProblems;

// Prices from a fake Coinbase that hold still: on the random walk an open position's stop-loss
// or take-profit could fire during a test and add a "rule" order it does not expect.
useSuite(
  {
    label: "dashboard",
    port: 5103,
    permissions: ["clipboard-read", "clipboard-write"],
    pricesPort: 5303,
    admin: ADMIN,
  },
  (suite) => {
    ({ app, baseUrl, login, initialConfig } = suite);
  },
);

/** The test's own start: the admin signed in on a new context, nothing open, no signals, trades or activity, the fresh app's rules. */
async function start(): Promise<void> {
  ({ page: adminPage, problems: adminProblems } = await login());
  await resetTrading(adminPage, initialConfig);
}

/**
 * Without JavaScript: the header's `press` button posts its plain form and the browser lands on
 * the dashboard again with the flash toast; the button `shown` has replaced it.
 */
async function postHeaderButton(
  page: Page,
  press: string,
  shown: string,
  toast: { title: string; message: string; variant?: string },
): Promise<void> {
  expect(await submitForm(page, "/dashboard", page.getByRole("button", { name: press, exact: true }))).toBe(302);
  await page.waitForLoadState("load");
  expect(pathOf(page)).toBe("/dashboard");
  await expectToastOnScreen(page, toast.title, toast.message);
  if (toast.variant) expect(await page.getByTestId("toast").getAttribute("data-variant")).toBe(toast.variant);
  await visible(page.getByRole("button", { name: shown, exact: true }));
  expect(await page.getByRole("button", { name: press, exact: true }).count()).toBe(0);
}

/** A fresh admin session on the dashboard, holding test 2's long of 0.05 ETH-PERP. */
async function adminDashboardWithLong(): Promise<Page> {
  await start();
  await signalBought();
  await gotoDashboard(adminPage, adminProblems);
  return adminPage;
}

/** Opens the dashboard on `page` (hydrated, its live socket said hello: every live event reaches it from here). */
async function gotoDashboard(page: Page, problems: PageProblems): Promise<void> {
  const socket = liveSocketReady(page);
  expect((await page.goto("/dashboard"))?.status()).toBe(200);
  await visible(h1(page, "Dashboard"));
  await waitForHydration(page, problems);
  await socket;
}

/** No page or console errors on `problems`' page, and never more than one toast at a time on it. */
async function expectCleanPage(page: Page, problems: PageProblems): Promise<void> {
  expect(problems.errors).toEqual([]);
  expect(await maxToastsSeen(page)).toBeLessThanOrEqual(1);
}

// --- small page helpers ------------------------------------------------------------------

const signalRows = (page: Page) => page.getByTestId("signals-panel").getByTestId("signal-row");
const orderRows = (page: Page) => page.getByTestId("recent-orders").getByTestId("order-row");
const positionRows = (page: Page) => page.getByTestId("open-positions").getByTestId("position-row");
/** Table rows as their cells' texts. */
const rowCells = (rows: Locator) =>
  rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => (td.textContent ?? "").trim())));

async function readClipboard(page: Page): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText());
}

/** The admin's webhook secret, from GET /api/webhook-config with the admin's cookies. */
async function webhookSecret(): Promise<string> {
  const res = await adminPage.request.get("/api/webhook-config");
  expect(res.status()).toBe(200);
  const body = (await res.json()) as { secret: string; url: string };
  expect(typeof body.secret).toBe("string");
  expect(body.secret.length).toBeGreaterThan(0);
  return body.secret;
}

/** A TradingView alert: a POST with a JSON body sent as text/plain, the secret in the body. */
async function sendWebhook(body: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${baseUrl}${WEBHOOK_PATH}`, {
    method: "POST",
    headers: { "Content-Type": "text/plain; charset=utf-8" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The local date as YYYY-MM-DD. */
function localDate(at = new Date()) {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}

/** The app's exchange prices are fresh (the worker's price loop is running). */
const waitForPrices = () =>
  waitForSystemStatus(
    baseUrl,
    { webhook: "online", coinbase_api: "online" },
    "GET /api/health: webhook and coinbase_api online",
  );

interface PositionJson {
  symbol: string;
  side: string;
  quantity: string;
  remainingQuantity: string;
  status: string;
}

/** Waits until the open ETH-PERP position holds `quantity`. */
async function ethPositionHolds(quantity: string): Promise<void> {
  await expect
    .poll(
      async () =>
        (await apiJson<PositionJson[]>(adminPage, "/api/positions"))
          .filter((p) => p.symbol === "ETH-PERP" && p.status === "open")
          .map((p) => `${p.side.toLowerCase()} ${Number(p.remainingQuantity)}`),
      { timeout: 20_000, message: `an open ETH-PERP position of ${quantity}` },
    )
    .toEqual([`long ${Number(quantity)}`]);
}

/** Test 2's TradingView alert (a BUY of 0.05 ETH-PERP), sent and executed: one signal, one order, the position. */
async function signalBought(): Promise<void> {
  await waitForPrices();
  const answer = await sendEthBuy("0.05", "e2e-dashboard-long");
  expect(answer.body).toMatchObject({ success: true, status: "queued" });
  await ethPositionHolds("0.05");
}

/** A market BUY of `quantity` ETH-PERP (ticker ETHUSDT.P) from `strategy`, sent now as TradingView sends it. */
async function sendEthBuy(quantity: string, strategy: string, secret?: string) {
  return sendWebhook({
    secret: secret ?? (await webhookSecret()),
    action: "buy",
    symbol: "ETHUSDT.P",
    quantity,
    order_type: "market",
    timestamp: new Date().toISOString(),
    strategy,
  });
}

/** Test 3's alert during an emergency stop (a BUY of 0.02, skipped: no order), the stop reset after it. */
async function signalSkipped(): Promise<void> {
  expect((await adminPage.request.post("/api/emergency-stop")).status()).toBe(200);
  const answer = await sendEthBuy("0.02", "e2e-dashboard-during-stop");
  expect(answer.body).toMatchObject({ success: true, status: "skipped" });
  expect((await adminPage.request.post("/api/reset-emergency-stop")).status()).toBe(200);
}

/** Test 7d's Send test alert (a BUY of 0.01 ETH-PERP on the simulator's test account), posted as Webhook Config's form does, until its signal settled. */
async function testAlertSent(): Promise<void> {
  const sent = await adminPage.request.post("/webhook", {
    form: {
      intent: "test-alert",
      builder: "alert=1&alert_mode=entry&alert_symbol=ETH-PERP&alert_timenow=on&alert_dedupe=on",
    },
    maxRedirects: 0,
  });
  expect(sent.status()).toBe(302);
  const signalId = new URL(sent.headers().location!, baseUrl).searchParams.get("testSignal");
  expect(signalId).toBeTruthy();
  await expect
    .poll(
      async () =>
        (await apiJson<{ id: string; status: string }[]>(adminPage, "/api/signals?limit=20")).find(
          (s) => s.id === signalId,
        )?.status,
      { timeout: 20_000, message: "the test alert's signal executed" },
    )
    .toBe("executed");
}

/** Test 4's manual market SELL of 0.01 ETH-PERP (through POST /api/trades), executed: the long is 0.04 after it. */
async function manualSell(): Promise<void> {
  const placed = await adminPage.request.post("/api/trades", {
    data: { symbol: "ETH-PERP", side: "sell", orderType: "market", amountType: "quantity", quantity: "0.01" },
  });
  expect(placed.status(), await placed.text()).toBe(201);
  await ethPositionHolds("0.04");
}

// --- the suite ---------------------------------------------------------------------------

describe("dashboard (SQLite, own instance)", () => {
  test("1. the admin's dashboard: Connected, no signals yet, the four cards, the empty Signals panel, the Webhook Endpoint box and its copy button", async () => {
    await start();
    const page = adminPage;
    await waitForPrices();
    const me = await apiJson<{ username: string; role: string }>(page, "/api/user");
    expect(me).toMatchObject({ username: ADMIN.username, role: "admin" });
    await gotoDashboard(page, adminProblems);

    // Header: live status, last signal, Emergency Stop.
    await expect.poll(() => page.getByTestId("connection-status").innerText(), { timeout: 10_000 }).toBe("Connected");
    expect(await page.getByTestId("last-signal").innerText()).toBe("Last signal: No signals yet");
    await visible(page.getByRole("button", { name: "Emergency Stop", exact: true }));
    expect(await page.getByRole("button", { name: "Reset Emergency Stop", exact: true }).count()).toBe(0);

    // The four status cards.
    expect((await cardLines(page, "card-webhook")).slice(0, 2)).toEqual(["Webhook Status", "online"]);
    expect((await cardLines(page, "card-exchange")).slice(0, 2)).toEqual(["Exchange API", "connected"]);
    expect((await cardLines(page, "card-active-trades")).slice(0, 2)).toEqual(["Active Trades", "0"]);
    expect((await cardLines(page, "card-pnl")).slice(0, 2)).toEqual(["24h P&L", "0.00"]);

    // The Signals panel: 'Live' badge, empty state.
    const signals = page.getByTestId("signals-panel");
    await visible(signals.getByRole("heading", { name: "Signals", exact: true }));
    expect(await page.getByTestId("signals-live-badge").innerText()).toBe("Live");
    await visible(signals.getByText("No signals received yet", { exact: true }));
    await visible(signals.getByText("Waiting for TradingView webhooks...", { exact: true }));
    expect(await signalRows(page).count()).toBe(0);
    await visible(page.getByTestId("recent-orders").getByText("No orders yet", { exact: true }));
    await visible(page.getByTestId("open-positions").getByText("No open positions", { exact: true }));

    // The Webhook Endpoint box (admin): the URL, the copy button, the port.
    const box = page.getByTestId("webhook-url-box");
    await visible(box.getByRole("heading", { name: "Webhook Endpoint", exact: true }));
    const expectedUrl = `${baseUrl}${WEBHOOK_PATH}`;
    expect(await box.getByTestId("webhook-url").inputValue()).toBe(expectedUrl);
    expect(squash(await box.innerText())).toContain(`Webhook port: ${app!.port}.`);
    const since = Date.now();
    await box.getByRole("button", { name: "Copy webhook URL", exact: true }).click();
    await expectToastShown(page, "Copied", "Webhook URL copied to the clipboard", "default", since);
    expect(await readClipboard(page)).toBe(expectedUrl);

    await screenshot(page, "dashboard-01-empty");
    await expectCleanPage(page, adminProblems);
  });

  test("2. a TradingView webhook, live: toast, signal row, EXECUTED, the order, the position, Active Trades 1, 'Just now'", async () => {
    await start();
    const page = adminPage;
    await waitForPrices();
    const secret = await webhookSecret();
    await gotoDashboard(page, adminProblems);
    expect(await signalRows(page).count()).toBe(0);
    // No reload from here on: the page keeps this marker.
    await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
    const since = Date.now();
    const answer = await sendEthBuy("0.05", "e2e-dashboard-long", secret);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: true, status: "queued" });

    await expectToastShown(page, "New Signal Received", "BUY signal for ETH-PERP", "default", since);

    // The signal row, without a reload.
    await expect.poll(() => signalRows(page).count(), { timeout: 10_000 }).toBe(1);
    const row = signalRows(page).first();
    const rowText = squash(await row.innerText());
    expect(rowText).toMatch(/^BUY Signal (PENDING|EXECUTED) Just now ETH-PERP \(alert: ETHUSDT\.P\) · market /);
    expect(rowText).toContain('"action":"buy"');
    expect(rowText).toContain('"symbol":"ETH-PERP"');
    expect(rowText).toContain('"qty":"0.05"');
    expect(await page.getByTestId("signals-panel").getByText("No signals received yet").count()).toBe(0);

    // Executed by the worker; the live refresh is throttled (5 s per message type).
    await expect.poll(() => row.getByText("EXECUTED", { exact: true }).count(), { timeout: 15_000 }).toBe(1);

    // The order and the position.
    await expect
      .poll(() => rowCells(orderRows(page)), { timeout: 15_000 })
      .toEqual([["ETH-PERP", "BUY", "0.0500", expect.stringMatching(/^\d[\d,]*\.\d{4}$/), "signal", "executed"]]);
    await expect
      .poll(async () => (await positionRows(page).allInnerTexts()).map(squash), { timeout: 15_000 })
      .toEqual([expect.stringMatching(/^ETH-PERP LONG 0\.0500 /)]);

    // Cards and header.
    await expect.poll(async () => (await cardLines(page, "card-active-trades"))[1], { timeout: 15_000 }).toBe("1");
    await expect
      .poll(() => page.getByTestId("last-signal").innerText(), { timeout: 10_000 })
      .toBe("Last signal: Just now");

    expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
    await screenshot(page, "dashboard-02-signal-executed");
    await expectCleanPage(page, adminProblems);
  });

  test("2b. a browser clock 90 s ahead of the server's: the relative times are corrected after hydration, no hydration error", async () => {
    // The server renders "Just now" / "N minutes ago" with its clock, the browser hydrates with
    // its own: the labels differ, which must not break the page (React error #418 took the
    // dashboard to its error screen).
    await start();
    // A signal a little while ago: its "Last signal" label is the one the clocks disagree on.
    await signalBought();
    const { page, problems } = await login();
    const server = Date.now();
    await page.clock.install({ time: server + 90_000 });
    // The server's label is read from the HTML it sent: by the time goto() returns, the page
    // may already be hydrated and showing the browser's label (CI read that one as "ssr").
    const response = await page.goto("/dashboard");
    const ssr = /data-testid="last-signal"[^>]*>([^<]*)</.exec((await response?.text()) ?? "")?.[1] ?? "";
    expect(ssr).toMatch(/^Last signal: /);
    await waitForHydration(page, problems);
    await expect.poll(() => page.getByTestId("last-signal").innerText(), { timeout: 10_000 }).not.toBe(ssr);
    expect(await page.getByTestId("last-signal").innerText()).toMatch(/^Last signal: \d+ minutes? ago$/);
    expect(await page.getByText("Something went wrong").count()).toBe(0);
    await visible(page.getByTestId("signals-panel"));
    await expectCleanPage(page, problems);
  });

  test("3. Emergency Stop from the header: toast, Reset button, a webhook is 'skipped' with no order; Reset", async () => {
    // Test 2's signal, executed: the skipped one below is the newest of two.
    const page = await adminDashboardWithLong();
    const secret = await webhookSecret();
    await expect.poll(() => signalRows(page).count(), { timeout: 10_000 }).toBe(1);
    const tradesBefore = await apiJson<unknown[]>(page, "/api/trades?limit=50");
    await expect.poll(() => orderRows(page).count(), { timeout: 10_000 }).toBe(tradesBefore.length);
    const orderRowsBefore = await orderRows(page).count();

    let since = Date.now();
    await page.getByRole("button", { name: "Emergency Stop", exact: true }).click();
    await expectToastShown(page, "Emergency Stop Activated", EMERGENCY_STOP_MESSAGE, "destructive", since);
    await visible(page.getByRole("button", { name: "Reset Emergency Stop", exact: true }));
    expect(await page.getByRole("button", { name: "Emergency Stop", exact: true }).count()).toBe(0);
    await screenshot(page, "dashboard-03-emergency-stop");

    // An entry now is stored, not executed (a BUY adds to the long; a SELL would only reduce it,
    // which the emergency stop lets through: decision 019).
    const answer = await sendEthBuy("0.02", "e2e-dashboard-during-stop", secret);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: true, status: "skipped" });
    expect(String(answer.body.reason)).toContain("Emergency stop");
    const signalId = String(answer.body.signalId);

    // It shows as the newest signal, SKIPPED (live refresh, throttled).
    await expect.poll(() => signalRows(page).count(), { timeout: 15_000 }).toBe(2);
    const newest = signalRows(page).first();
    expect(squash(await newest.innerText())).toMatch(
      /^BUY Signal \S+ Just now ETH-PERP \(alert: ETHUSDT\.P\) · market /,
    );
    await expect.poll(() => newest.getByText("SKIPPED", { exact: true }).count(), { timeout: 15_000 }).toBe(1);
    const stored = (
      await apiJson<{ id: string; processed: boolean; status: string }[]>(page, "/api/signals?limit=10")
    ).find((s) => s.id === signalId);
    expect(stored).toMatchObject({ processed: false, status: "skipped" });
    // No order for it: neither in the API nor in the panel.
    expect(await apiJson<unknown[]>(page, "/api/trades?limit=50")).toHaveLength(tradesBefore.length);
    expect(await orderRows(page).count()).toBe(orderRowsBefore);

    // Reset.
    since = Date.now();
    await page.getByRole("button", { name: "Reset Emergency Stop", exact: true }).click();
    await expectToastShown(page, "Emergency Stop Reset", EMERGENCY_RESET_MESSAGE, "default", since);
    await visible(page.getByRole("button", { name: "Emergency Stop", exact: true }));
    expect(await page.getByRole("button", { name: "Reset Emergency Stop", exact: true }).count()).toBe(0);
    expect(await apiJson<unknown[]>(page, "/api/trades?limit=50")).toHaveLength(tradesBefore.length);
    await expectCleanPage(page, adminProblems);
  });

  test("3b. Stop and flatten asks first: dismissed, nothing is posted and trading goes on; accepted, the emergency stop is on and the account flat", async () => {
    const page = await adminDashboardWithLong();
    await expect.poll(() => positionRows(page).count(), { timeout: 10_000 }).toBe(1);

    const dialogs: string[] = [];
    let accept = false;
    const onDialog = async (dialog: { message(): string; accept(): Promise<void>; dismiss(): Promise<void> }) => {
      dialogs.push(dialog.message());
      await (accept ? dialog.accept() : dialog.dismiss());
    };
    const posts: string[] = [];
    const onRequest = (request: { method(): string; url(): string; postData(): string | null }) => {
      if (request.method() === "POST" && (request.postData() ?? "").includes("flatten")) posts.push(request.url());
    };
    page.on("dialog", onDialog);
    page.on("request", onRequest);
    try {
      // Dismissed: no post, the emergency stop stays off, the position stays.
      await page.getByTestId("stop-and-flatten").click();
      await expect.poll(() => dialogs.length).toBe(1);
      expect(dialogs[0]).toBe(
        "Stop and flatten? The emergency stop turns on (no new positions until an admin resets it), every resting order is cancelled and every open position is closed at market.",
      );
      await page.evaluate(() => undefined);
      expect(posts).toEqual([]);
      await expect.poll(() => positionRows(page).count()).toBe(1);
      await visible(page.getByRole("button", { name: "Emergency Stop", exact: true }));

      // Accepted: one post (confirm=1); the stop turns on and the position is closed.
      accept = true;
      const since = Date.now();
      await page.getByTestId("stop-and-flatten").click();
      await expectToastShown(
        page,
        "Account Flat",
        "Emergency stop active. 1 position closed, 0 orders cancelled; the exchange reports no open position",
        "default",
        since,
      );
      expect(dialogs).toHaveLength(2);
      expect(posts).toHaveLength(1);
    } finally {
      page.off("dialog", onDialog);
      page.off("request", onRequest);
    }
    await visible(page.getByRole("button", { name: "Reset Emergency Stop", exact: true }));
    await expect.poll(() => positionRows(page).count(), { timeout: 10_000 }).toBe(0);
    expect((await apiJson<PositionJson[]>(page, "/api/positions")).filter((p) => p.status === "open")).toEqual([]);
    expect(await page.getByRole("button", { name: "Emergency Stop", exact: true }).count()).toBe(0);
    // The flattened button now reads "Flatten all" (the stop is already on).
    await visible(page.getByTestId("stop-and-flatten").getByText("Flatten all", { exact: true }));
    expect((await page.request.post("/api/reset-emergency-stop")).status()).toBe(200);
    await expectCleanPage(page, adminProblems);
  });

  test("4. Manual Trading form: required amount, limit price, 'Market Price', a market SELL of 0.01 ETH-PERP", async () => {
    // Test 2's long of 0.05 ETH-PERP, which the SELL below reduces.
    const page = await adminDashboardWithLong();
    const form = page.getByTestId("manual-trade-form");
    const quantity = form.getByLabel("Quantity", { exact: true });
    const price = form.getByLabel("Price", { exact: true });
    const sell = form.getByRole("button", { name: "Sell / Short", exact: true });
    const posts: string[] = [];
    const onRequest = (r: { method(): string; url(): string }) => {
      if (r.method() === "POST") posts.push(r.url());
    };
    page.on("request", onRequest);
    try {
      expect(await form.getByLabel("Trading pair", { exact: true }).inputValue()).toBe("ETH-PERP");
      expect(await form.getByLabel("Order type", { exact: true }).inputValue()).toBe("market");
      // Market orders: the price reads 'Market Price' and is disabled.
      expect(await price.inputValue()).toBe("Market Price");
      expect(await price.isDisabled()).toBe(true);

      // Empty amount.
      await quantity.fill("");
      await sell.click();
      await expect
        .poll(async () => squash(await form.innerText()), { timeout: 5000 })
        .toMatch(/Amount is required|Quantity must be a positive number greater than 0/);
      expect(await quantity.getAttribute("aria-invalid")).toBe("true");

      // Limit without a price.
      await form.getByLabel("Order type", { exact: true }).selectOption("limit");
      await expect.poll(() => price.isDisabled()).toBe(false);
      expect(await price.inputValue()).toBe("");
      await quantity.fill("0.01");
      await sell.click();
      await visible(form.getByText("Price must be a positive number greater than 0 for limit orders", { exact: true }));
      expect(await price.getAttribute("aria-invalid")).toBe("true");
      expect(posts, "invalid forms are not sent").toEqual([]);
      await screenshot(page, "dashboard-04-manual-errors");

      // Back to market: 'Market Price' again.
      await form.getByLabel("Order type", { exact: true }).selectOption("market");
      await expect.poll(() => price.isDisabled()).toBe(true);
      expect(await price.inputValue()).toBe("Market Price");
    } finally {
      page.off("request", onRequest);
    }

    // A valid market SELL of 0.01 ETH-PERP.
    const sellsBefore = (await rowCells(orderRows(page))).filter((c) => c[1] === "SELL" && c[4] === "manual").length;
    await quantity.fill("0.01");
    const since = Date.now();
    await sell.click();
    await expectToastShown(
      page,
      "Trade Executed",
      "SELL order for ETH-PERP has been placed successfully",
      "default",
      since,
    );
    await expect
      .poll(
        async () =>
          (await rowCells(orderRows(page))).filter(
            (c) => c[0] === "ETH-PERP" && c[1] === "SELL" && c[2] === "0.0100" && c[4] === "manual",
          ),
        {
          timeout: 15_000,
        },
      )
      .toHaveLength(sellsBefore + 1);
    // The simulator fills a market order at once.
    await expect
      .poll(async () => (await rowCells(orderRows(page))).find((c) => c[1] === "SELL" && c[4] === "manual")?.[5], {
        timeout: 15_000,
      })
      .toBe("executed");
    await expect
      .poll(async () => (await positionRows(page).allInnerTexts()).map(squash), { timeout: 15_000 })
      .toEqual([expect.stringMatching(/^ETH-PERP LONG 0\.0400 /)]);
    await screenshot(page, "dashboard-04-manual-order");
    await expectCleanPage(page, adminProblems);
  });

  test("5. Activity Log panel: entries, a filter with no match, 'No logs to export', Clear filters, Export to CSV", async () => {
    // Test 2's signal: its activity entries.
    const page = await adminDashboardWithLong();
    const panel = page.getByTestId("activity-log-panel");
    await visible(panel.getByRole("heading", { name: "Activity Log", exact: true }));
    // Live activity_log refreshes are throttled (15 s).
    await expect
      .poll(
        async () =>
          (await panel.getByTestId("activity-log-message").allInnerTexts()).some((m) =>
            m.startsWith("Signal received: BUY 0.05 ETH-PERP"),
          ),
        {
          timeout: 25_000,
          interval: 250,
        },
      )
      .toBe(true);
    expect(await panel.getByTestId("activity-log-entry").count()).toBeGreaterThan(0);
    // Each entry's data preview has at most 3 entries.
    const previewSizes = await panel
      .getByTestId("activity-log-entry")
      .evaluateAll((entries) => entries.map((e) => e.querySelectorAll("[data-testid=activity-log-data-entry]").length));
    expect(Math.max(...previewSizes)).toBeLessThanOrEqual(3);

    // A filter nothing matches: webhook entries at level error (checked through the API first).
    expect(await apiJson<unknown[]>(page, "/api/logs?limit=100&type=webhook&level=error")).toEqual([]);
    await panel.getByRole("button", { name: "Filter", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Filter Activity Logs" });
    await visible(dialog);
    await dialog.getByLabel("Type", { exact: true }).selectOption("webhook");
    await dialog.getByLabel("Level", { exact: true }).selectOption("error");
    await visible(dialog.getByRole("button", { name: "Clear All", exact: true }));
    await dialog.getByRole("button", { name: "Apply", exact: true }).click();
    await dialog.waitFor({ state: "hidden" });
    await visible(panel.getByTestId("activity-log-empty"));
    expect(squash(await panel.getByTestId("activity-log-empty").innerText())).toBe(
      "No logs match these filters Apply different filters or clear them.",
    );
    expect(await panel.getByTestId("activity-log-entry").count()).toBe(0);
    expect(squash(await panel.getByTestId("activity-log-active-filters").innerText())).toBe(
      "Type: webhook Level: error Clear filters",
    );
    await screenshot(page, "dashboard-05-logs-filtered");

    // Nothing to export.
    let downloads = 0;
    const onDownload = () => (downloads += 1);
    page.on("download", onDownload);
    let since = Date.now();
    await panel.getByRole("link", { name: "Export to CSV", exact: true }).click();
    await expectToastShown(
      page,
      "No logs to export",
      "Apply different filters or wait for logs to be generated",
      "default",
      since,
    );
    page.off("download", onDownload);
    expect(downloads).toBe(0);

    // Clear filters: the entries are back.
    await panel.getByRole("button", { name: "Clear filters", exact: true }).click();
    await expect.poll(() => panel.getByTestId("activity-log-entry").count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await panel.getByTestId("activity-log-active-filters").count()).toBe(0);
    // The fresh unfiltered query: what GET /api/logs?limit=20 answers, newest first.
    const apiLogs = await apiJson<{ message: string }[]>(page, "/api/logs?limit=20");
    await expect
      .poll(() => panel.getByTestId("activity-log-message").allInnerTexts(), { timeout: 10_000 })
      .toEqual(apiLogs.map((l) => l.message));
    const shown = await panel.getByTestId("activity-log-entry").count();
    const shownMessages = await panel.getByTestId("activity-log-message").allInnerTexts();

    // Export to CSV: a download named with today's date, the header row, the signal line.
    const dayBefore = localDate();
    since = Date.now();
    const [download] = await Promise.all([
      page.waitForEvent("download", { timeout: 10_000 }),
      panel.getByRole("link", { name: "Export to CSV", exact: true }).click(),
    ]);
    const dayAfter = localDate();
    const name = download.suggestedFilename();
    expect(name.endsWith(".csv"), name).toBe(true);
    expect(
      [dayBefore, dayAfter].some((day) => name.includes(day)),
      `${name} names today (${dayAfter})`,
    ).toBe(true);
    const csv = readFileSync((await download.path())!, "utf8").replace(/^\uFEFF/, "");
    const lines = csv.split(/\r?\n/).filter((l) => l !== "");
    expect(lines[0]).toBe(CSV_HEADER);
    expect(lines.length - 1).toBe(shown);
    expect(lines.some((l) => l.includes("Signal received: BUY 0.05 ETH-PERP"))).toBe(true);
    for (const message of shownMessages)
      expect(csv).toContain(message.includes('"') ? message.replace(/"/g, '""') : message);
    await expectToastShown(page, "Export successful", `Exported ${shown} logs as CSV file`, "default", since);
    await screenshot(page, "dashboard-05-logs-exported");
    // Right after a load the lines are the page's previews (3 data entries each, issue 24):
    // the export reads the whole lines first, so the Data column has every entry.
    await page.goto("/dashboard");
    await waitForHydration(page, adminProblems);
    const [fresh] = await Promise.all([
      page.waitForEvent("download", { timeout: 10_000 }),
      page.getByTestId("activity-log-panel").getByRole("link", { name: "Export to CSV", exact: true }).click(),
    ]);
    const freshCsv = readFileSync((await fresh.path())!, "utf8");
    const received = freshCsv.split(/\r?\n/).find((l) => l.includes("Signal received: BUY 0.05 ETH-PERP"));
    // The signal line's 5th entry, beyond the preview.
    expect(received).toContain("orderType");
    await expectCleanPage(page, adminProblems);
  });

  test("6. a non-admin user's dashboard has no Webhook Endpoint box", async () => {
    await start();
    // The admin's signal and order, which the trader's dashboard shows too.
    await signalBought();
    const { page, problems, user } = await login({ role: "trader" });
    expect(await apiJson<{ role: string }>(page, "/api/user")).toMatchObject({
      username: user.username,
      role: "trader",
    });
    await gotoDashboard(page, problems);
    // The rest of the dashboard is there (with the admin's signal and order).
    await visible(page.getByTestId("signals-panel"));
    await expect.poll(() => signalRows(page).count()).toBeGreaterThan(0);
    await visible(page.getByTestId("manual-trade-form"));
    await visible(page.getByTestId("activity-log-panel"));
    // A trader may stop; only the admin resets (then the header says so instead of a button).
    await visible(page.getByRole("button", { name: "Emergency Stop" }).or(page.getByTestId("emergency-active")));
    // No Webhook Endpoint box.
    expect(await page.getByTestId("webhook-url-box").count()).toBe(0);
    expect(await page.getByText("Webhook Endpoint").count()).toBe(0);
    // (The Webhook Status card's description may name the path; the URL itself is not shown.)
    expect(await page.getByText(`${baseUrl}${WEBHOOK_PATH}`).count()).toBe(0);
    expect(await page.locator(`input[value="${baseUrl}${WEBHOOK_PATH}"]`).count()).toBe(0);
    expect(await page.getByLabel("Copy webhook URL").count()).toBe(0);
    // Nor its secret through the API.
    expect((await page.request.get("/api/webhook-config")).status()).toBe(403);
    await screenshot(page, "dashboard-06-user");
    await expectCleanPage(page, problems);
  });

  test("7. Webhook Config (/webhook): Online, the URL with copy, the port note, the alert message with the placeholders and the secret", async () => {
    ({ page: adminPage, problems: adminProblems } = await login());
    const page = adminPage;
    await waitForPrices();
    const secret = await webhookSecret();
    const response = await page.goto("/webhook");
    expect(response?.status()).toBe(200);
    await visible(h1(page, "Webhook Config"));
    await waitForHydration(page, adminProblems);

    const status = page.getByTestId("webhook-status");
    expect(await status.getAttribute("data-status")).toBe("online");
    await visible(status.getByText("Online", { exact: true }));

    const expectedUrl = `${baseUrl}${WEBHOOK_PATH}`;
    const endpoint = page.getByTestId("webhook-endpoint");
    expect(await endpoint.getByTestId("webhook-url").inputValue()).toBe(expectedUrl);
    let since = Date.now();
    await endpoint.getByRole("button", { name: "Copy webhook URL", exact: true }).click();
    await expectToastShown(page, "Copied", "Webhook URL copied to the clipboard", "default", since);
    expect(await readClipboard(page)).toBe(expectedUrl);

    const portNote = squash(await page.getByTestId("port-note").innerText());
    expect(portNote).toContain("TradingView only delivers webhooks to ports 80 and 443");
    expect(portNote).toContain(`This app listens on port ${app!.port}`);

    // The alert message: the placeholders; the secret hidden until revealed.
    const message = page.getByTestId("alert-message");
    const hidden = await message.innerText();
    for (const p of ALERT_PLACEHOLDERS) expect(hidden).toContain(p);
    expect(hidden).not.toContain(secret);
    await page.getByRole("button", { name: "Reveal secret", exact: true }).click();
    await expect.poll(() => message.innerText()).toContain(secret);
    const revealed = JSON.parse(await message.innerText()) as Record<string, string>;
    expect(revealed).toMatchObject({
      secret,
      action: "{{strategy.order.action}}",
      symbol: "{{ticker}}",
      quantity: "{{strategy.order.contracts}}",
      price: "{{close}}",
      timestamp: "{{timenow}}",
    });
    since = Date.now();
    await page.getByRole("button", { name: "Copy alert message", exact: true }).click();
    await expectToastShown(page, "Copied", "Alert message copied to the clipboard", "default", since);
    expect(JSON.parse(await readClipboard(page))).toEqual(revealed);

    await screenshot(page, "dashboard-07-webhook-config");
    await expectCleanPage(page, adminProblems);
  });

  test("7b. Webhook Config's alert builder: target-position mode changes the message live, Copy, no overflow at 1440 and 390 px", async () => {
    ({ page: adminPage, problems: adminProblems } = await login());
    const page = adminPage;
    const secret = await webhookSecret();
    expect((await page.goto("/webhook"))?.status()).toBe(200);
    await waitForHydration(page, adminProblems);
    const builder = page.getByTestId("alert-builder");
    const message = builder.getByTestId("alert-builder-message");
    await visible(message);
    expect(await message.getAttribute("data-mode")).toBe("entry");
    expect(await message.getAttribute("data-secret")).toBe("masked");
    const entry = await message.innerText();
    expect(entry).toContain('"action": "{{strategy.order.action}}"');
    expect(entry).not.toContain("market_position");
    expect(entry).not.toContain(secret);

    // Target position: the message follows at once, without a page load (the marker survives).
    await page.evaluate(() => ((window as unknown as { __builderMarker: number }).__builderMarker = 1));
    await builder.getByLabel("Target position", { exact: true }).check();
    await expect.poll(() => message.getAttribute("data-mode")).toBe("target");
    const target = await message.innerText();
    expect(target).toContain('"market_position": "{{strategy.market_position}}"');
    expect(target).toContain('"market_position_size": "{{strategy.market_position_size}}"');
    expect(await builder.getByTestId("alert-builder-mode-help").innerText()).toContain(
      "Brings the position to the strategy's own",
    );
    expect(await builder.locator('[data-field="market_position"]').innerText()).toContain("The target");
    expect(await page.evaluate(() => (window as unknown as { __builderMarker?: number }).__builderMarker)).toBe(1);
    expect(new URL(page.url()).searchParams.get("alert_mode")).toBe("target");

    // Copy: the exact message with the real secret, whatever the screen shows.
    const since = Date.now();
    await builder.getByTestId("alert-builder-copy").click();
    await expectToastShown(page, "Copied", "Alert message copied to the clipboard", "default", since);
    const copied = JSON.parse(await readClipboard(page)) as Record<string, string>;
    expect(copied).toEqual({
      secret,
      action: "{{strategy.order.action}}",
      symbol: "{{ticker}}",
      quantity: "{{strategy.order.contracts}}",
      order_type: "market",
      market_position: "{{strategy.market_position}}",
      market_position_size: "{{strategy.market_position_size}}",
      order_id: "{{strategy.order.id}}",
      bar_time: "{{time}}",
      timenow: "{{timenow}}",
    });
    // Show the secret: the screen then shows what was copied.
    await builder.getByLabel("Show the secret", { exact: true }).check();
    await expect.poll(() => message.getAttribute("data-secret")).toBe("shown");
    expect(JSON.parse(await message.innerText())).toEqual(copied);

    // 1440 and 390 px: nothing wider than the window; the message wraps inside its box.
    for (const [width, height] of [
      [1440, 900],
      [390, 844],
    ] as const) {
      await page.setViewportSize({ width, height });
      await builder.scrollIntoViewIfNeeded();
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth),
        `scrollWidth at ${width}`,
      ).toBeLessThanOrEqual(width);
      const box = await message.evaluate((el) => ({
        client: el.clientWidth,
        scroll: el.scrollWidth,
        right: el.getBoundingClientRect().right,
      }));
      expect(box.scroll, `message box at ${width}`).toBeLessThanOrEqual(box.client);
      expect(box.right).toBeLessThanOrEqual(width);
      await screenshot(page, `dashboard-07b-alert-builder-${width}`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await expectCleanPage(page, adminProblems);
  });

  test("7c. the alert builder without JavaScript: a plain GET form that re-renders the message on the server", async () => {
    // Signed in through the Sign in form without JavaScript (a context of login()'s, its cookies cleared).
    const { page, problems, context } = await login({ javaScriptEnabled: false });
    await context.clearCookies();
    await page.goto("/login");
    await submitLogin(page, ADMIN);
    await page.waitForURL((url) => url.pathname === "/dashboard", { timeout: 15_000 });
    await page.goto("/webhook");
    const builder = page.getByTestId("alert-builder");
    const message = builder.getByTestId("alert-builder-message");
    expect(await message.getAttribute("data-mode")).toBe("entry");
    await builder.getByLabel("Reverse", { exact: true }).check();
    await builder.getByLabel("Short (sell)", { exact: true }).check();
    await builder.getByLabel("Fixed quantity", { exact: true }).check();
    await builder.getByTestId("alert-builder-quantity").fill("0.25");
    await builder.getByTestId("alert-builder-symbol").selectOption("SOL-PERP");
    await Promise.all([
      page.waitForURL((url) => url.searchParams.get("alert_mode") === "reverse"),
      builder.getByRole("button", { name: "Update message", exact: true }).click(),
    ]);
    expect(await message.getAttribute("data-mode")).toBe("reverse");
    const text = await message.innerText();
    for (const line of [
      '"action": "sell"',
      '"symbol": "SOL-PERP"',
      '"quantity": "0.25"',
      '"market_position": "short"',
      '"market_position_size": "0.25"',
    ])
      expect(text).toContain(line);
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, "dashboard-07c-alert-builder-nojs-390");
    expect(problems.errors).toEqual([]);
  });

  test("7d. Send test alert: the webhook's answer, the signal's outcome and its latency timeline fill in on Webhook Config; the app's book is untouched", async () => {
    ({ page: adminPage, problems: adminProblems } = await login());
    const page = adminPage;
    await waitForPrices();
    const positionsBefore = ((await (await page.request.get("/api/positions")).json()) as unknown[]).length;
    const tradesBefore = ((await (await page.request.get("/api/trades?limit=100")).json()) as unknown[]).length;
    expect(
      (
        await page.goto("/webhook?alert=1&alert_mode=entry&alert_symbol=ETH-PERP&alert_timenow=on&alert_dedupe=on")
      )?.status(),
    ).toBe(200);
    await waitForHydration(page, adminProblems);
    const card = page.getByTestId("test-alert-card");
    await card.getByTestId("test-alert-send").click();
    const progress = card.getByTestId("test-alert-progress");
    await visible(progress);
    expect(await card.getByTestId("test-alert-answer").innerText()).toMatch(
      /^HTTP 200: \{"success":true,"signalId":"[0-9a-f-]{36}","status":"queued"\}$/,
    );
    await expect.poll(() => progress.getAttribute("data-settled"), { timeout: 20_000 }).toBe("yes");
    expect(await card.getByTestId("test-alert-status").innerText()).toBe("executed");
    expect(await card.getByTestId("test-alert-reason").innerText()).toMatch(
      /^Test alert: BUY 0\.01 ETH-PERP filled at [\d,.]+ on the simulator's test account \(closed again at once\)\. No position, no P&L$/,
    );
    // The timeline: every hop from Received to Fill booked (polled while the worker writes its stamps).
    const timeline = card.getByTestId("signal-timeline");
    await expect.poll(() => timeline.getAttribute("data-last-hop"), { timeout: 10_000 }).toBe("filled");
    const hops = await timeline
      .getByTestId("timeline-step")
      .evaluateAll((steps) => steps.map((s) => s.getAttribute("data-hop")));
    expect(hops).toEqual(["fired", "received", "committed", "claimed", "sent", "acked", "filled"]);
    expect(await timeline.innerText()).toContain("Fill booked");
    expect(((await (await page.request.get("/api/positions")).json()) as unknown[]).length).toBe(positionsBefore);
    expect(((await (await page.request.get("/api/trades?limit=100")).json()) as unknown[]).length).toBe(tradesBefore);
    await screenshot(page, "dashboard-07d-test-alert");
    await expectCleanPage(page, adminProblems);
  });

  test("8. without JavaScript: the dashboard's panels (SSR), Emergency Stop and Reset as plain form posts", async () => {
    // What tests 2, 3, 7d and 4 leave: the signal BUY 0.05 executed, the skipped BUY, the test
    // alert, the manual SELL 0.01 (a long of 0.04).
    await start();
    await signalBought();
    await signalSkipped();
    await testAlertSent();
    await manualSell();
    // Signed in through the Sign in form without JavaScript (a context of login()'s, its cookies cleared).
    const { page, problems, context } = await login({ javaScriptEnabled: false });
    await context.clearCookies();
    await page.goto("/login");
    await visible(h1(page, "Sign in"));
    await submitLogin(page, ADMIN);
    await page.waitForURL((url) => url.pathname === "/dashboard", { timeout: 15_000 });
    await visible(h1(page, "Dashboard"));

    // The panels, server-rendered.
    expect(await page.getByTestId("connection-status").innerText()).toBe("Disconnected");
    expect(await page.getByTestId("last-signal").innerText()).toMatch(
      /^Last signal: (Just now|1 minute ago|\d+ minutes ago)$/,
    );
    for (const id of ["card-webhook", "card-exchange", "card-active-trades", "card-pnl"])
      await visible(page.getByTestId(id));
    expect((await cardLines(page, "card-active-trades")).slice(0, 2)).toEqual(["Active Trades", "1"]);
    expect(await signalRows(page).count()).toBe(3); // tests 2 and 3's, and 7d's test alert (marked TEST)
    expect(await page.getByTestId("signal-test").count()).toBe(1);
    expect((await rowCells(orderRows(page))).map((c) => `${c[0]} ${c[1]} ${c[4]}`)).toEqual([
      "ETH-PERP SELL manual",
      "ETH-PERP BUY signal",
    ]);
    expect((await positionRows(page).allInnerTexts()).map(squash)).toEqual([
      expect.stringMatching(/^ETH-PERP LONG 0\.0400 /),
    ]);
    await visible(page.getByTestId("manual-trade-form"));
    expect(await page.getByTestId("webhook-url-box").getByTestId("webhook-url").inputValue()).toBe(
      `${baseUrl}${WEBHOOK_PATH}`,
    );
    expect(await page.getByTestId("activity-log-panel").getByTestId("activity-log-entry").count()).toBeGreaterThan(0);
    await screenshot(page, "dashboard-08-nojs");

    // Emergency Stop: a form post, back to the dashboard with the flash toast.
    await postHeaderButton(page, "Emergency Stop", "Reset Emergency Stop", {
      title: "Emergency Stop Activated",
      message: EMERGENCY_STOP_MESSAGE,
      variant: "destructive",
    });
    await screenshot(page, "dashboard-08-nojs-stopped");

    // Reset.
    await postHeaderButton(page, "Reset Emergency Stop", "Emergency Stop", {
      title: "Emergency Stop Reset",
      message: EMERGENCY_RESET_MESSAGE,
    });
    const health = await fetchHealth(baseUrl);
    expect(health.systemStatus.find((s) => s.component === "system")?.status).toBe("online");
    expect(problems.errors).toEqual([]);
  });
});
