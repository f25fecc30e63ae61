// A position's price chart in a real browser (issue 13, decision 032), on its OWN app
// instance whose prices come from a fake Coinbase (the price loop asks it every second and
// folds each price into the 1-minute candles). A webhook opens an ETH long with take-profit,
// stop-loss, break-even and trailing rules; the test moves the price and sees the candles
// take it; the expanded row and the chart page draw the chart (a canvas) with one price line
// per level, at 1440 and 390 px; without JavaScript the chart page lists the levels and the
// latest candles. Screenshots in test-results/e2e/price-chart-*.png. The position is a
// fixture (chartPosition(): made by the first test that needs it, made again after a test
// moved its price), and each test signs in on its own (suite.login), so any one runs alone
// (`-t`) and in any order.
import { describe, expect, test } from "vitest";
import {
  type FakePrices,
  type Page,
  type PageProblems,
  type RunningApp,
  apiJson as apiJsonOf,
  h1,
  resetTrading,
  screenshot,
  signedInWithoutJs,
  type Session,
  unexpectedErrors,
  useSuite,
  visible,
  waitForHydration,
  type Browser,
  withAppDatabase,
} from "./utils.ts";

const ADMIN = { username: "chart_admin", password: "chart-admin-secret-1" };
const MINUTE = 60_000;
const LINES = ["Entry", "TP1", "TP2", "TP3", "SL", "BE", "Trail on"];

let app: RunningApp;
let baseUrl: string;
let browser: Browser;
let fakePrices: FakePrices | undefined;
let login: () => Promise<Session>;
let initialConfig: Record<string, unknown>;
// The running test's own page (set by start()).
let page: Page;
let problems: PageProblems;

useSuite(
  {
    label: "chart",
    port: 5171,
    pricesPort: 5371,
    admin: ADMIN,
  },
  (suite) => {
    fakePrices = suite.fakePrices;
    app = suite.app!;
    ({ baseUrl, browser, login, initialConfig } = suite);
  },
);

/** The test's own start: the admin signed in on a new context. */
async function start(): Promise<void> {
  ({ page, problems } = await login());
}

const apiJson = <T>(p: string) => apiJsonOf<T>(page, p);
const canvasOf = (p: Page) => p.getByTestId("price-chart-canvas").locator("canvas");

interface PositionJson {
  id: string;
  symbol: string;
  status: string;
  createdAt: string;
  entryTradeId: string | null;
}
interface CandleJson {
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
}

/** The chart's drawn price lines (their titles, as passed to createPriceLine). */
const drawnLines = async (p: Page) =>
  ((await p.getByTestId("price-chart-canvas").getAttribute("data-lines")) ?? "").split("|").filter(Boolean);

/** The fixture's position as made, while its price has not been moved past the ticks below. */
let made: { position: PositionJson; opened: number } | undefined;

/**
 * The fixture: an ETH long opened by a webhook with every rule (take-profits, stop-loss,
 * break-even, trailing), a quarter hour of older candles before it, and three ticks inside
 * every rule's band after it (3405.5, 3396.25, 3409). Made on a clean slate the first time,
 * and again once a test moved the price on (`fresh`).
 */
async function chartPosition(fresh = false): Promise<{ position: PositionJson; opened: number }> {
  if (made && !fresh) return made;
  made = undefined;
  await resetTrading(page, initialConfig);
  await fakePrices!.reset();
  let position: PositionJson | undefined;
  const secret = (await apiJson<{ secret: string }>("/api/webhook-config")).secret;
  const saved = await page.request.post("/api/trading-config", {
    data: {
      applyTakeProfitToSignals: true,
      applyStopLossToSignals: true,
      applyBreakEvenToSignals: true,
      applyTrailingStopToSignals: true,
      breakEvenEnabled: true,
      trailingStopEnabled: true,
      stopLossOffset: 0.02,
      trailingStop: { activation: 0.015, execute: 0.005 },
      takeProfits: [
        { portfolio: 0.3, priceDeviation: 0.01, enabled: true },
        { portfolio: 0.3, priceDeviation: 0.02, enabled: true },
        { portfolio: 0.4, priceDeviation: 0.03, enabled: true },
      ],
    },
  });
  expect(saved.status(), await saved.text()).toBe(200);

  // The quarter hour before: older candles, as the feed would have left them (the chart
  // shows from 15 minutes before the position opened).
  const now = Date.now();
  withAppDatabase(app, (db) => {
    const insert = db.query(
      "INSERT OR IGNORE INTO candles (symbol, bucket, open, high, low, close, ticks, updated_at) VALUES ('ETH-PERP', ?, ?, ?, ?, ?, 60, ?)",
    );
    let close = 3392;
    for (let i = 14; i >= 1; i--) {
      const bucket = Math.floor((now - i * MINUTE) / MINUTE) * MINUTE;
      const open = close;
      close = open + ((i * 7) % 5) - 2;
      insert.run(
        bucket,
        String(open),
        String(Math.max(open, close) + 1.5),
        String(Math.min(open, close) - 1.25),
        String(close),
        bucket + 59_000,
      );
    }
  });

  const sent = await page.request.post("/api/webhook/tradingview", {
    headers: { "content-type": "text/plain" },
    data: JSON.stringify({
      secret,
      id: `e2e-chart-${Date.now()}`,
      action: "buy",
      symbol: "ETH-PERP",
      quantity: "1",
      order_type: "market",
    }),
  });
  expect(sent.status()).toBe(200);
  await expect
    .poll(
      async () =>
        (position = (await apiJson<PositionJson[]>("/api/positions")).find((p) => p.symbol === "ETH-PERP")!)?.status,
      { timeout: 20_000 },
    )
    .toBe("open");

  // Let prices tick: up, down, up again (inside every rule's band: nothing triggers).
  for (const price of ["3405.5", "3396.25", "3409"]) {
    fakePrices!.set("ETH", price);
    await expect
      .poll(async () => (await apiJson<{ price: string }>("/api/market/products/ETH-PERP")).price, { timeout: 10_000 })
      .toBe(price);
  }
  made = { position: position!, opened: Date.parse(position!.createdAt) };
  return made;
}

describe("Price chart (SQLite, own instance, prices from a fake Coinbase)", () => {
  test("1. a webhook opens an ETH long with every rule; the moving price becomes candles", async () => {
    await start();
    const { opened } = await chartPosition();
    expect(fakePrices!.requests, "the price loop asked the fake Coinbase").toBeGreaterThan(0);
    const { candles } = await apiJson<{ candles: CandleJson[] }>(
      `/api/candles?symbol=ETH-PERP&from=${opened - MINUTE}`,
    );
    const live = candles.filter((c) => c.time >= Math.floor(opened / MINUTE) * MINUTE);
    expect(live.length).toBeGreaterThan(0);
    expect(Math.max(...live.map((c) => Number(c.high)))).toBeGreaterThanOrEqual(3409);
    expect(Math.min(...live.map((c) => Number(c.low)))).toBeLessThanOrEqual(3396.25);
    expect(live[live.length - 1]!.close).toBe("3409");
  });

  test("2. the expanded position draws the chart with a line per level (1440 px)", async () => {
    await start();
    await chartPosition();
    await page.setViewportSize({ width: 1440, height: 1000 });
    await page.goto("/positions");
    await visible(h1(page, "Futures Positions"));
    await waitForHydration(page, problems);
    await page.locator('[data-testid=position-row][data-symbol="ETH-PERP"]').click();
    const detail = page.getByTestId("position-detail");
    await visible(detail.getByTestId("price-chart"), 15_000);
    await expect.poll(() => canvasOf(page).count(), { timeout: 15_000 }).toBeGreaterThan(0);
    await expect.poll(() => drawnLines(page), { timeout: 10_000 }).toEqual(LINES);
    // Drawn: the candle table for no-JavaScript browsers is gone; the levels list stays.
    expect(await page.getByTestId("price-chart-fallback").count()).toBe(0);
    expect(
      (await detail.getByTestId("chart-level").allInnerTexts()).map((t) =>
        t.split(/\s+/)[0] === "Trail" ? "Trail on" : t.split(/\s+/)[0],
      ),
    ).toEqual(LINES);
    expect(await detail.getByTestId("chart-fill").count()).toBe(1);
    const box = await page.getByTestId("price-chart-canvas").boundingBox();
    expect(box!.height).toBe(300);
    expect(box!.width).toBeGreaterThan(600);
    await detail.getByTestId("price-chart").scrollIntoViewIfNeeded();
    await screenshot(page, "price-chart-detail-1440", false);
    expect(unexpectedErrors(problems)).toEqual([]);
  });

  test("3. the chart page at 1440 and 390 px: canvas, lines, no sideways scrolling", async () => {
    await start();
    const { position } = await chartPosition();
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`/positions/${position.id}/chart`);
      await visible(h1(page, "ETH-PERP LONG"));
      await waitForHydration(page, problems);
      await expect.poll(() => canvasOf(page).count(), { timeout: 15_000 }).toBeGreaterThan(0);
      await expect.poll(() => drawnLines(page), { timeout: 10_000 }).toEqual(LINES);
      const box = await page.getByTestId("price-chart-canvas").boundingBox();
      expect(box!.width).toBeLessThanOrEqual(width);
      expect(box!.width).toBeGreaterThan(width > 500 ? 800 : 250);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await screenshot(page, `price-chart-page-${width}`);
    }
    // From the 390 px card: its "Price chart" link leads here.
    await page.goto("/positions");
    await waitForHydration(page, problems);
    expect((await page.getByTestId("positions-table").locator("thead").boundingBox())!.width).toBeLessThanOrEqual(1);
    await page.locator("[data-testid=position-row]").getByTestId("position-chart-link").click();
    await page.waitForURL((url) => url.pathname === `/positions/${position.id}/chart`);
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(unexpectedErrors(problems)).toEqual([]);
  });

  test("4. without JavaScript: the row's link opens the chart page with the levels and the latest candles", async () => {
    await start();
    const { position } = await chartPosition();
    const plain = await signedInWithoutJs(browser, baseUrl, page.context());
    try {
      await plain.setViewportSize({ width: 1440, height: 900 });
      await plain.goto("/positions");
      await plain
        .locator('[data-testid=position-row][data-symbol="ETH-PERP"]')
        .getByTestId("position-chart-link")
        .click();
      await plain.waitForURL((url) => url.pathname === `/positions/${position.id}/chart`);
      const fallback = plain.getByTestId("price-chart-fallback");
      await visible(fallback);
      expect(await fallback.locator("caption").innerText()).toBe("Latest candles (the chart needs JavaScript)");
      expect(await fallback.locator("tbody tr").count()).toBe(8);
      expect(await fallback.locator("tbody tr").first().locator("td").last().innerText()).toBe("3409");
      expect(await plain.getByTestId("chart-level").count()).toBe(LINES.length);
      const levels = await plain.getByTestId("chart-levels").innerText();
      for (const title of LINES) expect(levels).toContain(title);
      expect(await plain.locator("canvas").count()).toBe(0);
      await screenshot(plain, "price-chart-nojs-1440");
    } finally {
      await plain.context().close();
    }
  });

  test("5. Trade History: the entry trade's details show its position's chart", async () => {
    await start();
    const { position } = await chartPosition();
    await page.setViewportSize({ width: 1440, height: 1000 });
    await page.goto("/trade-history");
    await waitForHydration(page, problems);
    await page.locator(`[data-testid=trade-row][data-trade-id="${position.entryTradeId}"]`).click();
    const details = page.getByTestId("trade-details");
    await visible(details.getByTestId("price-chart"), 15_000);
    expect(await details.getByTestId("price-chart").locator("h3").innerText()).toBe("Position price chart · ETH-PERP");
    await expect.poll(() => details.locator("canvas").count(), { timeout: 15_000 }).toBeGreaterThan(0);
    await expect.poll(() => drawnLines(page), { timeout: 10_000 }).toEqual(LINES);
    await details.getByTestId("price-chart").scrollIntoViewIfNeeded();
    await screenshot(page, "price-chart-trade-1440", false);
    expect(unexpectedErrors(problems)).toEqual([]);
  });

  test("6. the price reaches TP1: the exit is marked, TP1 reads filled, the stop moved to the entry (BE stop)", async () => {
    await start();
    const { position } = await chartPosition(true);
    // The price moves on: the next test that needs the fixture makes it again.
    made = undefined;
    fakePrices!.set("ETH", "3440");
    await expect
      .poll(
        async () =>
          (
            await apiJson<{ id: string; remainingQuantity: string; breakEvenTriggered: boolean }[]>("/api/positions")
          ).find((p) => p.id === position.id)?.breakEvenTriggered,
        {
          timeout: 30_000,
          message: "TP1 filled and break-even moved the stop",
        },
      )
      .toBe(true);
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`/positions/${position.id}/chart`);
    await waitForHydration(page, problems);
    await expect
      .poll(() => drawnLines(page), { timeout: 15_000 })
      .toEqual(["Entry", "TP1", "TP2", "TP3", "BE stop", "Trail on"]);
    const fills = page.getByTestId("chart-fill");
    expect(await fills.count()).toBe(2);
    expect(await fills.nth(1).getAttribute("data-kind")).toBe("exit");
    expect(await fills.nth(1).innerText()).toMatch(/^Exit fill\s+34\d\d(\.\d+)?\s+sell 0\.3 at /);
    expect(await page.locator("[data-testid=chart-level][data-kind=tp]").first().innerText()).toMatch(/filled$/);
    await screenshot(page, "price-chart-exit-1440");
    expect(unexpectedErrors(problems)).toEqual([]);
  });
});
