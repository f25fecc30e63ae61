// Issue #2 in a real browser, against a fresh SQLite database: login and registration
// screens, validation messages, the first account as admin, the shell (header, sidebar,
// system status), logout, a failed login, a second account's role, every route of the
// routing table, the pages without JavaScript, and one toast at a time.
// Each test makes what it looks at and signs in on its own: the screens before the first
// account on an app of their own with no account yet (appWithoutAccounts), everything after it
// on the global setup's app with the file's admin (suite.login) or an account the test invites,
// so any one runs alone (`-t`) and in any order (docs/decisions/045-browser-tests-login-fixture.md).
import { afterAll, afterEach, describe, expect, inject, test } from "vitest";
import {
  type Browser,
  type BrowserContext,
  type Page,
  type PageProblems,
  type RunningApp,
  type Session,
  expectedStatusText,
  expectToastOnScreen,
  fetchHealth,
  field,
  fillRegistration,
  freePort,
  h1,
  maxToastsSeen,
  newContext,
  pathOf,
  inviteLink,
  registerAccount,
  screenshot,
  signedInWithoutJs,
  startApp,
  submitForm,
  submitLogin,
  unexpectedErrors,
  useSuite,
  visible,
  waitForHydration,
  watchProblems,
} from "./utils.ts";

const baseUrl = inject("baseUrl");

const ADMIN = { username: "admin_e2e", password: "admin-secret-1" };
const TRADER = { username: "trader_two", password: "trader-secret-2" };
const NOJS = { username: "nojs_third", password: "nojs-secret-3" };

const MAIN_ENTRIES = [
  "Dashboard",
  "Positions",
  "Exchanges",
  "Webhook Config",
  "API Settings",
  "Trading Rules",
  "Users",
  "Trade History",
];
const ADMIN_ONLY = ["Webhook Config", "API Settings", "Trading Rules", "Users"];

let browser: Browser;
let login: (options?: { role?: "admin" | "trader" }) => Promise<Session>;

useSuite({ label: "foundation", admin: ADMIN }, (suite) => {
  ({ browser, login } = suite);
});

// --- pages and apps of the tests' own ------------------------------------------------------

const contexts: BrowserContext[] = [];
afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close().catch(() => undefined);
  // An app someone registered on is of no more use: stopped now, its worker no longer slows the
  // tests after it.
  if (withoutAccounts?.registered) {
    await withoutAccounts.app.stop();
    withoutAccounts = undefined;
  }
});

/** A page of a new context on `url`'s app with nobody signed in (closed after the test). */
async function signedOutPage(url = baseUrl, options: { javaScriptEnabled?: boolean } = {}) {
  const context = await newContext(browser, url, options);
  contexts.push(context);
  const page = await context.newPage();
  return { page, problems: watchProblems(page) };
}

// The screens before the first account exist only on an app nobody registered on yet: one of
// the file's own (a fresh DATA_DIR, from the global setup's frozen build), started by the first
// test that asks, kept for the next while nobody registered on it, stopped after a test did.
let withoutAccounts: { app: RunningApp; registered: boolean } | undefined;
afterAll(async () => {
  await withoutAccounts?.app.stop();
});

async function appWithoutAccounts(): Promise<RunningApp> {
  if (!withoutAccounts || withoutAccounts.registered) {
    const port = await freePort(Number(process.env.E2E_FOUNDATION_PORT ?? 5171));
    withoutAccounts = { app: await startApp({ port, label: "foundation", cwd: inject("appDir") }), registered: false };
  }
  return withoutAccounts.app;
}

/** `page` opened on /positions while signed out: the login screen, back to /positions after, hydrated. */
async function loginScreenFromPositions(page: Page, problems: PageProblems): Promise<void> {
  const response = await page.goto("/positions");
  expect(response?.status()).toBe(200);
  expect(pathOf(page)).toBe("/login?redirectTo=%2Fpositions");
  await visible(h1(page, "Sign in"));
  await waitForHydration(page, problems);
}

// --- small page helpers ------------------------------------------------------------------

const sidebar = (page: Page) => page.getByTestId("sidebar");
const toasts = (page: Page) => page.getByTestId("toast");

async function expectShell(page: Page, username: string) {
  const banner = page.getByRole("banner");
  await visible(banner.getByTestId("platform-title"));
  expect((await banner.getByTestId("platform-title").innerText()).trim()).not.toBe("");
  expect((await banner.getByTestId("header-username").innerText()).trim()).toBe(username);
  await visible(banner.getByRole("button", { name: "Logout", exact: true }));
}

async function expectActiveEntry(page: Page, label: string | null) {
  const current = sidebar(page).locator('[aria-current="page"]');
  if (label === null) {
    await expect.poll(() => current.count()).toBe(0);
    return;
  }
  await expect.poll(() => current.allInnerTexts()).toEqual([label]);
  // The highlighted entry is the link itself (MUI's selected state), not some other node.
  const link = sidebar(page).getByRole("link", { name: label, exact: true });
  expect(await link.getAttribute("aria-current")).toBe("page");
  expect(await link.getAttribute("class")).toContain("Mui-selected");
  // And it shows: the stylesheet gives it the selected background.
  expect(await link.evaluate((el) => getComputedStyle(el).backgroundColor)).not.toBe("rgba(0, 0, 0, 0)");
}

async function expectSystemStatus(page: Page) {
  const block = page.getByTestId("system-status");
  await visible(block);
  const health = await fetchHealth(new URL(page.url()).origin, page);
  const { title, detail } = expectedStatusText(health);
  const text = (await block.innerText()).replace(/\s+/g, " ");
  expect(text).toContain(title);
  if (detail) expect(text).toContain(detail);
  for (const other of ["System Online", "System Warning", "System Error"].filter((t) => t !== title)) {
    expect(text).not.toContain(other);
  }
}

// --- the suite ---------------------------------------------------------------------------

describe("foundation (issue #2), SQLite", () => {
  test("1. logged out: /positions lands on the login screen; Create account / Sign in switch screens", async () => {
    const { page, problems } = await signedOutPage((await appWithoutAccounts()).baseUrl);
    await loginScreenFromPositions(page, problems);

    // The coming-soon perpetual contracts (docs/spec/README.md).
    const about = page.getByRole("region", { name: "About the product" });
    for (const contract of ["BTC-PERP", "ETH-PERP", "SOL-PERP", "XRP-PERP"]) {
      await visible(about.getByText(contract, { exact: true }));
    }
    await visible(about.getByText("24/7 hands-free API automation"));
    await screenshot(page, "01-login");

    await page.getByRole("link", { name: "Create account", exact: true }).click();
    await visible(h1(page, "Create account"));
    expect(pathOf(page)).toBe("/register?redirectTo=%2Fpositions");
    await visible(field(page, "Confirm password"));

    await page.getByRole("link", { name: "Sign in", exact: true }).click();
    await visible(h1(page, "Sign in"));
    expect(pathOf(page)).toBe("/login?redirectTo=%2Fpositions");
    await expect.poll(() => page.getByLabel("Confirm password").count()).toBe(0);

    expect(problems.errors).toEqual([]);
  });

  test("2. validation messages: login required fields, registration rules", async () => {
    const { page, problems } = await signedOutPage((await appWithoutAccounts()).baseUrl);
    await loginScreenFromPositions(page, problems);
    // Login: both fields required.
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await visible(page.getByText("Username is required", { exact: true }));
    await visible(page.getByText("Password is required", { exact: true }));
    expect(await field(page, "Username").getAttribute("aria-invalid")).toBe("true");
    expect(await field(page, "Password").getAttribute("aria-invalid")).toBe("true");
    expect(pathOf(page)).toBe("/login?redirectTo=%2Fpositions");

    // Registration.
    await page.getByRole("link", { name: "Create account", exact: true }).click();
    await visible(h1(page, "Create account"));
    const username = field(page, "Username");
    await username.fill("ab");
    await username.blur();
    await visible(page.getByText("Username must be at least 3 characters", { exact: true }));
    expect(await username.getAttribute("aria-invalid")).toBe("true");

    await username.fill("bad name!");
    await visible(page.getByText("Username can only contain letters, numbers, and underscores", { exact: true }));
    await expect.poll(() => page.getByText("Username must be at least 3 characters", { exact: true }).count()).toBe(0);

    await field(page, "Password").fill("secret123");
    await field(page, "Confirm password").fill("secret124");
    await page.getByRole("button", { name: "Create account", exact: true }).click();
    await visible(page.getByText("Passwords don't match", { exact: true }));
    expect(await field(page, "Confirm password").getAttribute("aria-invalid")).toBe("true");
    expect(pathOf(page)).toBe("/register?redirectTo=%2Fpositions");
    await screenshot(page, "02-register-errors");

    expect(problems.errors).toEqual([]);
  });

  test("3. the first account is the admin: back to /positions, header, sidebar, system status", async () => {
    const app = await appWithoutAccounts();
    withoutAccounts!.registered = true;
    const { page, problems } = await signedOutPage(app.baseUrl);
    await loginScreenFromPositions(page, problems);
    await page.getByRole("link", { name: "Create account", exact: true }).click();
    await visible(h1(page, "Create account"));
    expect(pathOf(page)).toBe("/register?redirectTo=%2Fpositions");
    await fillRegistration(page, ADMIN.username, ADMIN.password);
    await page.getByRole("button", { name: "Create account", exact: true }).click();
    await page.waitForURL((url) => url.pathname === "/positions", { timeout: 15_000 });
    await visible(h1(page, "Futures Positions"));

    await expectShell(page, ADMIN.username);
    // The drawer's root box has no size of its own (its paper is fixed): check its entries.
    const nav = sidebar(page);
    await nav.waitFor({ state: "attached" });
    for (const label of MAIN_ENTRIES) await visible(nav.getByRole("link", { name: label, exact: true }));
    await expectActiveEntry(page, "Positions");
    await expectSystemStatus(page);

    // The session is the admin's.
    const me = await page.request.get("/api/user");
    expect(me.status()).toBe(200);
    expect(await me.json()).toMatchObject({ username: ADMIN.username, role: "admin" });

    // Client-side navigation moves the highlight.
    await nav.getByRole("link", { name: "Exchanges", exact: true }).click();
    await visible(h1(page, "Exchanges"));
    await expectActiveEntry(page, "Exchanges");
    await nav.getByRole("link", { name: "Positions", exact: true }).click();
    await visible(h1(page, "Futures Positions"));
    await expectActiveEntry(page, "Positions");

    await screenshot(page, "03-positions-admin");
    expect(problems.errors).toEqual([]);
  });

  test("4. logout: 'Logging out...' while busy, then the login screen with the 'Logged Out' toast", async () => {
    const { page, problems } = await login();
    const opened = await page.goto("/positions");
    expect(opened?.status()).toBe(200);
    await visible(h1(page, "Futures Positions"));
    await waitForHydration(page, problems);
    await expectShell(page, ADMIN.username);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held = 0;
    const isLogout = (url: URL) => url.pathname === "/logout";
    await page.route(isLogout, async (route) => {
      if (route.request().method() === "POST") {
        held += 1;
        await gate;
      }
      await route.continue();
    });
    try {
      await page.getByRole("banner").getByRole("button", { name: "Logout", exact: true }).click();
      const busy = page.getByRole("banner").getByRole("button", { name: "Logging out...", exact: true });
      await visible(busy);
      expect(await busy.isDisabled()).toBe(true);
      expect(held).toBe(1);
    } finally {
      release();
    }
    await page.waitForURL((url) => url.pathname === "/login", { timeout: 15_000 });
    await page.unroute(isLogout);
    await visible(h1(page, "Sign in"));
    expect(pathOf(page)).toBe("/login");
    await expectToastOnScreen(page, "Logged Out", "You have been successfully logged out");
    expect(await maxToastsSeen(page)).toBeLessThanOrEqual(1);

    // The session is really over.
    expect((await page.request.get("/api/user")).status()).toBe(401);
    await screenshot(page, "04-logged-out");
    expect(problems.errors).toEqual([]);
  });

  test("5. a wrong password: 'Login Failed' toast, form cleared, username focused; then the right one", async () => {
    const { page, problems: adminProblems } = await signedOutPage();
    expect((await page.goto("/login"))?.status()).toBe(200);
    await visible(h1(page, "Sign in"));
    await waitForHydration(page, adminProblems);
    await submitLogin(page, { username: ADMIN.username, password: "not-the-password" });
    await expectToastOnScreen(page, "Login Failed", "Invalid username or password. Please try again.");
    await expect.poll(() => field(page, "Username").inputValue()).toBe("");
    await expect.poll(() => field(page, "Password").inputValue()).toBe("");
    await expect.poll(() => field(page, "Username").evaluate((el) => el === document.activeElement)).toBe(true);
    expect(pathOf(page)).toBe("/login");
    expect(await maxToastsSeen(page)).toBeLessThanOrEqual(1);
    await screenshot(page, "05-login-failed");
    // The 401 of the failed attempt is the only thing the console may mention.
    expect(unexpectedErrors(adminProblems, [401])).toEqual([]);
    adminProblems.clear();

    // The right password signs the admin in (no redirectTo: the dashboard).
    await submitLogin(page, ADMIN);
    await page.waitForURL((url) => url.pathname === "/dashboard", { timeout: 15_000 });
    await visible(h1(page, "Dashboard"));
    await expectShell(page, ADMIN.username);
    await expectActiveEntry(page, "Dashboard");
    expect(adminProblems.errors).toEqual([]);
  });

  test("6. a second account, invited as a trader: no admin entries, admin screens answer 403", async () => {
    const { page: adminPage } = await login();
    const { page, problems } = await signedOutPage();
    await registerAccount(page, problems, { ...TRADER, invite: await inviteLink(adminPage, "trader") });
    await visible(h1(page, "Dashboard"));
    await expectShell(page, TRADER.username);

    const me = await page.request.get("/api/user");
    expect(await me.json()).toMatchObject({ username: TRADER.username, role: "trader" });

    const nav = sidebar(page);
    for (const label of MAIN_ENTRIES.filter((l) => !ADMIN_ONLY.includes(l))) {
      await visible(nav.getByRole("link", { name: label, exact: true }));
    }
    for (const label of ADMIN_ONLY) {
      expect(await nav.getByRole("link", { name: label, exact: true }).count()).toBe(0);
      expect(await nav.getByText(label, { exact: true }).count()).toBe(0);
    }
    // Only the admin role is named on screen (docs/spec/README.md).
    expect(await page.getByRole("banner").getByText("user", { exact: true }).count()).toBe(0);
    await screenshot(page, "06-user-dashboard");
    expect(problems.errors).toEqual([]);

    const adminScreens = [
      ["/webhook", "Webhook Config"],
      ["/api-settings", "API Settings"],
      ["/trading-rules", "Trading Rules"],
    ] as const;
    for (const [path, title] of adminScreens) {
      problems.clear();
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(403);
      await visible(h1(page, "Access denied"));
      await waitForHydration(page, problems);
      expect(await h1(page, title).count(), `${path} must not show its screen`).toBe(0);
      expect(await page.getByTestId("not-built-yet").count()).toBe(0);
      await screenshot(page, `06-access-denied${path.replace(/\//g, "-")}`);
      expect(unexpectedErrors(problems, [403]), path).toEqual([]);
    }
    expect(await maxToastsSeen(page)).toBeLessThanOrEqual(1);
  });

  test("7. every route of the routing table, as the admin; unknown paths are 404", async () => {
    const { page, problems: adminProblems } = await login();
    const routes: [path: string, title: string, activeEntry: string | null][] = [
      ["/", "Dashboard", "Dashboard"],
      ["/dashboard", "Dashboard", "Dashboard"],
      ["/positions", "Futures Positions", "Positions"],
      ["/exchanges", "Exchanges", "Exchanges"],
      ["/api-settings", "API Settings", "API Settings"],
      ["/webhook", "Webhook Config", "Webhook Config"],
      ["/trading-rules", "Trading Rules", "Trading Rules"],
      ["/manual-trading", "Manual Trading", "Manual Trading"],
      ["/history", "Trade History", "Trade History"],
      ["/trade-history", "Trade History", "Trade History"],
      ["/trades", "Trade History", "Trade History"],
      ["/signals", "Trade History", "Trade History"],
      ["/logs", "Activity Logs", "Activity Logs"],
      ["/profiles", "Profiles", "Profiles"],
      ["/market-data", "Market Data", "Market Data"],
      ["/reports", "Reports", "Reports"],
      ["/users", "Users", "Users"],
      ["/account", "Account", "Account"],
      ["/coming-soon", "Coming soon", null],
    ];
    const failures: string[] = [];
    for (const [path, title, activeEntry] of routes) {
      adminProblems.clear();
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(200);
      expect(new URL(page.url()).pathname, `${path} must not redirect`).toBe(path);
      await visible(h1(page, title));
      await waitForHydration(page, adminProblems);
      expect(await page.getByRole("heading", { level: 1 }).allInnerTexts(), path).toEqual([title]);
      await expectShell(page, ADMIN.username);
      await expectActiveEntry(page, activeEntry);
      await screenshot(page, `07-route${path === "/" ? "-root" : path.replace(/\//g, "-")}`);
      if (adminProblems.errors.length) failures.push(`${path}: ${adminProblems.errors.join(" | ")}`);
    }

    adminProblems.clear();
    const response = await page.goto("/no-such-page");
    expect(response?.status()).toBe(404);
    await visible(h1(page, "404 Page Not Found"));
    await waitForHydration(page, adminProblems);
    await screenshot(page, "07-route-404");
    const notFoundProblems = unexpectedErrors(adminProblems, [404]);
    if (notFoundProblems.length) failures.push(`/no-such-page: ${notFoundProblems.join(" | ")}`);

    expect(failures, "console or page errors").toEqual([]);
    expect(await maxToastsSeen(page)).toBeLessThanOrEqual(1);
    // Twenty pages, each hydrated and photographed: 20 s on a quiet machine, over 60 s on a busy one.
  }, 120_000);

  test("8. without JavaScript: styled login, server-side validation, register, logout, login", async () => {
    const { page: adminPage } = await login();
    const { page } = await signedOutPage(baseUrl, { javaScriptEnabled: false });
    const response = await page.goto("/login");
    expect(response?.status()).toBe(200);
    await visible(h1(page, "Sign in"));
    // Styled by the server-rendered critical CSS: dark background, the primary button colour.
    const bodyBackground = await page.locator("body").evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(bodyBackground).not.toBe("rgba(0, 0, 0, 0)");
    expect(bodyBackground).not.toBe("rgb(255, 255, 255)");
    const signIn = page.getByRole("button", { name: "Sign in", exact: true });
    const buttonBackground = await signIn.evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(buttonBackground).not.toBe("rgba(0, 0, 0, 0)");
    expect(buttonBackground).not.toBe(
      await page.locator("body").evaluate((el) => getComputedStyle(el).backgroundColor),
    );
    // MUI's CSS comes as a linked file named by its hash (decision 043), not inline.
    expect(await page.locator('link[rel="stylesheet"][href^="/build/emotion/"]').count()).toBe(1);
    await screenshot(page, "08-nojs-login");

    // Registration: first a mismatch, rejected by the server (no client validation without JS).
    await page.getByRole("link", { name: "Create account", exact: true }).click();
    await page.waitForURL((url) => url.pathname === "/register");
    await visible(h1(page, "Create account"));
    // After the first account, registering needs an invitation: the screen says so, no form.
    await visible(page.getByText("Registration is by invitation: ask the admin for an invite link"));
    expect(await page.getByLabel("Confirm password").count()).toBe(0);
    await screenshot(page, "08-nojs-register-closed");
    await page.goto(await inviteLink(adminPage, "viewer"));
    await visible(page.getByText("This account will be a viewer (read-only)."));
    await fillRegistration(page, NOJS.username, NOJS.password, `${NOJS.password}x`);
    expect(await submitForm(page, "/register", page.getByRole("button", { name: "Create account", exact: true }))).toBe(
      400,
    );
    await page.waitForLoadState("load");
    await visible(page.getByText("Passwords don't match", { exact: true }));
    expect(await field(page, "Username").inputValue()).toBe(NOJS.username);
    await screenshot(page, "08-nojs-register-error");

    await fillRegistration(page, NOJS.username, NOJS.password);
    await page.getByRole("button", { name: "Create account", exact: true }).click();
    await page.waitForURL((url) => url.pathname === "/dashboard", { timeout: 15_000 });
    await visible(h1(page, "Dashboard"));
    await expectShell(page, NOJS.username);
    await visible(sidebar(page).getByRole("link", { name: "Dashboard", exact: true }));
    await screenshot(page, "08-nojs-dashboard");

    // Logout is a plain form post too.
    await page.getByRole("banner").getByRole("button", { name: "Logout", exact: true }).click();
    await page.waitForURL((url) => url.pathname === "/login", { timeout: 15_000 });
    await visible(h1(page, "Sign in"));
    await expectToastOnScreen(page, "Logged Out", "You have been successfully logged out");
    await screenshot(page, "08-nojs-logged-out");

    await submitLogin(page, NOJS);
    await page.waitForURL((url) => url.pathname === "/dashboard", { timeout: 15_000 });
    await visible(h1(page, "Dashboard"));
    await expectShell(page, NOJS.username);
    // The flash toast was shown once and is gone on the next page.
    expect(await toasts(page).count()).toBe(0);
  });

  test("8b. a phone without JavaScript: the menu link opens the navigation, the backdrop closes it, a link leads on", async () => {
    const { page } = await login();
    const plain = await signedInWithoutJs(browser, baseUrl, page.context());
    contexts.push(plain.context());
    await plain.setViewportSize({ width: 390, height: 844 });
    await plain.goto("/dashboard");
    await visible(h1(plain, "Dashboard"));
    const positionsLink = sidebar(plain).getByRole("link", { name: "Positions", exact: true });
    // Closed: the docked navigation is not shown on a phone.
    expect(await positionsLink.isVisible()).toBe(false);
    await plain.getByRole("link", { name: "Open navigation", exact: true }).click();
    await expect.poll(() => positionsLink.isVisible()).toBe(true);
    const box = await positionsLink.boundingBox();
    expect(box!.x).toBeLessThan(390);
    await screenshot(plain, "08b-nojs-phone-navigation");
    // The backdrop beside the navigation closes it.
    await plain.getByRole("link", { name: "Close navigation", exact: true }).click({ position: { x: 360, y: 400 } });
    await expect.poll(() => positionsLink.isVisible()).toBe(false);
    // Open again, and a link leads to its screen (whose navigation is closed again).
    await plain.getByRole("link", { name: "Open navigation", exact: true }).click();
    await sidebar(plain).getByRole("link", { name: "Trade History", exact: true }).click();
    await plain.waitForURL((url) => url.pathname === "/history");
    await visible(h1(plain, "Trade History"));
    expect(await positionsLink.isVisible()).toBe(false);
  });

  test("9. toasts: one at a time (a new one replaces the current one), shown about 5 s", async () => {
    // A trader of its own (invited by the admin), signing in here on a page of its own.
    const { user: trader } = await login({ role: "trader" });
    const { page, problems } = await signedOutPage();
    await page.goto("/login");
    await visible(h1(page, "Sign in"));
    await waitForHydration(page, problems);
    await submitLogin(page, trader);
    await page.waitForURL((url) => url.pathname === "/dashboard", { timeout: 15_000 });

    await page.getByRole("banner").getByRole("button", { name: "Logout", exact: true }).click();
    await page.waitForURL((url) => url.pathname === "/login", { timeout: 15_000 });
    await expectToastOnScreen(page, "Logged Out", "You have been successfully logged out");

    // While 'Logged Out' is still up, a failed login replaces it.
    await submitLogin(page, { username: trader.username, password: "wrong-password-1" });
    await expectToastOnScreen(page, "Login Failed", "Invalid username or password. Please try again.");

    // And another one replaces that.
    await field(page, "Username").fill(trader.username);
    await field(page, "Password").fill("wrong-password-2");
    const answer = await submitForm(page, "/login", page.getByRole("button", { name: "Sign in", exact: true }));
    const shownFrom = Date.now();
    expect(answer).toBe(401);
    await expectToastOnScreen(page, "Login Failed", "Invalid username or password. Please try again.");
    await screenshot(page, "09-toast");
    expect(await maxToastsSeen(page)).toBe(1);

    // Shown for 5 s, then gone by itself.
    await expect.poll(() => toasts(page).count(), { timeout: 10_000, interval: 100 }).toBe(0);
    const shownFor = Date.now() - shownFrom;
    expect(shownFor).toBeGreaterThanOrEqual(4000);
    expect(shownFor).toBeLessThanOrEqual(7000);
    expect(await maxToastsSeen(page)).toBe(1);
    expect(unexpectedErrors(problems, [401])).toEqual([]);
  });
});
