// The Performance charts in a real browser (issue 13, decision 031), on the file's OWN app
// whose prices come from a fake Coinbase (still until the test moves them). Webhooks open
// and close round trips on three symbols through the real pipeline; the test then spreads
// those trades over the last three weeks (as if they had closed on different days) and adds
// a few equity snapshots with unrealized P&L, so every chart has a shape. With JavaScript
// each chart is drawn (an SVG) over its folded table, at 1440 and 390 px, on the Performance
// screen and the dashboard's card; the range links change the data; the totals are the
// API's. Without JavaScript the same data shows as tables. Screenshots in
// test-results/e2e/performance-*.png. The round trips are a fixture (roundTrips(): made once
// by whichever test asks first, read-only after), and each test signs in on its own
// (suite.login), so any one runs alone (`-t`) and in any order.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import {
  type Browser,
  type FakePrices,
  type Page,
  type PageProblems,
  type RunningApp,
  SCREENSHOT_DIR,
  apiJson as apiJsonOf,
  h1,
  screenshot,
  signedInWithoutJs,
  type Session,
  unexpectedErrors,
  useSuite,
  visible,
  waitForHydration,
  withAppDatabase,
} from "./utils.ts";

const ADMIN = { username: "perf_admin", password: "perf-admin-secret-1" };
const DAY = 86_400_000;
const CHARTS = [
  "chart-equity",
  "chart-daily",
  "chart-drawdown",
  "chart-symbol",
  "chart-strategy",
  "chart-distribution",
];

let app: RunningApp;
let baseUrl: string;
let browser: Browser;
let fakePrices: FakePrices | undefined;
let login: () => Promise<Session>;
// The running test's own page (set by start()).
let page: Page;
let problems: PageProblems;

useSuite(
  {
    label: "performance",
    port: 5181,
    pricesPort: 5381,
    admin: ADMIN,
  },
  (suite) => {
    fakePrices = suite.fakePrices;
    app = suite.app!;
    ({ baseUrl, browser, login } = suite);
  },
);

/** The test's own start: the admin signed in on a new context, and the round trips there. */
async function start(): Promise<void> {
  ({ page, problems } = await login());
  await roundTrips();
}

const apiJson = <T>(p: string) => apiJsonOf<T>(page, p);
const noOverflow = (p: Page) => p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);

interface Charts {
  range: string;
  totals: { realizedPnl: string; trades: number; wins: number; losses: number; maxDrawdown: string };
  equity: { at: number; equity: string }[];
  daily: { day: string; pnl: string }[];
  bySymbol: { label: string; pnl: string }[];
}

/** Base, entry price, exit price: three wins and three losses over three symbols. */
const ROUND_TRIPS: [string, string, string][] = [
  ["ETH", "3400", "3460"],
  ["BTC", "95000", "94200"],
  ["SOL", "180", "186.5"],
  ["ETH", "3460", "3390"],
  ["BTC", "94200", "95400"],
  ["SOL", "186.5", "183"],
];
const QUANTITY: Record<string, string> = { ETH: "1", BTC: "0.05", SOL: "10" };

async function executed(): Promise<number> {
  const trades = await apiJson<{ status: string }[]>("/api/trades?limit=100");
  return trades.filter((t) => t.status === "executed" || t.status === "completed").length;
}

/** Waits until the chart's SVG is drawn (x-charts renders one per chart once its code loaded). */
async function chartDrawn(p: Page, testId: string) {
  await p.getByTestId(`${testId}-chart`).locator("svg").first().waitFor({ state: "visible", timeout: 20_000 });
}

let seeded: Promise<void> | undefined;
/** The fixture: the round trips made once for the file, by the first test that asks. */
const roundTrips = () => (seeded ??= seedRoundTrips());

/** Webhooks open and close the round trips through the real pipeline; then they are spread over the last three weeks, with a few equity snapshots. */
async function seedRoundTrips(): Promise<void> {
  await expect
    .poll(() => fakePrices?.requests ?? 0, { timeout: 15_000, message: "the price loop asked the fake Coinbase" })
    .toBeGreaterThan(0);
  const secret = (await apiJson<{ secret: string }>("/api/webhook-config")).secret;
  // The round trips' own closes only: no protection rule may close a position in between.
  const saved = await page.request.post("/api/trading-config", {
    data: {
      applyTakeProfitToSignals: false,
      applyStopLossToSignals: false,
      applyBreakEvenToSignals: false,
      applyTrailingStopToSignals: false,
    },
  });
  expect(saved.status(), await saved.text()).toBe(200);
  let n = 0;
  for (const [i, [base, entry, exit]] of ROUND_TRIPS.entries()) {
    for (const [action, price] of [
      ["buy", entry],
      ["sell", exit],
    ] as const) {
      fakePrices!.set(base, price);
      await expect
        .poll(async () => (await apiJson<{ price: string }>(`/api/market/products/${base}-PERP`)).price, {
          timeout: 10_000,
        })
        .toBe(price);
      const sent = await page.request.post("/api/webhook/tradingview", {
        headers: { "content-type": "text/plain" },
        data: JSON.stringify({
          secret,
          id: `e2e-perf-${i}-${action}`,
          action,
          symbol: `${base}-PERP`,
          quantity: QUANTITY[base],
          order_type: "market",
        }),
      });
      expect(sent.status(), await sent.text()).toBe(200);
      n++;
      await expect.poll(executed, { timeout: 20_000, message: `trade ${n} executed` }).toBe(n);
    }
  }
  // Spread the round trips over the last three weeks, oldest first (each symbol keeps its
  // order), and give the curve a few snapshots with open positions' unrealized P&L.
  const now = Date.now();
  withAppDatabase(app, (db) => {
    const trades = db
      .query("SELECT id FROM trades WHERE status IN ('executed', 'completed') ORDER BY executed_at, id")
      .all() as { id: string }[];
    const shift = db.query(
      "UPDATE trades SET executed_at = executed_at - ?, created_at = created_at - ?, updated_at = ? WHERE id = ?",
    );
    trades.forEach((t, i) => {
      const back = (ROUND_TRIPS.length - Math.floor(i / 2)) * 3 * DAY + (i % 2 === 0 ? 5 * 3_600_000 : 0);
      shift.run(back, back, now + i, t.id);
    });
    const snap = db.query(
      "INSERT INTO equity_snapshots (taken_at, reason, realized_pnl, unrealized_pnl, balance, equity, currency, open_positions) VALUES (?, 'interval', '0', ?, NULL, NULL, 'USDC', 1)",
    );
    for (const [daysBack, unrealized] of [
      [17.9, "25"],
      [14.9, "-120"],
      [11.9, "80"],
      [8.9, "-40"],
      [5.9, "150"],
      [2.9, "-60"],
    ] as const)
      snap.run(now - daysBack * DAY, unrealized);
  });
}

describe("Performance charts (SQLite, own instance, prices from a fake Coinbase)", () => {
  test("1. round trips through the webhook, spread over three weeks", async () => {
    await start();
    const all = await apiJson<Charts>("/api/performance-charts?range=all");
    expect(all.totals.trades).toBe(6);
    expect(all.totals.wins).toBe(3);
    expect(all.totals.losses).toBe(3);
    expect(all.bySymbol.map((s) => s.label).sort()).toEqual(["BTC-PERP", "ETH-PERP", "SOL-PERP"]);
    expect(all.daily.filter((d) => d.pnl !== "0")).toHaveLength(6);
  });

  test("2. with JavaScript at 1440 px: every chart drawn over its folded table; totals are the API's; the range links", async () => {
    await start();
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto("/performance?range=30d");
    await waitForHydration(page, problems);
    await visible(h1(page, "Performance"));
    for (const id of CHARTS) await chartDrawn(page, id);
    const api = await apiJson<Charts>("/api/performance-charts?range=30d");
    const sign = (v: string) => (Number(v) > 0 ? `+${Number(v).toFixed(2)}` : Number(v).toFixed(2));
    await expect.poll(() => page.getByTestId("total-realized").innerText()).toBe(sign(api.totals.realizedPnl));
    // The tables are still there, folded under "Show as table".
    expect(await page.getByTestId("chart-equity").locator("details").getAttribute("open")).toBeNull();
    await expect.poll(() => page.getByTestId("chart-daily").locator("summary").innerText()).toBe("Show as table");
    // The equity chart has a line for the equity and one for the realized P&L; the daily bars one bar per day.
    expect(await page.getByTestId("chart-equity-chart").locator("svg path").count()).toBeGreaterThanOrEqual(2);
    expect(await page.getByTestId("chart-daily-chart").locator("svg rect").count()).toBeGreaterThanOrEqual(6);
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    for (const id of CHARTS)
      await page.getByTestId(id).screenshot({ path: path.join(SCREENSHOT_DIR, `performance-${id}-1440.png`) });
    await screenshot(page, "performance-1440");
    expect(await noOverflow(page)).toBe(true);

    // 7 days: a link, the data follows (fewer bars).
    await page.getByTestId("chart-ranges").getByRole("link", { name: "7 days" }).click();
    await page.waitForURL((url) => url.search === "?range=7d");
    await expect
      .poll(() => page.getByTestId("chart-ranges").getByRole("link", { name: "7 days" }).getAttribute("aria-current"), {
        timeout: 10_000,
      })
      .toBe("page");
    await chartDrawn(page, "chart-daily");
    const week = await apiJson<Charts>("/api/performance-charts?range=7d");
    expect(week.daily).toHaveLength(8);
    await expect.poll(() => page.getByTestId("chart-daily-table").locator("tbody tr").count()).toBe(8);
    expect(unexpectedErrors(problems)).toEqual([]);
  });

  test("3. the dashboard's card at 1440 and 390 px; the Performance screen at 390 px", async () => {
    await start();
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto("/dashboard");
    await waitForHydration(page, problems);
    await chartDrawn(page, "dashboard-equity");
    await chartDrawn(page, "dashboard-daily");
    await page
      .getByTestId("dashboard-charts")
      .screenshot({ path: path.join(SCREENSHOT_DIR, "performance-dashboard-card-1440.png") });
    await screenshot(page, "performance-dashboard-1440");

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/dashboard");
    await waitForHydration(page, problems);
    await chartDrawn(page, "dashboard-equity");
    await page.getByTestId("dashboard-charts").scrollIntoViewIfNeeded();
    await page
      .getByTestId("dashboard-charts")
      .screenshot({ path: path.join(SCREENSHOT_DIR, "performance-dashboard-card-390.png") });
    expect(await noOverflow(page)).toBe(true);

    await page.goto("/performance?range=all");
    await waitForHydration(page, problems);
    for (const id of CHARTS) await chartDrawn(page, id);
    await screenshot(page, "performance-390");
    for (const id of ["chart-equity", "chart-daily"])
      await page.getByTestId(id).screenshot({ path: path.join(SCREENSHOT_DIR, `performance-${id}-390.png`) });
    expect(await noOverflow(page)).toBe(true);

    // A window squeezed to 1 px (the dashboard suite's browser did this mid-run): the charts
    // keep a drawable width instead of asking the browser for a negative clip rectangle
    // ("<rect> attribute width: A negative value is not valid", a console error on every chart).
    for (const [where, id] of [
      ["/performance?range=all", "chart-daily"],
      ["/dashboard", "dashboard-daily"],
    ] as const) {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(where);
      await waitForHydration(page, problems);
      await chartDrawn(page, id);
      await page.setViewportSize({ width: 1, height: 844 });
      // The chart measures its container again and redraws at the kept minimum width.
      const surface = page.getByTestId(`${id}-chart`).locator("svg").first();
      await expect
        .poll(() => surface.evaluate((el) => Math.round(el.getBoundingClientRect().width)), { timeout: 5_000 })
        .toBe(160);
    }
    await page.setViewportSize({ width: 390, height: 844 });
    expect(unexpectedErrors(problems)).toEqual([]);
  });

  test("4. without JavaScript the same data shows as tables, at 1440 and 390 px", async () => {
    await start();
    const nojs = await signedInWithoutJs(browser, baseUrl, page.context());
    try {
      await nojs.setViewportSize({ width: 1440, height: 900 });
      await nojs.goto("/performance?range=all");
      await visible(h1(nojs, "Performance"));
      const api = await apiJson<Charts>("/api/performance-charts?range=all");
      for (const id of CHARTS) {
        await visible(nojs.getByTestId(`${id}-table`));
        expect(await nojs.getByTestId(`${id}-chart`).count()).toBe(0);
      }
      // One row per day and per symbol, as the API answers.
      expect(await nojs.getByTestId("chart-daily-table").locator("tbody tr").count()).toBe(api.daily.length);
      expect(await nojs.getByTestId("chart-symbol-table").locator("tbody tr").count()).toBe(3);
      await screenshot(nojs, "performance-nojs-1440");
      // The range links work without JavaScript.
      await nojs.getByTestId("chart-ranges").getByRole("link", { name: "7 days" }).click();
      await nojs.waitForURL((url) => url.search === "?range=7d");
      expect(await nojs.getByTestId("chart-daily-table").locator("tbody tr").count()).toBe(8);
      await nojs.setViewportSize({ width: 390, height: 844 });
      await nojs.goto("/performance?range=30d");
      await screenshot(nojs, "performance-nojs-390");
      expect(await noOverflow(nojs)).toBe(true);
      await nojs.goto("/dashboard");
      await visible(nojs.getByTestId("dashboard-daily-table"));
      await nojs
        .getByTestId("dashboard-charts")
        .screenshot({ path: path.join(SCREENSHOT_DIR, "performance-dashboard-card-nojs-390.png") });
    } finally {
      await nojs.context().close();
    }
  });
});
