// The latency timeline per alert (issue 12) in a real browser, on its own app instance (web +
// worker as in production): a TradingView webhook's row appears live on the dashboard and its
// timeline fills in to "Fill booked" without a reload, each hop with its time and a
// non-negative delta; Webhook Config summarises it (p50 / p99), and both fit at 390 px.
import { expect, test } from "vitest";
import { TIMELINE_HOPS } from "../setup/fixtures.ts";
import {
  type Page,
  type PageProblems,
  registerAccount,
  screenshot,
  unexpectedErrors,
  useSuite,
  waitForHydration,
} from "./utils.ts";

const ADMIN = { username: "timeline_admin", password: "timeline-admin-secret-1" };

let page: Page;
let problems: PageProblems;

useSuite({ label: "timeline", port: 5141 }, (suite) => {
  ({ page, problems } = suite);
});

const noHorizontalOverflow = (p: Page) => p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

test("a webhook's timeline fills in live on the dashboard, and Webhook Config summarises it", async () => {
  await registerAccount(page, problems, ADMIN);
  await waitForHydration(page, problems);
  await expect.poll(() => page.getByText("Connected", { exact: true }).count(), { timeout: 10_000 }).toBeGreaterThan(0);
  await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));

  const secret = ((await (await page.request.get("/api/webhook-config")).json()) as { secret: string }).secret;
  const timenow = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000", "");
  const answer = await page.request.post("/api/webhook/tradingview", {
    data: JSON.stringify({
      secret,
      action: "buy",
      symbol: "ETH-PERP",
      quantity: "0.01",
      order_type: "market",
      timenow,
    }),
    headers: { "Content-Type": "text/plain" },
  });
  expect(answer.status()).toBe(200);

  // The row arrives live; its timeline opens (a native details element) and fills in.
  const row = page.getByTestId("signals-panel").getByTestId("signal-row").first();
  await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(1);
  const details = row.getByTestId("signal-timeline-details");
  await details.locator("summary").click();
  await expect.poll(() => details.locator('[data-hop="filled"] time').count(), { timeout: 15_000 }).toBe(1);
  expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true); // no reload

  const steps = details.getByTestId("timeline-step");
  expect(await steps.evaluateAll((els) => els.map((el) => el.getAttribute("data-hop")))).toEqual(TIMELINE_HOPS);
  expect(await details.locator('[data-hop="fired"] time').getAttribute("datetime")).toBe(
    new Date(timenow).toISOString(),
  );
  const deltas = (await details.getByTestId("timeline-delta").allInnerTexts()).slice(2); // ours: committed .. filled
  expect(deltas).toHaveLength(5);
  for (const delta of deltas) expect(delta).toMatch(/^\+\d+(\.\d)? ms$/);
  expect(await details.locator("summary").innerText()).toMatch(/^Latency: \d+(\.\d)? ms to fill booked$/);
  await screenshot(page, "timeline-01-dashboard-1440", false);

  // Webhook Config: the 24 h summary counts it.
  await page.goto("/webhook");
  await waitForHydration(page, problems);
  const summary = page.getByTestId("latency-summary");
  await expect.poll(async () => (await summary.innerText()).includes("1 alert since"), { timeout: 10_000 }).toBe(true);
  expect(await summary.getByTestId("latency-step").count()).toBe(6);
  expect(await summary.getByTestId("latency-total").innerText()).toMatch(
    /^Received → fill booked \(market orders\)\s+1\s+\d+(\.\d)? ms\s+\d+(\.\d)? ms$/,
  );
  expect(await summary.locator('[data-from="received"] [data-testid="latency-p50"]').innerText()).toMatch(
    /^\d+(\.\d)? ms$/,
  );

  // A phone: both fit the width.
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await noHorizontalOverflow(page)).toBe(true);
  await summary.scrollIntoViewIfNeeded();
  await screenshot(page, "timeline-02-webhook-390", false);
  await page.goto("/dashboard");
  await waitForHydration(page, problems);
  const phoneDetails = page.getByTestId("signal-timeline-details").first();
  await phoneDetails.locator("summary").click();
  // The page sent only the latency line; opening it loads the hops (decision 043).
  await expect.poll(() => phoneDetails.getByTestId("timeline-step").count(), { timeout: 10_000 }).toBe(7);
  await phoneDetails.scrollIntoViewIfNeeded();
  expect(await noHorizontalOverflow(page)).toBe(true);
  await screenshot(page, "timeline-03-dashboard-390", false);
  await page.setViewportSize({ width: 1440, height: 900 });

  expect(unexpectedErrors(problems)).toEqual([]);
});
