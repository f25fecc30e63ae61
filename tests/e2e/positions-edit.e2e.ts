// Editing one position in a real browser with JavaScript on (issue 25, docs/decisions/048-edit-a-position.md,
// docs/spec/screens.md "Editing a position"), on its OWN app instance whose prices come from a
// fake Coinbase (ETH 3400, fixed): a webhook opens ETH-PERP long 0.5 under the default rules;
// the row's Edit link opens the form; a stop on the wrong side is refused in the browser by the
// server's own schema and rules' message after the post; then the stop is moved and the first
// take-profit changed, and the position carries them (GET /api/positions). The position's price
// chart, at 1440 and 390 px: a mark's Edit (its row in the levels list, or a click on its line)
// opens the same form on that field and a save returns to the chart. The login fixture
// (decision 045): the test signs in on its own and starts from a clean slate (resetTrading).
import { describe, expect, test } from "vitest";
import {
  type FakePrices,
  screenshot,
  type Page,
  type PageProblems,
  apiJson as apiJsonOf,
  h1,
  resetOnFakePrices,
  unexpectedErrors,
  useSuite,
  visible,
  waitForHydration,
} from "./utils.ts";

const ADMIN = { username: "edit_admin", password: "edit-admin-secret-1" };
let fakePrices: FakePrices | undefined;
let login: () => Promise<{ page: Page; problems: PageProblems }>;
let initialConfig: Record<string, unknown>;

useSuite({ label: "positionsedit", port: 5211, pricesPort: 5411, admin: ADMIN }, (suite) => {
  fakePrices = suite.fakePrices;
  login = () => suite.login();
  initialConfig = suite.initialConfig;
});

interface PositionJson {
  id: string;
  symbol: string;
  status: string;
  entryPrice: string;
  stopPrice: string | null;
  advancedControls: { takeProfits: { price?: string; enabled: boolean; portfolio: number }[] | null } | null;
}

/** A clean slate and an ETH-PERP long of 0.5 opened by a webhook under the default rules. */
async function openEth(page: Page): Promise<PositionJson> {
  await resetOnFakePrices(page, initialConfig, fakePrices!);
  const apiJson = <T>(p: string) => apiJsonOf<T>(page, p);
  const secret = (await apiJson<{ secret: string }>("/api/webhook-config")).secret;
  const res = await page.request.post("/api/webhook/tradingview", {
    headers: { "content-type": "text/plain" },
    data: JSON.stringify({
      secret,
      id: `edit-${Date.now()}`,
      action: "buy",
      symbol: "ETH-PERP",
      quantity: "0.5",
      order_type: "market",
    }),
  });
  expect(res.status()).toBe(200);
  let eth: PositionJson | undefined;
  await expect
    .poll(
      async () =>
        (eth = (await apiJson<PositionJson[]>("/api/positions")).find((p) => p.symbol === "ETH-PERP"))?.status,
      { timeout: 20_000, message: "ETH-PERP open" },
    )
    .toBe("open");
  return eth!;
}

describe("Editing a position (JavaScript on)", () => {
  test("Edit moves the stop and changes a take-profit; a stop above the price is refused with the reason", async () => {
    const { page, problems } = await login();
    const apiJson = <T>(p: string) => apiJsonOf<T>(page, p);
    const eth = await openEth(page);
    const entry = Number(eth.entryPrice);

    await page.goto("/positions");
    await visible(h1(page, "Futures Positions"));
    await waitForHydration(page, problems);
    await page.locator(`[data-testid=position-row][data-symbol="ETH-PERP"] [data-testid=position-edit-link]`).click();
    const form = page.getByTestId("position-edit");
    await visible(form);
    await waitForHydration(page, problems);

    // A long's stop above the price: refused, the old stop stays.
    const stop = page.getByTestId("edit-stop-loss");
    await stop.fill(String(Math.round(entry + 50)));
    await page.getByTestId("edit-save").click();
    await expect
      .poll(
        () =>
          page
            .getByTestId("position-edit-error")
            .innerText()
            .catch(() => ""),
        { timeout: 10_000 },
      )
      .toContain("A long's stop loss must be below the current price");
    expect((await apiJson<PositionJson[]>("/api/positions")).find((p) => p.id === eth.id)!.stopPrice).toBe(
      eth.stopPrice,
    );

    // The real edit: the stop 3 % below the entry, the first open level at entry + 2 % closing 25 %.
    const newStop = String(Math.round(entry * 0.97));
    const newTp = String(Math.round(entry * 1.02));
    await page.getByTestId("edit-stop-loss").fill(newStop);
    await page.getByTestId("edit-tp-price-0").fill(newTp);
    await page.getByTestId("edit-tp-close-0").fill("25");
    await page.getByTestId("edit-save").click();
    await expect.poll(() => new URL(page.url()).search, { timeout: 10_000 }).toBe("");
    await expect
      .poll(
        async () => {
          const p = (await apiJson<PositionJson[]>("/api/positions")).find((x) => x.id === eth.id)!;
          const levels = (p.advancedControls?.takeProfits ?? []).filter((l) => l.enabled);
          return {
            stop: p.stopPrice,
            tp1: levels.map((l) => l.price ?? null).includes(newTp),
            share: levels.find((l) => l.price === newTp)?.portfolio,
          };
        },
        { timeout: 10_000 },
      )
      .toEqual({ stop: newStop, tp1: true, share: 0.25 });
    expect(unexpectedErrors(problems, [400])).toEqual([]);
  });
  test("The price chart's marks open the one edit form on their field and a save returns to the chart, at 1440 and 390 px", async () => {
    const { page, problems } = await login();
    const apiJson = <T>(p: string) => apiJsonOf<T>(page, p);
    const eth = await openEth(page);
    const entry = Number(eth.entryPrice);
    const chartPath = `/positions/${eth.id}/chart`;
    const stopRow = page.locator("[data-testid=chart-level][data-kind=sl]");
    /** The position's chart, hydrated and drawn (its candles come from the price loop) with a line per mark. */
    const openChart = async () => {
      await page.goto(chartPath);
      await waitForHydration(page, problems);
      await expect
        .poll(async () => (await page.getByTestId("price-chart-canvas").getAttribute("data-lines")) ?? "", {
          timeout: 20_000,
        })
        .toContain("SL");
    };

    for (const [width, height, factor] of [
      [1440, 900, 0.97],
      [390, 844, 0.975],
    ] as const) {
      await page.setViewportSize({ width, height });
      await openChart();
      // The entry offers no Edit; the stop's row does.
      expect(
        await page.locator("[data-testid=chart-level][data-kind=entry] [data-testid=chart-level-edit]").count(),
      ).toBe(0);
      const edit = stopRow.getByTestId("chart-level-edit");
      await visible(edit);
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth),
        `scrollWidth at ${width}`,
      ).toBeLessThanOrEqual(width);
      await screenshot(page, `positions-edit-chart-marks-${width}`);
      await edit.click();

      // The one edit form, on the stop: focused, and its back is the chart.
      await visible(page.getByTestId("position-edit"));
      await waitForHydration(page, problems);
      expect(new URL(page.url()).searchParams.get("focus")).toBe("stopLoss");
      await expect.poll(() => page.evaluate(() => document.activeElement?.id ?? "")).toBe("edit-stopLoss");
      const box = await page.getByTestId("edit-stop-loss").boundingBox();
      expect(box!.y).toBeGreaterThanOrEqual(0);
      expect(box!.y + box!.height).toBeLessThanOrEqual(height);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await screenshot(page, `positions-edit-from-chart-${width}`, false);

      const newStop = String(Math.round(entry * factor));
      await page.getByTestId("edit-stop-loss").fill(newStop);
      await page.getByTestId("edit-save").click();
      await expect.poll(() => new URL(page.url()).pathname, { timeout: 10_000 }).toBe(chartPath);
      await expect.poll(() => stopRow.locator("td").first().innerText(), { timeout: 10_000 }).toBe(newStop);
      expect((await apiJson<PositionJson[]>("/api/positions")).find((p) => p.id === eth.id)!.stopPrice).toBe(newStop);
    }

    // With JavaScript a click on a mark's line on the chart opens the same form on that mark:
    // the pointer over the canvas, top to bottom, until the cursor says a mark is under it.
    await page.setViewportSize({ width: 1440, height: 900 });
    await openChart();
    const canvas = page.getByTestId("price-chart-canvas");
    const area = (await canvas.boundingBox())!;
    let hit: number | null = null;
    for (let y = area.y + 2; y < area.y + area.height - 30 && hit === null; y += 2) {
      await page.mouse.move(area.x + area.width / 3, y);
      if ((await canvas.evaluate((el) => (el as HTMLElement).style.cursor)) === "pointer") hit = y;
    }
    expect(hit, "a mark's line under the pointer").not.toBeNull();
    await page.mouse.click(area.x + area.width / 3, hit!);
    await expect.poll(() => new URL(page.url()).searchParams.get("edit"), { timeout: 10_000 }).toBe(eth.id);
    expect(new URL(page.url()).searchParams.get("focus")).toMatch(/^(stopLoss|breakEven|trailing|tp\d+)$/);
    await visible(page.getByTestId("position-edit"));
    expect(unexpectedErrors(problems, [400])).toEqual([]);
  });
});
