// The what-if replay in a real browser (issue 25, docs/spec/screens.md Replay, decision 047), on
// the file's OWN app (SQLite). The recorded alerts and their 1-minute candles are rows the
// screens cannot make (a past day), written straight into the app's database: a seeded random
// walk of ETH-PERP over one day two days ago and twelve executed alerts on it. Each test signs
// in on its own (suite.login) and replays that day with three rule sets (the Trading Rules'
// defaults; rule set 2 with a 1 % stop loss; rule set 3 without trailing): with JavaScript at
// 1440 and 390 px it sees the Real column and three rule-set columns and the equity curve drawn;
// without JavaScript the form posts and the server renders the figures and the curve's table.
// Screenshots in test-results/e2e/replay-*.png.
import { describe, expect, test } from "vitest";
import {
  type Browser,
  type Page,
  type PageProblems,
  type RunningApp,
  type Session,
  h1,
  screenshot,
  signedInWithoutJs,
  unexpectedErrors,
  useSuite,
  visible,
  waitForHydration,
  withAppDatabase,
} from "./utils.ts";

const ADMIN = { username: "replay_admin", password: "replay-admin-secret-1" };
const DAY = 86_400_000;
const MINUTE = 60_000;
const SEEDED_DAY = Math.floor(Date.now() / DAY) * DAY - 2 * DAY;
const DATE = new Date(SEEDED_DAY).toISOString().slice(0, 10);

let app: RunningApp;
let baseUrl: string;
let browser: Browser;
let login: (options?: { role?: "admin" | "trader" | "viewer" }) => Promise<Session>;

useSuite({ label: "replay", port: 5201, admin: ADMIN }, (suite) => {
  app = suite.app!;
  ({ baseUrl, browser, login } = suite);
});

let seeded = false;
/** A day of ETH candles (a seeded random walk around 3400) and twelve executed alerts on it, once for the file. */
function seed(): void {
  if (seeded) return;
  seeded = true;
  let a = 25;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const closes: number[] = [];
  withAppDatabase(app, (db) => {
    const candle = db.query(
      "INSERT INTO candles (symbol, bucket, open, high, low, close, ticks, updated_at) VALUES ('ETH-PERP', ?, ?, ?, ?, ?, 60, ?)",
    );
    let price = 3400;
    for (let i = 0; i < 1440; i++) {
      const open = price;
      const close = open * (1 + (random() - 0.5) * 0.004);
      const high = Math.max(open, close) * (1 + random() * 0.002);
      const low = Math.min(open, close) * (1 - random() * 0.002);
      price = close;
      closes.push(close);
      candle.run(
        SEEDED_DAY + i * MINUTE,
        open.toFixed(2),
        high.toFixed(2),
        low.toFixed(2),
        close.toFixed(2),
        SEEDED_DAY + i * MINUTE + 59_000,
      );
    }
    const signal = db.query(
      "INSERT INTO signals (id, action, symbol, order_type, price, quantity, payload, strategy, signal_time, dedupe_key, processed, status, status_reason, created_at, processed_at) VALUES (?, ?, 'ETH-PERP', 'market', ?, '1', ?, NULL, ?, ?, 1, 'executed', NULL, ?, ?)",
    );
    for (let i = 0; i < 12; i++) {
      const minute = 30 + i * 115;
      const at = SEEDED_DAY + minute * MINUTE + 20_000;
      const action = i % 2 === 0 ? "buy" : "sell";
      const price = closes[minute]!.toFixed(2);
      signal.run(
        `e2e-replay-${i}`,
        action,
        price,
        JSON.stringify({ action, symbol: "ETH-PERP", quantity: "1", price }),
        at,
        `e2e-replay-${i}`,
        at,
        at,
      );
    }
  });
}

const noOverflow = (p: Page) => p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);

/** Fills the period and changes rule sets 2 and 3 (set 1 keeps the Trading Rules). */
async function fillForm(page: Page): Promise<void> {
  await page.locator('input[name="from"]').fill(DATE);
  await page.locator('input[name="to"]').fill(DATE);
  await page.locator('input[name="sets[1].stopLoss"]').fill("1");
  const trailing = page.locator('input[name="sets[2].trailing"]');
  if (await trailing.isChecked()) await trailing.uncheck();
}

async function replayWithJs(page: Page, problems: PageProblems, width: number): Promise<void> {
  await page.setViewportSize({ width, height: 900 });
  await page.goto("/replay");
  await waitForHydration(page, problems);
  await visible(h1(page, "Replay"));
  await visible(page.getByTestId("replay-assumptions"));
  await fillForm(page);
  await page.getByTestId("run-replay").click();
  await visible(page.getByTestId("replay-results"), 30_000);
  // The Real column and the three rule sets.
  const headings = page.getByTestId("replay-figures").getByTestId("replay-column");
  await expect.poll(() => headings.count()).toBe(4);
  const names = (await headings.allInnerTexts()).map((t) => t.split("\n")[0]!.trim());
  expect(names).toEqual(["Real", "Rule set 1", "Rule set 2", "Rule set 3"]);
  const texts = await headings.allInnerTexts();
  expect(texts[2]).toContain("SL 1 %");
  expect(texts[3]).not.toContain("trail");
  // The equity curve: one line per column, drawn once the chart's code loaded.
  const chart = page.getByTestId("replay-chart").locator("svg").first();
  await chart.waitFor({ state: "visible", timeout: 20_000 });
  await expect.poll(() => page.getByTestId("replay-chart").locator("svg path").count()).toBeGreaterThanOrEqual(4);
  // Twelve alerts replayed; the figures table has a row per TP level.
  await expect.poll(() => page.getByTestId("replay-results").innerText()).toContain("12 alerts replayed");
  expect(await page.getByTestId("replay-figures").innerText()).toContain("TP3 hit rate");
}

describe("Replay (SQLite, own instance)", () => {
  test("1. with JavaScript at 1440 px: three rule-set columns beside Real, and the equity curve", async () => {
    seed();
    const { page, problems } = await login();
    await replayWithJs(page, problems, 1440);
    await screenshot(page, "replay-1440");
    await page
      .getByTestId("replay-results")
      .screenshot({ path: `${process.cwd()}/test-results/e2e/replay-results-1440.png` });
    expect(await noOverflow(page)).toBe(true);
    expect(unexpectedErrors(problems)).toEqual([]);
  });

  test("2. at 390 px (a viewer: it only reads): the same columns and curve, the page does not scroll sideways", async () => {
    seed();
    const { page, problems } = await login({ role: "viewer" });
    await replayWithJs(page, problems, 390);
    await screenshot(page, "replay-390");
    await page
      .getByTestId("replay-results")
      .screenshot({ path: `${process.cwd()}/test-results/e2e/replay-results-390.png` });
    expect(await noOverflow(page)).toBe(true);
    expect(unexpectedErrors(problems)).toEqual([]);
  });

  test("3. without JavaScript the form posts and the server renders the figures and the curve's table", async () => {
    seed();
    const { page } = await login();
    const nojs = await signedInWithoutJs(browser, baseUrl, page.context());
    await nojs.setViewportSize({ width: 1440, height: 900 });
    await nojs.goto("/replay");
    await visible(h1(nojs, "Replay"));
    await fillForm(nojs);
    await nojs.getByTestId("run-replay").click();
    await visible(nojs.getByTestId("replay-results"), 30_000);
    expect(await nojs.getByTestId("replay-figures").getByTestId("replay-column").count()).toBe(4);
    expect(await nojs.getByTestId("replay-chart").locator("svg").count()).toBe(0);
    expect(await nojs.getByTestId("replay-curve-table").count()).toBe(4);
    // The curve's points are shown (open), not folded away behind a chart that cannot draw.
    await visible(nojs.getByTestId("replay-curve-table").first());
    // What was replayed stays in the form.
    expect(await nojs.locator('input[name="from"]').inputValue()).toBe(DATE);
    expect(await nojs.locator('input[name="sets[1].stopLoss"]').inputValue()).toBe("1");
    await screenshot(nojs, "replay-nojs-1440");
    await nojs.context().close();
  });
});
