// Safe on a public server (issue 10) in a real browser, on the file's OWN app instance: the
// admin invites from the Users screen, a trader registers by the invite link and trades, a
// viewer sees no trading controls, a stranger gets the closed registration notice, a trader
// enrols in 2FA and signs in with JavaScript on (app code) and off (recovery code), the admin
// resets 2FA and disables an account (its open page is signed out). Screenshots of the Users
// and Account screens at 1440 and 390 px in test-results/e2e/security-*.png. Each test signs
// in on its own (suite.login: the file's admin, or a new trader or viewer invited by it) and
// makes what it looks at itself (a trader with 2FA on, a position, a clean slate), so any one
// runs alone (`-t`) and in any order (docs/decisions/045-browser-tests-login-fixture.md).
import { createHmac } from "node:crypto";
import { describe, expect, test } from "vitest";
import {
  type Browser,
  type Page,
  type Role,
  type Session,
  expectToastShown,
  field,
  freshPage,
  gotoHydrated,
  newContext,
  pathOf,
  registerAccount,
  resetTrading,
  screenshot,
  squash,
  submitLogin,
  useSuite,
  visible,
  waitForHydration,
  watchProblems,
  waitForMarketPrices,
} from "./utils.ts";

const ADMIN = { username: "sec_admin", password: "sec-admin-secret-1" };
const TRADER = { username: "sec_trader", password: "sec-trader-secret-1" };

let baseUrl: string;
let browser: Browser;
let login: (options?: { role?: Role; javaScriptEnabled?: boolean }) => Promise<Session>;
let initialConfig: Record<string, unknown>;
// Prices from a fake Coinbase that hold still: on the random walk a position's stop-loss could
// close it before the test that opened it looks.
useSuite({ label: "security", port: 5151, pricesPort: 5351, admin: ADMIN }, (suite) => {
  ({ baseUrl, browser, login, initialConfig } = suite);
});

// RFC 6238 (HMAC-SHA1, 6 digits, 30 s), as the phone's authenticator app computes it.
function totp(secret: string, step = Math.floor(Date.now() / 30_000)): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = 0;
  let value = 0;
  const bytes: number[] = [];
  for (const c of secret.replace(/\s/g, "")) {
    value = (value << 5) | alphabet.indexOf(c);
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac("sha1", Buffer.from(bytes)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}

async function signIn(target: Page, account: { username: string; password: string }) {
  await target.goto("/login");
  await submitLogin(target, account);
}

/** A trader of its own (suite.login) with 2FA turned on from the Account screen, as test 4 does: its page, the authenticator's secret and the ten recovery codes. */
async function traderWithTwoFactor(): Promise<Session & { secret: string; recoveryCodes: string[] }> {
  const trader = await login({ role: "trader" });
  await gotoHydrated(trader.page, "/account", "Account", trader.problems);
  await trader.page.getByTestId("start-enrolment").click();
  await visible(trader.page.getByTestId("two-factor-qr"));
  const secret = (await trader.page.getByTestId("two-factor-secret").innerText()).replace(/\s/g, "");
  await trader.page.getByTestId("confirm-code").fill(totp(secret));
  await trader.page.getByTestId("confirm-submit").click();
  await visible(trader.page.getByTestId("recovery-codes"));
  const recoveryCodes = (await trader.page.getByTestId("recovery-code").allInnerTexts()).map((c) => c.trim());
  expect(recoveryCodes).toHaveLength(10);
  await expect.poll(() => trader.page.getByTestId("two-factor-state").innerText(), { timeout: 5000 }).toBe("on");
  return { ...trader, secret, recoveryCodes };
}

/** A market BUY of 0.01 ETH-PERP placed by `page`'s user through POST /api/trades, open as a position once it returns. */
async function openEthPosition(page: Page): Promise<void> {
  await waitForMarketPrices(page);
  const placed = await page.request.post("/api/trades", {
    data: { symbol: "ETH-PERP", side: "buy", orderType: "market", amountType: "quantity", quantity: "0.01" },
  });
  expect(placed.status(), await placed.text()).toBe(201);
  await expect
    .poll(
      async () =>
        ((await (await page.request.get("/api/positions")).json()) as { symbol: string; status: string }[]).filter(
          (p) => p.symbol === "ETH-PERP" && p.status === "open",
        ).length,
      { timeout: 20_000, message: "an open ETH-PERP position" },
    )
    .toBe(1);
}

describe("security: invitations, roles, 2FA, the Users screen (SQLite, own instance)", () => {
  test("1. the first account is the admin; a stranger then finds registration closed", async () => {
    const { page, problems } = await login();
    expect((await (await page.request.get("/api/user")).json()) as { username: string; role: string }).toMatchObject({
      username: ADMIN.username,
      role: "admin",
    });
    await gotoHydrated(page, "/users", "Users", problems);
    const stranger = await freshPage(browser, baseUrl);
    try {
      await gotoHydrated(stranger.page, "/register", "Create account", stranger.problems);
      expect(squash(await stranger.page.getByTestId("registration-closed").innerText())).toBe(
        "Registration is by invitation: ask the admin for an invite link",
      );
      expect(await stranger.page.getByRole("button", { name: "Create account" }).count()).toBe(0);
      const api = await stranger.page.request.post("/api/register", {
        data: { username: "stranger", password: "secret123" },
      });
      expect(api.status()).toBe(403);
      expect(stranger.problems.errors).toEqual([]);
    } finally {
      await stranger.page.context().close();
    }
    expect(problems.errors).toEqual([]);
  });

  test("2. Users screen: the admin creates a trader invite link; the trader registers with it and places an order", async () => {
    const { page, problems } = await login();
    await gotoHydrated(page, "/users", "Users", problems);
    await page.getByTestId("invite-role").selectOption("trader");
    await page.getByTestId("create-invite").click();
    await expectToastShown(
      page,
      "Invitation created",
      "A trader invite link is ready: copy it below and send it to the person.",
      "default",
    );
    const url = await page.getByTestId("invite-url").first().inputValue();
    expect(url).toMatch(/\/register\?invite=[A-Za-z0-9_-]{22}$/);
    await page.setViewportSize({ width: 1440, height: 900 });
    await screenshot(page, "security-01-users-1440");
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "security-02-users-390");
    await page.setViewportSize({ width: 1440, height: 900 });

    // The trader's own context (not one of login()'s: this account registers on the screen).
    const traderContext = await newContext(browser, baseUrl);
    try {
      const traderPage = await traderContext.newPage();
      const traderProblems = watchProblems(traderPage);
      await registerAccount(traderPage, traderProblems, {
        ...TRADER,
        invite: new URL(url).pathname + new URL(url).search,
      });
      expect(((await (await traderPage.request.get("/api/user")).json()) as { role: string }).role).toBe("trader");

      // The invitation is used up: it is gone from the screen (login() uses each invite it makes at once).
      await gotoHydrated(page, "/users", "Users", problems);
      await visible(page.getByTestId("no-invites"));
      expect(await page.locator(`[data-testid="user-row"][data-username="${TRADER.username}"]`).count()).toBe(1);

      // The trader trades: a market BUY from Manual Trading.
      await waitForMarketPrices(traderPage);
      await gotoHydrated(traderPage, "/manual-trading", "Manual Trading", traderProblems);
      const form = traderPage.getByTestId("manual-trade-form");
      await form.getByLabel("Quantity", { exact: true }).fill("0.01");
      const since = Date.now();
      await form.getByRole("button", { name: "Buy / Long", exact: true }).click();
      await expectToastShown(
        traderPage,
        "Trade Executed",
        "BUY order for ETH-PERP has been placed successfully",
        "default",
        since,
      );
      // But settings are the admin's.
      expect((await traderPage.goto("/trading-rules"))?.status()).toBe(403);
      expect(traderProblems.errors.filter((e) => !e.includes("403"))).toEqual([]);
    } finally {
      await traderContext.close();
    }
    expect(problems.errors).toEqual([]);
  });

  test("3. a viewer sees no trading controls; it may still stop trading, not reset the stop", async () => {
    // Something to look at: a position of the admin's, and no emergency stop.
    const admin = await login();
    await resetTrading(admin.page, initialConfig);
    await openEthPosition(admin.page);
    const { page: viewerPage, problems: viewerProblems } = await login({ role: "viewer" });
    expect(((await (await viewerPage.request.get("/api/user")).json()) as { role: string }).role).toBe("viewer");

    await gotoHydrated(viewerPage, "/manual-trading", "Manual Trading", viewerProblems);
    await visible(viewerPage.getByTestId("orders-not-allowed"));
    expect(await viewerPage.getByRole("button", { name: "Buy / Long" }).count()).toBe(0);

    expect(((await (await viewerPage.request.get("/api/positions")).json()) as unknown[]).length).toBeGreaterThan(0);
    await gotoHydrated(viewerPage, "/positions", "Futures Positions", viewerProblems);
    await visible(viewerPage.getByTestId("position-row"));
    expect(await viewerPage.getByRole("button", { name: /^Close/ }).count()).toBe(0);
    await screenshot(viewerPage, "security-03-viewer-positions");

    // The server refuses what the screen hides.
    const order = await viewerPage.request.post("/api/trades", {
      data: { symbol: "ETH-PERP", side: "buy", orderType: "market", amountType: "quantity", quantity: "0.01" },
    });
    expect(order.status()).toBe(403);
    await gotoHydrated(viewerPage, "/dashboard", "Dashboard", viewerProblems);
    await visible(viewerPage.getByRole("button", { name: "Emergency Stop", exact: true }));
    expect(await viewerPage.getByRole("button", { name: "Reset Emergency Stop" }).count()).toBe(0);
    for (const name of ["Webhook Config", "API Settings", "Trading Rules", "Users"]) {
      expect(await viewerPage.getByTestId("sidebar").getByRole("link", { name, exact: true }).count(), name).toBe(0);
    }
    expect(viewerProblems.errors).toEqual([]);
  });

  test("4. the trader turns on 2FA with JavaScript: QR code, a code from the app, ten recovery codes", async () => {
    const { page: traderPage, problems: traderProblems } = await login({ role: "trader" });
    await traderPage.setViewportSize({ width: 1440, height: 900 });
    await gotoHydrated(traderPage, "/account", "Account", traderProblems);
    expect(await traderPage.getByTestId("two-factor-state").innerText()).toBe("off");
    await traderPage.getByTestId("start-enrolment").click();
    await visible(traderPage.getByTestId("two-factor-qr"));
    expect(
      await traderPage.getByTestId("two-factor-qr").evaluate((img) => (img as HTMLImageElement).naturalWidth),
    ).toBeGreaterThan(0);
    const secret = (await traderPage.getByTestId("two-factor-secret").innerText()).replace(/\s/g, "");
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await screenshot(traderPage, "security-04-account-enrol-1440");

    await traderPage.getByTestId("confirm-code").fill("000000" === totp(secret) ? "111111" : "000000");
    await traderPage.getByTestId("confirm-submit").click();
    await visible(traderPage.getByText("That code is not valid. Check your authenticator app and try again."));

    await traderPage.getByTestId("confirm-code").fill(totp(secret));
    await traderPage.getByTestId("confirm-submit").click();
    await visible(traderPage.getByTestId("recovery-codes"));
    const recoveryCodes = (await traderPage.getByTestId("recovery-code").allInnerTexts()).map((c) => c.trim());
    expect(recoveryCodes).toHaveLength(10);
    await expect.poll(() => traderPage.getByTestId("two-factor-state").innerText(), { timeout: 5000 }).toBe("on");
    await screenshot(traderPage, "security-05-account-codes-1440");
    await traderPage.setViewportSize({ width: 390, height: 844 });
    await screenshot(traderPage, "security-06-account-390");
    await traderPage.setViewportSize({ width: 1440, height: 900 });
    expect(traderProblems.errors.filter((e) => !e.includes("403") && !e.includes("401"))).toEqual([]);
  });

  test("5. sign in with 2FA, JavaScript on: password, then the app's code", async () => {
    const { user, secret } = await traderWithTwoFactor();
    const { page: p, problems: watch } = await freshPage(browser, baseUrl);
    try {
      await signIn(p, user);
      await p.waitForURL((url) => url.pathname === "/two-factor", { timeout: 10_000 });
      await waitForHydration(p, watch);
      await screenshot(p, "security-07-two-factor");
      // The code for the next 30 s step: the enrolment used this one, and a code works once.
      const next = totp(secret, Math.floor(Date.now() / 30_000) + 1);
      await field(p, "Authentication code").fill(next);
      await p.getByRole("button", { name: "Verify", exact: true }).click();
      await p.waitForURL((url) => url.pathname === "/dashboard", { timeout: 10_000 });
      expect(((await (await p.request.get("/api/user")).json()) as { username: string }).username).toBe(user.username);
      expect(watch.errors).toEqual([]);
    } finally {
      await p.context().close();
    }
  });

  test("6. sign in with 2FA, JavaScript off: password, then a recovery code", async () => {
    const { user, recoveryCodes } = await traderWithTwoFactor();
    const { page: p } = await freshPage(browser, baseUrl, { javaScriptEnabled: false });
    try {
      await signIn(p, user);
      await p.waitForURL((url) => url.pathname === "/two-factor", { timeout: 10_000 });
      await field(p, "Authentication code").fill("wrong-code");
      await p.getByRole("button", { name: "Verify", exact: true }).click();
      await p.waitForLoadState("load");
      expect(pathOf(p)).toBe("/two-factor");
      expect(
        await p.getByText("Enter the 6-digit code from your authenticator app, or a recovery code").count(),
      ).toBeGreaterThan(0);
      await field(p, "Authentication code").fill(recoveryCodes[0]!);
      await p.getByRole("button", { name: "Verify", exact: true }).click();
      await p.waitForURL((url) => url.pathname === "/dashboard", { timeout: 10_000 });
      await p.goto("/account");
      expect(await p.getByTestId("recovery-left").innerText()).toBe("9");
      await screenshot(p, "security-08-account-nojs");
    } finally {
      await p.context().close();
    }
  });

  test("7. the admin sees 2FA on, resets it, and disables the viewer, whose open page is signed out", async () => {
    const { user: trader } = await traderWithTwoFactor();
    const { user: viewer, page: viewerPage } = await login({ role: "viewer" });
    await gotoHydrated(viewerPage, "/dashboard", "Dashboard");
    const { page, problems } = await login();
    await gotoHydrated(page, "/users", "Users", problems);
    const traderRow = page.locator(`[data-testid="user-row"][data-username="${trader.username}"]`);
    expect(squash(await traderRow.innerText())).toContain("on");
    await page.getByTestId(`reset-2fa-${trader.username}`).click();
    await expectToastShown(
      page,
      "Two-factor authentication reset",
      `${trader.username} signs in with the password only until they set it up again.`,
      "default",
    );
    await expect.poll(async () => page.getByTestId(`reset-2fa-${trader.username}`).count()).toBe(0);

    await page.getByTestId(`toggle-${viewer.username}`).click();
    await expectToastShown(page, "User updated", `${viewer.username}: viewer, disabled`, "default");
    // The viewer's session ended at once: its next request lands on the login page.
    await viewerPage.goto("/dashboard");
    expect(pathOf(viewerPage)).toMatch(/^\/login/);
    await signIn(viewerPage, viewer);
    await viewerPage.waitForLoadState("load");
    expect(pathOf(viewerPage)).toMatch(/^\/login/);
    expect(problems.errors).toEqual([]);
  });

  test("8. Positions: a resting limit order is listed and cancelled; Flatten all leaves the account flat (1440 and 390 px)", async () => {
    // A clean slate, then the trader's one open position (test 2's market BUY, through the API).
    await resetTrading((await login()).page, initialConfig);
    const { page: traderPage, problems: traderProblems } = await login({ role: "trader" });
    await traderPage.setViewportSize({ width: 1440, height: 900 });
    await openEthPosition(traderPage);
    const products = (await (await traderPage.request.get("/api/market/products")).json()) as {
      productId: string;
      price: string;
    }[];
    const eth = Number(products.find((p) => p.productId === "ETH-PERP")!.price);
    const placed = await traderPage.request.post("/api/trades", {
      data: {
        symbol: "ETH-PERP",
        side: "buy",
        orderType: "limit",
        amountType: "quantity",
        quantity: "0.01",
        price: (eth * 0.5).toFixed(2),
      },
    });
    expect(placed.status()).toBe(201);
    await expect
      .poll(async () => ((await (await traderPage.request.get("/api/orders")).json()) as unknown[]).length, {
        timeout: 15_000,
      })
      .toBe(1);
    await gotoHydrated(traderPage, "/positions", "Futures Positions", traderProblems);
    const orders = traderPage.getByTestId("open-orders");
    await visible(orders.getByTestId("open-order"));
    expect(squash(await orders.getByTestId("open-order").innerText())).toContain("BUY 0.0100 ETH-PERP limit");
    await screenshot(traderPage, "security-09-positions-open-order-1440");
    await traderPage.setViewportSize({ width: 390, height: 844 });
    await screenshot(traderPage, "security-10-positions-open-order-390");
    await traderPage.setViewportSize({ width: 1440, height: 900 });

    let since = Date.now();
    await orders.getByRole("button", { name: "Cancel", exact: true }).click();
    await expectToastShown(
      traderPage,
      "Order Cancelled",
      "The order was cancelled and its margin released",
      "default",
      since,
    );
    await visible(orders.getByTestId("no-open-orders"));

    // Flatten all asks first, as Close does (issue 23, decision 041): dismissed, nothing is posted and the position stays.
    const dialogs: string[] = [];
    let accept = false;
    const onDialog = async (dialog: { message(): string; accept(): Promise<void>; dismiss(): Promise<void> }) => {
      dialogs.push(dialog.message());
      await (accept ? dialog.accept() : dialog.dismiss());
    };
    const flattenPosts: string[] = [];
    const onRequest = (request: { method(): string; url(): string }) => {
      if (request.method() === "POST" && new URL(request.url()).pathname === "/positions")
        flattenPosts.push(request.url());
    };
    traderPage.on("dialog", onDialog);
    traderPage.on("request", onRequest);
    try {
      await traderPage.getByTestId("flatten-all").click();
      await expect.poll(() => dialogs.length).toBe(1);
      expect(dialogs[0]).toBe(
        "Flatten all? Every resting order is cancelled and every open position is closed at market.",
      );
      await traderPage.evaluate(() => undefined);
      expect(flattenPosts).toEqual([]);
      // The list may be between two live refreshes (the cancel above): wait for it, the position must still be there.
      await expect.poll(() => traderPage.getByTestId("position-row").count()).toBe(1);
      // Accepted: the post (with confirm=1) flattens.
      accept = true;
      since = Date.now();
      await traderPage.getByTestId("flatten-all").click();
      await expectToastShown(
        traderPage,
        "Account Flat",
        "1 position closed, 0 orders cancelled; the exchange reports no open position",
        "default",
        since,
      );
      expect(dialogs).toHaveLength(2);
      expect(flattenPosts).toHaveLength(1);
    } finally {
      traderPage.off("dialog", onDialog);
      traderPage.off("request", onRequest);
    }
    await visible(traderPage.getByTestId("positions-empty"));
    await screenshot(traderPage, "security-11-positions-flat");
    expect(traderProblems.errors.filter((e) => !e.includes("403") && !e.includes("401"))).toEqual([]);
  });

  test("9. passwords (issue 23): the admin's one-time reset link sets a new one and signs the trader out; the trader then changes it on Account, the other session ends", async () => {
    const { user: trader, page: traderPage, problems: traderProblems } = await login({ role: "trader" });
    const { page, problems } = await login();
    // Users → Reset password (JavaScript on): the link is shown once.
    await gotoHydrated(page, "/users", "Users", problems);
    await page.getByTestId(`reset-password-${trader.username}`).click();
    const link = await page.getByTestId("reset-link-url").inputValue();
    expect(link).toMatch(/\/reset-password\?token=[A-Za-z0-9_-]{43}$/);
    expect(await page.getByTestId(`reset-password-${ADMIN.username}`).count()).toBe(0);

    // Whoever holds the link (no session) sets the new password; the trader's open session ends.
    const holder = await freshPage(browser, baseUrl);
    const other = await freshPage(browser, baseUrl);
    try {
      const holderPage = holder.page;
      await holderPage.goto(link);
      await waitForHydration(holderPage);
      expect(squash(await holderPage.getByTestId("reset-for").innerText())).toContain(trader.username);
      await holderPage.getByTestId("new-password").fill("sec-trader-reset-2");
      await holderPage.getByTestId("confirm-password").fill("sec-trader-reset-2");
      await holderPage.getByRole("button", { name: "Set new password" }).click();
      await holderPage.waitForURL((url) => url.pathname === "/login");
      await expectToastShown(
        holderPage,
        "Password changed",
        `Sign in as ${trader.username} with your new password.`,
        "default",
      );
      await traderPage.goto("/dashboard");
      expect(pathOf(traderPage)).toMatch(/^\/login/);
      // Used up: opening it again says so.
      await holderPage.goto(link);
      await visible(holderPage.getByTestId("reset-invalid"));

      // Account → Change password (JavaScript on): a second session of the trader ends, this one stays.
      await signIn(traderPage, { ...trader, password: "sec-trader-reset-2" });
      const otherPage = other.page;
      await signIn(otherPage, { ...trader, password: "sec-trader-reset-2" });
      await gotoHydrated(traderPage, "/account", "Account", traderProblems);
      await traderPage.getByTestId("current-password").fill("sec-trader-reset-2");
      await traderPage.getByTestId("new-password").fill("sec-trader-changed-3");
      await traderPage.getByTestId("confirm-password").fill("sec-trader-changed-X");
      await traderPage.getByTestId("confirm-password").blur();
      // The shared schema answers in the browser, before any post.
      await visible(traderPage.getByText("Passwords don't match"));
      await traderPage.getByTestId("confirm-password").fill("sec-trader-changed-3");
      await traderPage.getByRole("button", { name: "Change password" }).click();
      await expectToastShown(
        traderPage,
        "Password changed",
        "Your 1 other session was signed out; this one stays signed in.",
        "default",
      );
      await otherPage.goto("/dashboard");
      expect(pathOf(otherPage)).toMatch(/^\/login/);
      await traderPage.goto("/dashboard");
      expect(pathOf(traderPage)).toBe("/dashboard");
    } finally {
      await holder.page.context().close();
      await other.page.context().close();
    }
    expect(problems.errors).toEqual([]);
  });
});
