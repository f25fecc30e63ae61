// Market Data, Profiles and Reports in a real browser (docs/spec/screens.md, api.md#validation, api.md, api.md#errors, figures.md#defaults-and-limits), on their
// OWN app instance (fresh SQLite DATA_DIR, started from the global setup's frozen build).
// The market tabs (cards, search and filter, a card opening its details); a profile created,
// funded by a transfer, refused an overdraft and deleted into another (dialogs with their
// validation, toasts of §8), and created again without JavaScript; a CSV fills report
// generated, followed to ready and downloaded with its contents checked; a PDF report opened
// with pdf.js and its first page rendered to PNG. Screenshots in test-results/e2e/accounts-*.png.
// Prices come from a fake Coinbase and hold still (the 24 h volume is then one figure however
// long the page takes). Each test signs in on its own (suite.login) and makes what it looks at
// itself (the profiles back to the paper account alone, its own trade, its own transfer), so
// any one runs alone (`-t`) and in any order (docs/decisions/045-browser-tests-login-fixture.md).
import { readFileSync } from "node:fs";
import path from "node:path";
import Big from "big.js";
import { describe, expect, test } from "vitest";
import {
  type Page,
  type Session,
  escapeRe,
  expectToastShown,
  gotoHydrated,
  maxToastsSeen,
  resetTrading,
  ROOT,
  screenshot,
  SCREENSHOT_DIR,
  squash,
  useSuite,
  waitForMarketPrices,
} from "./utils.ts";

const ADMIN = { username: "accounts_admin", password: "accounts-admin-secret-1" };
const FILLS_HEADER =
  "Trade ID,Order ID,Created At,Product,Side,Type,Size,Price,Fee,Total,Realized P&L (net of fees),Source";

let login: (options?: { javaScriptEnabled?: boolean }) => Promise<Session>;
let initialConfig: Record<string, unknown>;
// The running test's own page (set by each test from login()).
let page: Page;

useSuite({ label: "accounts", port: 5131, pricesPort: 5331, admin: ADMIN }, (suite) => {
  ({ login, initialConfig } = suite);
});

const cardBalance = (name: string) =>
  page.locator(
    `[data-testid="profile-card"][data-profile-name="${name}"] [data-testid="profile-balance"][data-currency="USDC"]`,
  );

interface ProfileJson {
  id: string;
  name: string;
  isDefault: boolean;
  balances: { currency: string; available: string; hold: string }[];
}
const profiles = async (p: Page) => (await (await p.request.get("/api/profiles")).json()) as ProfileJson[];

/** The paper account alone again: every other profile deleted into the default one (Paper trading). Answers it. */
async function onlyPaperTrading(p: Page): Promise<ProfileJson> {
  const all = await profiles(p);
  const paper = all.find((x) => x.isDefault)!;
  expect(paper.name).toBe("Paper trading");
  for (const other of all.filter((x) => !x.isDefault)) {
    const res = await p.request.delete(`/api/profiles/${other.id}`, { data: { toProfileId: paper.id } });
    expect(res.status(), await res.text()).toBe(200);
  }
  return (await profiles(p)).find((x) => x.isDefault)!;
}

/** A USDC balance as the profile cards show it (eight decimals). */
const usdc = (amount: Big | string) => `USDC ${new Big(amount).toFixed(8)}`;

describe("accounts: Market Data, Profiles, Reports (SQLite, own instance)", () => {
  test("1. the first account is the admin", async () => {
    ({ page } = await login());
    expect(await (await page.request.get("/api/user")).json()).toMatchObject({
      username: ADMIN.username,
      role: "admin",
    });
  });

  test("2. Market Data: overview cards, pairs search and filter, a card opens its details", async () => {
    let problems: Session["problems"];
    ({ page, problems } = await login());
    // The price feed writes the first prices within a few seconds of the start.
    await waitForMarketPrices(page);
    await gotoHydrated(page, "/market-data", "Market Data", problems);
    const cards = squash(await page.getByTestId("market-cards").innerText());
    expect(cards).toContain("Total Products 4");
    // Real figures only (decision 049): the paper exchange's own 24 h volume with its source, nothing
    // invented: Σ volume × last price of the products (0.00 before any fill; another test's
    // fills count too, and the prices hold still).
    const products = (await (await page.request.get("/api/market/products")).json()) as {
      volume24h: string | null;
      price: string | null;
    }[];
    expect(products.every((p) => p.volume24h !== null && p.price !== null)).toBe(true);
    const notional = products.reduce((sum, p) => sum.plus(new Big(p.volume24h!).times(p.price!)), new Big(0));
    // Volumes with K / M (docs/spec/figures.md#defaults-and-limits), two decimals.
    const shownVolume = notional.gte(1_000_000)
      ? `${notional.div(1_000_000).toFixed(2)}M`
      : notional.gte(1000)
        ? `${notional.div(1000).toFixed(2)}K`
        : notional.toFixed(2);
    expect(cards).toContain(`24h Volume ${shownVolume} USDC 4 products, volume × last price · simulator (paper fills)`);
    for (const text of ["Market Cap", "Dominance", "Static reference figure"]) expect(cards).not.toContain(text);
    await expect.poll(() => page.getByTestId("top-gainers").innerText()).toContain("Top Gainers");
    // The simulator keeps its minute price history: the change is known (since the start here).
    expect(await page.getByTestId("top-losers").innerText()).not.toContain(
      "24h change not available from this exchange",
    );
    await screenshot(page, "accounts-market-overview");
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "accounts-market-overview-390");
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.getByRole("tab", { name: "Trading Pairs" }).click();
    await page.getByTestId("pairs-grid").waitFor();
    expect(await page.getByTestId("pair-card").count()).toBe(4);
    await page.getByTestId("pair-search").fill("sol");
    await expect
      .poll(async () =>
        page.getByTestId("pair-card").evaluateAll((els) => els.map((e) => e.getAttribute("data-product"))),
      )
      .toEqual(["SOL-PERP"]);
    expect(new URL(page.url()).search).toBe("?tab=pairs&q=sol");
    await page.getByTestId("pair-filter").selectOption("gainers");
    // Only products that rose are left (none, if nothing rose since the start).
    await expect
      .poll(async () =>
        (await page.getByTestId("pair-card").allInnerTexts()).every((t) => /(24h|Since start) \+\d/.test(squash(t))),
      )
      .toBe(true);
    await page.getByTestId("pair-filter").selectOption("all");
    await page.getByTestId("pair-search").fill("");
    await expect.poll(() => page.getByTestId("pair-card").count()).toBe(4);
    await screenshot(page, "accounts-market-pairs");

    await page
      .locator(
        '[data-testid="pair-card"][data-product="XRP-PERP"] a, [data-testid="pair-card"][data-product="XRP-PERP"] button',
      )
      .first()
      .click();
    const details = page.getByTestId("product-details");
    await details.waitFor();
    expect(await details.getAttribute("data-product")).toBe("XRP-PERP");
    const text = squash(await details.innerText());
    for (const part of [
      "Price Information",
      "Trading Information",
      "Market Data",
      "Base currency XRP",
      "Quote currency USDC",
      "Minimum market funds 10",
    ])
      expect(text).toContain(part);
    // The change over the history kept so far (younger than a day here), the paper exchange's own volume.
    expect(text).toMatch(/Change since .+ [+-]?\d+\.\d{2}%/);
    expect(text).toMatch(/24h volume \(paper fills\) /);
    expect(text).toMatch(/Price \d+\.\d{2} Mid-market price \d+\.\d{2} /); // docs/spec/figures.md#defaults-and-limits: two decimals at 1 or above
    expect(await page.getByRole("tab", { name: "Product Details" }).getAttribute("aria-selected")).toBe("true");
    await screenshot(page, "accounts-market-details");

    await gotoHydrated(page, "/market-data?tab=details", "Market Data", problems);
    expect(await page.getByTestId("select-product").innerText()).toContain("Select a Product");
    expect(problems.errors).toEqual([]);
  });

  test("3. Profiles: create (with validation), transfer, refuse an overdraft, delete into another", async () => {
    let problems: Session["problems"];
    ({ page, problems } = await login());
    // Nothing open (no funding moves the balance meanwhile), and the paper account alone. Its
    // balance is the fresh 10000 USDC until a test trades (test 5's fees and P&L stay in it),
    // so the figures below start from what it holds now.
    await resetTrading(page, initialConfig);
    const paper = await onlyPaperTrading(page);
    const start = new Big(paper.balances.find((b) => b.currency === "USDC")!.available);
    const traded = ((await (await page.request.get("/api/market/products")).json()) as { volume24h: string }[]).some(
      (p) => !new Big(p.volume24h).eq(0),
    );
    if (!traded) expect(start.toFixed(8), "the fresh paper account").toBe("10000.00000000");
    await gotoHydrated(page, "/profiles", "Profiles", problems);
    expect(await page.getByTestId("profile-card").count()).toBe(1);
    expect(squash(await cardBalance("Paper trading").innerText())).toBe(usdc(start));

    await page.getByRole("link", { name: "Create Profile" }).click();
    const create = page.getByTestId("profile-create-dialog");
    await create.getByRole("button", { name: "Create Profile" }).click();
    await create.getByText("Profile name is required").waitFor();
    await create.getByLabel("Profile name").fill("Swing");
    const t0 = Date.now();
    await create.getByRole("button", { name: "Create Profile" }).click();
    await expectToastShown(page, "Profile Created", "Profile Swing has been created", "default", t0);
    await create.waitFor({ state: "hidden" });
    await expect.poll(async () => squash(await cardBalance("Swing").innerText())).toBe("USDC 0.00000000");

    await page.getByRole("link", { name: "Transfer Funds" }).click();
    const transfer = page.getByTestId("profile-transfer-dialog");
    await transfer.getByRole("button", { name: "Transfer", exact: true }).click();
    for (const message of ["From profile is required", "To profile is required", "Amount is required"])
      await transfer.getByText(message).waitFor();
    const ids = await page.request
      .get("/api/profiles")
      .then((r) => r.json() as Promise<{ id: string; name: string }[]>);
    const idOf = (name: string) => ids.find((p) => p.name === name)!.id;
    await transfer.getByTestId("transfer-from").selectOption(idOf("Paper trading"));
    await transfer.getByTestId("transfer-to").selectOption(idOf("Swing"));
    await transfer.getByLabel("Amount").fill("1000.5");
    const t1 = Date.now();
    await transfer.getByRole("button", { name: "Transfer", exact: true }).click();
    await expectToastShown(
      page,
      "Transfer Complete",
      "Transferred 1000.5 USDC from Paper trading to Swing",
      "default",
      t1,
    );
    await expect.poll(async () => squash(await cardBalance("Swing").innerText())).toBe("USDC 1000.50000000");
    expect(squash(await cardBalance("Paper trading").innerText())).toBe(usdc(start.minus("1000.5")));

    // An overdraft: the server's reason in an 'Error' toast, nothing moved.
    await page
      .locator('[data-testid="profile-card"][data-profile-name="Swing"]')
      .getByRole("link", { name: "Transfer" })
      .click();
    await transfer.getByTestId("transfer-to").selectOption(idOf("Paper trading"));
    await transfer.getByLabel("Amount").fill("5000");
    const t2 = Date.now();
    await transfer.getByRole("button", { name: "Transfer", exact: true }).click();
    await expectToastShown(
      page,
      "Error",
      "Insufficient funds: Swing has 1000.5 USDC available, the transfer needs 5000 USDC",
      "destructive",
      t2,
    );
    expect(await transfer.innerText()).toContain("Insufficient funds");
    await transfer.getByRole("button", { name: "Cancel" }).click();
    await transfer.waitFor({ state: "hidden" });
    expect(squash(await cardBalance("Swing").innerText())).toBe("USDC 1000.50000000");
    await screenshot(page, "accounts-profiles");

    await page
      .locator('[data-testid="profile-card"][data-profile-name="Swing"]')
      .getByRole("link", { name: "Delete" })
      .click();
    const del = page.getByTestId("profile-delete-dialog");
    expect(await del.innerText()).toContain("Delete Swing? Its funds move to the profile you choose");
    await del.getByRole("button", { name: "Delete Profile" }).click();
    await del.getByText("Destination profile is required").waitFor();
    await screenshot(page, "accounts-profile-delete");
    await del.getByTestId("delete-destination").selectOption(idOf("Paper trading"));
    const t3 = Date.now();
    await del.getByRole("button", { name: "Delete Profile" }).click();
    await expectToastShown(
      page,
      "Profile Deleted",
      "Profile Swing deleted; its funds moved to Paper trading",
      "default",
      t3,
    );
    await expect.poll(() => page.getByTestId("profile-card").count()).toBe(1);
    expect(squash(await cardBalance("Paper trading").innerText())).toBe(usdc(start));
    expect(await maxToastsSeen(page)).toBe(1);
    // The refused overdraft answered 409 on purpose (Chromium logs every non-2xx load).
    expect(
      problems.errors.filter((e) => !/status of 409 \(Conflict\) \(http:\/\/[^)]+\/profiles\?_data=/.test(e)),
    ).toEqual([]);
  });

  test("4. Profiles without JavaScript: the dialog opens from its link and the form posts", async () => {
    const { page: p } = await login({ javaScriptEnabled: false });
    await p.goto("/profiles");
    await p.getByRole("link", { name: "Create Profile" }).click();
    await p.waitForURL(/dialog=create/);
    const dialog = p.getByTestId("profile-create-dialog");
    await dialog.getByLabel("Profile name").fill("Plain HTML");
    await dialog.getByRole("button", { name: "Create Profile" }).click();
    await p.waitForURL((url) => url.pathname === "/profiles" && !url.search);
    expect(squash(await p.getByTestId("toast").innerText())).toBe(
      "Profile Created Profile Plain HTML has been created",
    );
    await p.locator('[data-testid="profile-card"][data-profile-name="Plain HTML"]').waitFor();
    await screenshot(p, "accounts-profiles-nojs");
  });

  test("5. Reports: a CSV fills report is generated, turns ready and downloads with the trade in it", async () => {
    let problems: Session["problems"];
    ({ page, problems } = await login());
    // The file's only trade: the fills report of ETH-PERP holds it alone.
    await waitForMarketPrices(page);
    const placed = await page.request.post("/api/trades", {
      data: { symbol: "ETH-PERP", side: "buy", orderType: "market", amountType: "quantity", quantity: "0.5" },
    });
    expect(placed.status()).toBe(201);
    const tradeId = ((await placed.json()) as { trade: { id: string } }).trade.id;
    await expect
      .poll(
        async () =>
          ((await (await page.request.get("/api/trades?limit=10")).json()) as { id: string; status: string }[]).find(
            (t) => t.id === tradeId,
          )?.status,
        { timeout: 20_000 },
      )
      .toBe("executed");

    await gotoHydrated(page, "/reports", "Reports", problems);
    // No fills report yet (test 6 makes an account report: the filter leaves it out).
    await page.getByTestId("filter-type").selectOption("fills");
    await page.getByTestId("reports-empty").waitFor();
    await page.getByRole("link", { name: "Generate Report" }).click();
    const dialog = page.getByTestId("generate-report-dialog");
    await dialog.getByTestId("report-type").selectOption("fills");
    await dialog.getByTestId("report-format").selectOption("csv");
    await dialog.getByTestId("report-product").selectOption("ETH-PERP");
    const t0 = Date.now();
    await dialog.getByRole("button", { name: "Generate" }).click();
    await expectToastShown(page, "Report Requested", "Your fills report (CSV) is being generated", "default", t0);
    const card = page.locator('[data-testid="report-card"][data-type="fills"]');
    // Live: the worker's activity event refreshes the card long before the 30 s poll.
    await expect.poll(() => card.getAttribute("data-status"), { timeout: 15_000 }).toBe("ready");
    await screenshot(page, "accounts-reports");

    const [download] = await Promise.all([page.waitForEvent("download"), card.getByTestId("report-download").click()]);
    expect(download.suggestedFilename()).toMatch(/^fills-report-\d{8}-[0-9a-f]{8}\.csv$/);
    const csv = readFileSync((await download.path())!, "utf8");
    const lines = csv.split("\r\n");
    expect(lines[0]).toBe(FILLS_HEADER);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(
      new RegExp(
        `^${escapeRe(tradeId)},[^,]+,\\d{4}-\\d\\d-\\d\\dT[^,]+,ETH-PERP,BUY,market,0\\.5,\\d+(\\.\\d+)?,\\d+(\\.\\d+)?,\\d+(\\.\\d+)?,,manual$`,
      ),
    );
    expect(lines[2]).toBe("");

    // A download the server refuses: the destructive toast of SPEC §8 with the reason.
    await page.route("**/api/reports/*/download", (route) =>
      route.fulfill({
        status: 410,
        contentType: "application/json",
        body: JSON.stringify({ error: "The report has expired: generate it again" }),
      }),
    );
    const t1 = Date.now();
    await card.getByTestId("report-download").click();
    await expectToastShown(
      page,
      "Failed to download report",
      "The report has expired: generate it again",
      "destructive",
      t1,
    );
    await page.unroute("**/api/reports/*/download");

    await page.getByTestId("filter-type").selectOption("balance");
    await page.getByTestId("reports-empty").waitFor();
    await page.getByTestId("filter-type").selectOption("all");
    await card.waitFor();
    // The refused download answered 410 on purpose.
    expect(
      problems.errors.filter(
        (e) => !/status of 410 \(Gone\) \(http:\/\/[^)]+\/api\/reports\/[^/]+\/download\)/.test(e),
      ),
    ).toEqual([]);
  });

  test("6. Reports: a PDF account report opens in pdf.js and its first page renders to PNG", async () => {
    let problems: Session["problems"];
    let context: Session["context"];
    ({ page, problems, context } = await login());
    // A transfer out of the paper account for the report to list: to a profile of its own, deleted back after.
    const paper = await onlyPaperTrading(page);
    const made = await page.request.post("/api/profiles", { data: { name: "Report ledger" } });
    expect(made.status(), await made.text()).toBe(201);
    const ledger = (await profiles(page)).find((x) => x.name === "Report ledger")!;
    const moved = await page.request.post("/api/profiles/transfer", {
      data: { fromProfileId: paper.id, toProfileId: ledger.id, currency: "USDC", amount: "1" },
    });
    expect(moved.status(), await moved.text()).toBe(200);
    await onlyPaperTrading(page);
    await gotoHydrated(page, "/reports", "Reports", problems);
    await page.getByRole("link", { name: "Generate Report" }).click();
    const dialog = page.getByTestId("generate-report-dialog");
    await dialog.getByTestId("report-type").selectOption("account");
    await dialog.getByTestId("report-format").selectOption("pdf");
    await dialog.getByRole("button", { name: "Generate" }).click();
    const card = page.locator('[data-testid="report-card"][data-type="account"][data-format="pdf"]');
    await expect.poll(() => card.getAttribute("data-status"), { timeout: 15_000 }).toBe("ready");
    const href = await card.getByTestId("report-download").getAttribute("href");
    const response = await page.request.get(href!);
    expect(response.headers()["content-type"]).toBe("application/pdf");
    const pdf = await response.body();
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");

    // pdf.js (pdfjs-dist) served from node_modules on a page of its own.
    const viewer = await context.newPage();
    const pdfjsRoot = path.join(ROOT, "node_modules/pdfjs-dist");
    await viewer.route("http://pdfjs.test/**", async (route) => {
      const pathname = new URL(route.request().url()).pathname;
      if (pathname === "/")
        return route.fulfill({
          contentType: "text/html",
          body: "<!doctype html><html><body style='margin:0;background:#fff'><canvas id='page'></canvas><script type='module'>import * as pdfjs from '/build/pdf.min.mjs'; pdfjs.GlobalWorkerOptions.workerSrc = '/build/pdf.worker.min.mjs'; window.pdfjsLib = pdfjs;</script></body></html>",
        });
      const file = path.join(pdfjsRoot, pathname);
      if (!file.startsWith(pdfjsRoot)) return route.fulfill({ status: 404 });
      return route.fulfill({
        path: file,
        contentType: pathname.endsWith(".mjs") ? "text/javascript" : "application/octet-stream",
      });
    });
    await viewer.goto("http://pdfjs.test/");
    await viewer.waitForFunction(() => "pdfjsLib" in window, undefined, { timeout: 15_000 });
    const rendered = await viewer.evaluate(async (base64) => {
      // biome-ignore lint: the module the page loaded
      const pdfjs = (window as unknown as { pdfjsLib: any }).pdfjsLib;
      const data = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const doc = await pdfjs.getDocument({ data, standardFontDataUrl: "/standard_fonts/" }).promise;
      const first = await doc.getPage(1);
      const viewport = first.getViewport({ scale: 1.5 });
      const canvas = document.getElementById("page") as HTMLCanvasElement;
      canvas.width = viewport.width;
      canvas.height = viewport.height;
      await first.render({ canvas, canvasContext: canvas.getContext("2d")!, viewport }).promise;
      const text = (await first.getTextContent()).items.map((item: { str?: string }) => item.str ?? "").join(" ");
      const pixels = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height).data;
      let dark = 0;
      for (let i = 0; i < pixels.length; i += 4) if (pixels[i]! < 128 && pixels[i + 3]! > 0) dark++;
      return { pages: doc.numPages, text, width: canvas.width, dark };
    }, pdf.toString("base64"));
    expect(rendered.pages).toBe(1);
    expect(rendered.width).toBe(1263); // A4 landscape, 842 pt x 1.5
    expect(rendered.text).toContain("Account report");
    expect(rendered.text).toContain("Profile: Paper trading");
    expect(rendered.text).toContain("transfer_out");
    expect(rendered.dark).toBeGreaterThan(1000); // text was drawn
    await viewer.locator("#page").screenshot({ path: path.join(SCREENSHOT_DIR, "accounts-report-pdf-page1.png") });
    await viewer.close();
    expect(problems.errors).toEqual([]);
  });
});
