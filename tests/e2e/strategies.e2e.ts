// Strategies in a real browser (issue 12, docs/decisions/027-strategies.md), on the file's
// own app: the admin creates a strategy on the Strategies screen, sees its webhook URL and
// alert message (with its own secret), an alert sent with that secret trades through the real
// pipeline, and Trade History filtered by the strategy shows its trade and nothing else. The
// screen fits at 1440 and 390 px. Screenshots in test-results/e2e/strategies-*.png. Each test
// signs in on its own (suite.login) and makes the state it needs (the first test removes any
// Breakout strategy and starts clean; the second makes Breakout through the API if missing),
// so either runs alone (`-t`) and in any order.
import { describe, expect, test } from "vitest";
import {
  type FakePrices,
  type Page,
  type PageProblems,
  type RunningApp,
  type Session,
  h1,
  resetTrading,
  screenshot,
  useSuite,
  visible,
  waitForHydration,
} from "./utils.ts";

const ADMIN = { username: "strategies_admin", password: "strategies-admin-secret-1" };

let app: RunningApp;
let fakePrices: FakePrices | undefined;
let login: () => Promise<Session>;
let initialConfig: Record<string, unknown>;
// The running test's own page (set by start()).
let page: Page;
let problems: PageProblems;

useSuite(
  {
    label: "strategies",
    port: 5131,
    pricesPort: 5331,
    admin: ADMIN,
  },
  (suite) => {
    fakePrices = suite.fakePrices;
    app = suite.app!;
    ({ login, initialConfig } = suite);
  },
);

/** The test's own start: the admin signed in on a new context. */
async function start(): Promise<void> {
  ({ page, problems } = await login());
}

const strategiesNamed = async (name: string) =>
  (
    (await (await page.request.get("/api/strategies")).json()) as { strategies: { id: string; name: string }[] }
  ).strategies.filter((s) => s.name === name);

/** The first test's strategy as the API makes it, unless it is there: Breakout, amount ×2, 2x, ETH-PERP only. */
async function ensureBreakout(): Promise<void> {
  if ((await strategiesNamed("Breakout")).length > 0) return;
  const made = await page.request.post("/api/strategies", {
    data: { name: "Breakout", amountType: "multiplier", amountValue: "2", leverage: 2, allowedSymbols: ["ETH-PERP"] },
  });
  expect(made.status(), await made.text()).toBe(201);
}

const noOverflow = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);

describe("strategies", () => {
  test("create a strategy, read its URL and alert message, trade with its secret, filter Trade History by it", async () => {
    await start();
    // A clean slate, and no Breakout yet: this test creates it on the screen.
    await resetTrading(page, initialConfig);
    for (const { id } of await strategiesNamed("Breakout"))
      expect((await page.request.delete(`/api/strategies/${id}`)).status()).toBe(200);
    await expect
      .poll(() => fakePrices?.requests ?? 0, { timeout: 15_000, message: "the price loop asked the fake Coinbase" })
      .toBeGreaterThan(0);
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto("/strategies");
    await waitForHydration(page, problems);
    await visible(h1(page, "Strategies"));

    const form = page.getByTestId("strategy-create");
    await form.getByLabel("Name").fill("Breakout");
    await form.getByLabel("Amount type").selectOption("multiplier");
    await form.getByLabel("Amount value").fill("2");
    await form.getByLabel("Leverage").fill("2");
    await form.getByLabel("Stop-loss offset").fill("1");
    await form.locator('input[name="allowedSymbols"][value="ETH-PERP"]').check();
    await form.getByRole("button", { name: "Create Strategy" }).click();

    const card = page.getByTestId("strategy-Breakout");
    await visible(card);
    await expect.poll(() => form.getByLabel("Name").inputValue()).toBe(""); // a fresh form for the next one
    const url = (await card.getByTestId("strategy-url").textContent())!.trim();
    expect(url).toBe(`${app.baseUrl}/api/webhook/tradingview`);
    const message = JSON.parse((await card.getByTestId("strategy-alert").textContent())!) as Record<string, string>;
    expect(message).toMatchObject({ symbol: "{{ticker}}", action: "{{strategy.order.action}}" });
    expect(message.secret).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(await noOverflow()).toBe(true);
    await screenshot(page, "strategies-1440");

    // The alert TradingView would send, with the strategy's secret.
    const sent = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "text/plain" },
      body: JSON.stringify({
        ...message,
        action: "buy",
        symbol: "ETHUSDT.P",
        quantity: "0.5",
        order_type: "market",
        price: "3400",
        timestamp: new Date().toISOString(),
        strategy: "e2e",
      }),
    });
    expect(sent.status).toBe(200);
    // A default-strategy trade too, which the filter must hide.
    const global = (await (await page.request.get("/api/webhook-config")).json()) as { secret: string };
    expect(
      (
        await fetch(url, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({
            secret: global.secret,
            action: "buy",
            symbol: "SOL-PERP",
            quantity: "1",
            order_type: "market",
          }),
        })
      ).status,
    ).toBe(200);

    // Both orders filled (Trade History polls every 30 s: open it once they are).
    await expect
      .poll(
        async () =>
          ((await (await page.request.get("/api/trades?limit=10")).json()) as { symbol: string; status: string }[])
            .map((t) => `${t.symbol} ${t.status}`)
            .sort()
            .join(", "),
        { timeout: 30_000, interval: 250 },
      )
      .toBe("ETH-PERP executed, SOL-PERP executed");
    await page.goto("/history");
    await waitForHydration(page, problems);
    expect((await page.getByTestId("trade-history").textContent()) ?? "").toContain("SOL-PERP");
    await page.getByTestId("trade-strategy-filter").selectOption({ label: "Breakout" });
    await expect.poll(() => page.url(), { timeout: 10_000 }).toContain("strategy=");
    await expect
      .poll(async () => (await page.getByTestId("trade-history").textContent()) ?? "", {
        timeout: 20_000,
        interval: 500,
      })
      .toContain("ETH-PERP");
    const filtered = (await page.getByTestId("trade-history").textContent()) ?? "";
    expect(filtered).not.toContain("SOL-PERP");
    expect(filtered).toContain("1 trade");

    // The strategy's trade: sized ×2, at its leverage.
    const trades = (await (
      await page.request.get(`/api/trades?limit=10&${new URL(page.url()).searchParams.toString()}`)
    ).json()) as { symbol: string; quantity: string; leverage: number }[];
    expect(trades.map((t) => [t.symbol, t.quantity, t.leverage])).toEqual([["ETH-PERP", "1", 2]]);

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/strategies");
    await waitForHydration(page, problems);
    const phoneCard = page.getByTestId("strategy-Breakout");
    await visible(phoneCard);
    // The alert template builder, with the strategy's name and (masked) secret.
    await phoneCard.locator("summary").click();
    const builder = page.locator('[data-testid^="alert-builder-"]').first();
    await visible(builder);
    expect(await noOverflow()).toBe(true);
    await screenshot(page, "strategies-390");
  }, 90_000);

  test("the strategy's Send test alert: its steps and latency timeline fill in on its card; the statistics list it", async () => {
    await start();
    await ensureBreakout();
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto("/strategies");
    await waitForHydration(page, problems);
    const card = page.getByTestId("strategy-Breakout");
    await visible(card);
    const positionsBefore = ((await (await page.request.get("/api/positions")).json()) as unknown[]).length;
    await card.getByTestId("test-alert-send").click();
    const progress = page.getByTestId("strategy-Breakout").getByTestId("test-alert-progress");
    await visible(progress);
    await expect.poll(() => progress.getAttribute("data-settled"), { timeout: 20_000 }).toBe("yes");
    expect(await progress.getByTestId("test-alert-status").innerText()).toBe("executed");
    // {{ticker}} on a strategy limited to ETH-PERP: the test trades ETH-PERP, sized by the strategy (x2).
    expect(await progress.getByTestId("test-alert-reason").innerText()).toMatch(
      /^Test alert: BUY 0\.02 ETH-PERP filled at [\d,.]+ on the simulator's test account/,
    );
    const timeline = progress.getByTestId("signal-timeline");
    await expect.poll(() => timeline.getAttribute("data-last-hop"), { timeout: 10_000 }).toBe("filled");
    expect(((await (await page.request.get("/api/positions")).json()) as unknown[]).length).toBe(positionsBefore);
    expect(await page.getByTestId("strategy-stats").innerText()).toContain("Breakout");
    await screenshot(page, "strategies-test-alert");
    expect(problems.errors).toEqual([]);
  }, 60_000);
});
