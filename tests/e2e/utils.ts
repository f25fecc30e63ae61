// Helpers for the browser suite: starting the real app the way the README says
// (`bun scripts/start.ts`: migrations, then the web server and the worker), driving
// Debian's Chromium through playwright-core, and a few page checks.
import { Database } from "bun:sqlite";
import { type ChildProcess, execSync, spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { type Server as HttpServer, createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  type APIRequestContext,
  type Browser,
  type BrowserContext,
  type Locator,
  type Page,
  chromium,
  request as apiRequest,
} from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, expect, inject } from "vitest";
import { buildStaleness } from "../../scripts/build-state.mjs";
import { stopGroup, waitUntil } from "../support/process-group.ts";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
export const SCREENSHOT_DIR = path.join(ROOT, "test-results", "e2e");

// ---------------------------------------------------------------------------------------
// Build
// ---------------------------------------------------------------------------------------

/** Runs `npx remix build` when the build is missing, older than the sources, or a development build (scripts/build-state.mjs). */
export function ensureBuild(force = false): void {
  const reason = force ? "asked for" : buildStaleness(ROOT);
  if (!reason) return;
  console.log(`[e2e] building the app, npx remix build (${reason})...`);
  // As `npm run build` would: real Node (not the `node` shim `bun --bun` puts on PATH) and
  // a production build.
  execSync("npx remix build", {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...cleanEnv(), PATH: pathWithoutBunNode(), NODE_ENV: "production" },
  });
}

/** PATH without the directories whose `node` is really Bun. */
function pathWithoutBunNode(): string {
  return (process.env.PATH ?? "")
    .split(path.delimiter)
    .filter((dir) => {
      try {
        return !/^bun(\.exe)?$/.test(path.basename(realpathSync(path.join(dir, "node"))));
      } catch {
        return true;
      }
    })
    .join(path.delimiter);
}

/** The environment without the test runner's own variables. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("VITEST") && key !== "TEST") env[key] = value;
  }
  return env;
}

/**
 * A private copy of the build for this run: a temporary directory whose entries are
 * symlinks to the project (sources, node_modules, scripts) except build/ and public/,
 * which are copied. `remix build` (or `remix dev`) empties public/build, so a build run in
 * the working tree while the suite runs would otherwise make the running app's pages
 * unhydratable halfway through. The app is started from here exactly as from the project.
 */
export function snapshotApp(): { dir: string; remove(): void } {
  for (let attempt = 1; ; attempt++) {
    const dir = mkdtempSync(path.join(os.tmpdir(), "perpdesk-e2e-app-"));
    const links: string[] = [];
    const remove = () => {
      // Unlink the symlinks first: never let a recursive delete reach the project.
      for (const link of links) rmSync(link, { force: true });
      rmSync(dir, { recursive: true, force: true });
    };
    for (const entry of readdirSync(ROOT)) {
      if (["build", "public", "data", "test-results", ".git", ".cache"].includes(entry)) continue;
      const link = path.join(dir, entry);
      symlinkSync(path.join(ROOT, entry), link);
      links.push(link);
    }
    cpSync(path.join(ROOT, "build"), path.join(dir, "build"), { recursive: true });
    cpSync(path.join(ROOT, "public"), path.join(dir, "public"), { recursive: true });
    // Complete only if every asset the server build names was copied (a build may have
    // been emptying public/build at that very moment).
    const serverBuild = readFileSync(path.join(dir, "build/index.js"), "utf8");
    const assets = [...new Set(serverBuild.match(/"\/build\/[^"]+\.js"/g) ?? [])].map((a) => a.slice(1, -1));
    const missing = assets.filter((a) => !existsSync(path.join(dir, "public", a)));
    if (assets.length > 0 && missing.length === 0) return { dir, remove };
    remove();
    if (attempt >= 3)
      throw new Error(
        `[e2e] the build is incomplete (missing ${missing.slice(0, 3).join(", ")}...): run \`npx remix build\``,
      );
    ensureBuild(true);
  }
}

// ---------------------------------------------------------------------------------------
// The app under test
// ---------------------------------------------------------------------------------------

/** A free TCP port, starting the search at `preferred`. */
export async function freePort(preferred: number): Promise<number> {
  for (let port = preferred; port < preferred + 200; port++) {
    const ok = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen({ port, host: "0.0.0.0", exclusive: true }, () => server.close(() => resolve(true)));
    });
    if (ok) return port;
  }
  throw new Error(`no free port in ${preferred}..${preferred + 199}`);
}

export interface RunningApp {
  baseUrl: string;
  port: number;
  dataDir: string;
  /** Everything the processes printed so far. */
  log(): string;
  /** SIGTERM to the whole process group, then SIGKILL if anything is left. */
  stop(): Promise<void>;
}

/** Runs `use` on the app's own SQLite file (rows the screens cannot make: back-dated, foreign), waiting up to 10 s for the app's locks. */
export function withAppDatabase<T>(app: RunningApp, use: (db: Database) => T): T {
  const db = new Database(path.join(app.dataDir, "app.db"));
  try {
    db.exec("PRAGMA busy_timeout = 10000");
    return use(db);
  } finally {
    db.close();
  }
}

/**
 * Starts `bun scripts/start.ts` in its own process group (so the web server and the worker
 * it spawns can be stopped together) with a fresh DATA_DIR, and waits for GET /api/health.
 */
export async function startApp(options: {
  port: number;
  env?: Record<string, string>;
  label: string;
  cwd?: string;
}): Promise<RunningApp> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `perpdesk-e2e-${options.label}-`));
  const baseUrl = `http://127.0.0.1:${options.port}`;
  let output = "";
  const binDir = path.join(ROOT, "node_modules/.bin");
  const env: Record<string, string> = {
    ...cleanEnv(),
    PATH: `${binDir}${path.delimiter}${process.env.PATH ?? ""}`,
    PORT: String(options.port),
    DATA_DIR: dataDir,
    NODE_ENV: "production",
    // Nothing leaves the machine: Coinbase's public prices come from a fake when a suite
    // starts one; otherwise this address refuses at once and the simulator's walk is used.
    COINBASE_API_URL: "http://127.0.0.1:9",
    ...options.env,
  };
  // Never inherit the unit tests' secret or database: the app makes its own in DATA_DIR.
  delete env.APP_SECRET;
  if (!options.env?.DATABASE_URL) delete env.DATABASE_URL;

  const child: ChildProcess = spawn("bun", ["scripts/start.ts"], {
    cwd: options.cwd ?? ROOT,
    env: env as NodeJS.ProcessEnv,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const pgid = child.pid!;
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  let exited = false;
  child.on("exit", (code, signal) => {
    exited = true;
    output += `\n[e2e] start.ts exited (code ${code}, signal ${signal})\n`;
  });

  const stop = async () => {
    await stopGroup(pgid, 8000);
    rmSync(dataDir, { recursive: true, force: true });
  };

  const healthy = await waitUntil(
    async () => {
      if (exited) return true;
      try {
        const res = await fetch(`${baseUrl}/api/health`, { signal: AbortSignal.timeout(2000) });
        return res.status === 200;
      } catch {
        return false;
      }
    },
    30_000,
    250,
  );
  if (!healthy || exited) {
    await stop();
    throw new Error(
      `[e2e] the app (${options.label}) did not answer GET /api/health with 200 within 30 s. Server log:\n${output}`,
    );
  }
  return { baseUrl, port: options.port, dataDir, log: () => output, stop };
}

// ---------------------------------------------------------------------------------------
// Browser
// ---------------------------------------------------------------------------------------

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-quic",
      "--no-first-run",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

declare global {
  interface Window {
    __maxToasts?: number;
    __toastLog?: SeenToast[];
  }
}

/** A toast as it was first shown (see newContext): its text and variant. */
export interface SeenToast {
  /** Title and description, whitespace collapsed ("Trade Executed SELL order for ..."). */
  text: string;
  variant: string;
  at: number;
}

/**
 * A context whose pages record the largest number of toasts ever shown at once
 * (window.__maxToasts), so "one toast at a time" is checked all along, not just at the end,
 * and every toast ever shown (window.__toastLog), so a toast that a later one replaced
 * quickly can still be checked.
 */
export async function newContext(browser: Browser, baseURL: string, options: { javaScriptEnabled?: boolean } = {}) {
  const context = await browser.newContext({ baseURL, viewport: { width: 1280, height: 800 }, ...options });
  if (options.javaScriptEnabled !== false) {
    await context.addInitScript(() => {
      window.__maxToasts = 0;
      window.__toastLog = [];
      const seen = new WeakSet<Element>();
      const check = () => {
        const shown = document.querySelectorAll<HTMLElement>("[data-testid=toast]");
        const n = shown.length;
        if (n > (window.__maxToasts ?? 0)) window.__maxToasts = n;
        for (const el of shown) {
          if (seen.has(el)) continue;
          seen.add(el);
          const text = (el.innerText || el.textContent || "").replace(/\s+/g, " ").trim();
          window.__toastLog!.push({ text, variant: el.dataset.variant ?? "", at: Date.now() });
        }
      };
      new MutationObserver(check).observe(document, { childList: true, subtree: true });
    });
  }
  return context;
}

export const maxToastsSeen = (page: Page) => page.evaluate(() => window.__maxToasts ?? 0);

/** Every toast shown on the page so far, oldest first (pages of a newContext with JavaScript). */
export const toastsSeen = (page: Page): Promise<SeenToast[]> => page.evaluate(() => window.__toastLog ?? []);

export interface PageProblems {
  errors: string[];
  clear(): void;
}

/** Collects uncaught page errors and console errors (hydration failures show up here). */
export function watchProblems(page: Page): PageProblems {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") {
      const where = message.location()?.url ? ` (${message.location().url})` : "";
      errors.push(`console.error: ${message.text()}${where}`);
    }
  });
  return { errors, clear: () => errors.splice(0, errors.length) };
}

/**
 * Waits until React has hydrated the whole document: hydration attaches a fiber to
 * <html> only after the entire tree has rendered; the next frame is after the commit.
 */
export async function waitForHydration(page: Page, problems?: PageProblems, timeout = 15_000): Promise<void> {
  try {
    await page.waitForFunction(
      () => Object.keys(document.documentElement).some((key) => key.startsWith("__reactFiber$")),
      undefined,
      { timeout },
    );
  } catch (error) {
    const seen = problems?.errors.length ? `; page problems: ${problems.errors.join(" | ")}` : "";
    throw new Error(
      `${page.url()} was not hydrated within ${timeout} ms (${(error as Error).message.split("\n")[0]})${seen}`,
    );
  }
  await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
}

export async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage });
}

// ---------------------------------------------------------------------------------------
// A spec file's app, browser and first page
// ---------------------------------------------------------------------------------------

export interface Suite {
  /** The file's own app; undefined when it uses the global setup's shared one. */
  app: RunningApp | undefined;
  baseUrl: string;
  browser: Browser;
  /** The first (admin's) context and page, with its problems watched. */
  context: BrowserContext;
  page: Page;
  problems: PageProblems;
  /** The fake Coinbase prices, when the options asked for them (pricesPort). */
  fakePrices?: FakePrices;
  /**
   * The login fixture (options.admin): a new browser context of the test's own, signed in as
   * the file's admin or as a new user of `role` invited by it. Every context it opened is
   * closed after the test, so no test sees another's page, dialogs, routes or toasts.
   */
  login(options?: LoginOptions): Promise<Session>;
  /** The trading configuration of the fresh app (options.admin), for resetTrading. */
  initialConfig: Record<string, unknown>;
}

export type Role = "admin" | "trader" | "viewer";

export interface Account {
  username: string;
  password: string;
}

export interface LoginOptions {
  /** The file's admin (default), or a new account of this role, invited by the admin. */
  role?: Role;
  javaScriptEnabled?: boolean;
}

/** A test's own signed-in context and page (its problems watched). */
export interface Session {
  context: BrowserContext;
  page: Page;
  problems: PageProblems;
  user: Account & { role: Role };
}

export interface SuiteOptions {
  /** Names the app's DATA_DIR and the port variable E2E_<LABEL>_PORT. */
  label: string;
  /**
   * Starts an app of the file's own (a fresh SQLite DATA_DIR, from the global setup's
   * frozen build) on the first free port from here (or from E2E_<LABEL>_PORT). Without
   * it, the file uses the global setup's shared app.
   */
  port?: number;
  /** The app's environment. */
  env?: Record<string, string>;
  /** Runs before the app starts (a fake server, a database); what it returns is added to env. */
  before?: () => Promise<Record<string, string> | void>;
  /** Runs after the app and the browser stopped, even when setting up failed halfway. */
  after?: () => Promise<void>;
  /** Permissions granted to the first context and to every login() context for the app's origin (clipboard-read, ...). */
  permissions?: string[];
  /**
   * Fakes Coinbase's public prices for the file's app (startFakePrices) on the first free port
   * from here (or from E2E_<LABEL>_PRICE_PORT); the suite hands it over as `fakePrices`.
   */
  pricesPort?: number;
  /**
   * The file's admin: registered as the app's first account (POST /api/register) before the
   * tests, so each test can sign in on its own with `suite.login()`.
   */
  admin?: Account;
}

/**
 * Registers the file's hooks: before all tests, start the app (unless shared), the browser
 * and the first context and page, and hand them to `ready`; a setup error is reported by
 * every test (a failing beforeAll would only mark them skipped); after all, close the
 * browser, stop the app (printing its log with E2E_PRINT_SERVER_LOG), then `after`.
 */
export function useSuite(options: SuiteOptions, ready: (suite: Suite) => void): void {
  let app: RunningApp | undefined;
  let browser: Browser | undefined;
  let fakePrices: FakePrices | undefined;
  let setupError: unknown;
  let adminApi: APIRequestContext | undefined;
  let baseUrlOf = "";
  let initialConfig: Record<string, unknown> = {};
  let accounts = 0;
  const sessions: BrowserContext[] = [];

  const login = async (opts: LoginOptions = {}): Promise<Session> => {
    if (!browser || !adminApi || !options.admin) throw new Error("login() needs useSuite({ admin })");
    const role = opts.role ?? "admin";
    const context = await newContext(browser, baseUrlOf, { javaScriptEnabled: opts.javaScriptEnabled });
    sessions.push(context);
    if (options.permissions) await context.grantPermissions(options.permissions, { origin: baseUrlOf });
    let user: Account;
    if (role === "admin") {
      user = options.admin;
      const res = await context.request.post("/api/login", { data: user });
      if (res.status() !== 200) throw new Error(`login as ${user.username}: ${res.status()} ${await res.text()}`);
    } else {
      user = {
        username: `${options.label}_${role}_${++accounts}`,
        password: `${options.label}-${role}-secret-${accounts}`,
      };
      const invited = await adminApi.post("/api/invites", { data: { role } });
      if (invited.status() !== 201) throw new Error(`invite: ${invited.status()} ${await invited.text()}`);
      const invite = new URL(((await invited.json()) as { url: string }).url).searchParams.get("invite");
      const res = await context.request.post("/api/register", { data: { ...user, invite } });
      if (res.status() !== 201) throw new Error(`register ${user.username}: ${res.status()} ${await res.text()}`);
    }
    const page = await context.newPage();
    return { context, page, problems: watchProblems(page), user: { ...user, role } };
  };

  beforeAll(async () => {
    try {
      if (options.pricesPort !== undefined) {
        fakePrices = await startFakePrices(
          await freePort(Number(process.env[`E2E_${options.label.toUpperCase()}_PRICE_PORT`] ?? options.pricesPort)),
        );
      }
      const env = {
        ...options.env,
        ...(fakePrices ? { COINBASE_API_URL: fakePrices.url } : {}),
        ...(await options.before?.()),
      };
      let baseUrl = inject("baseUrl");
      if (options.port !== undefined) {
        const port = await freePort(Number(process.env[`E2E_${options.label.toUpperCase()}_PORT`] ?? options.port));
        app = await startApp({ port, label: options.label, cwd: inject("appDir"), env });
        baseUrl = app.baseUrl;
      }
      browser = await launchBrowser();
      const context = await newContext(browser, baseUrl);
      if (options.permissions) await context.grantPermissions(options.permissions, { origin: baseUrl });
      const page = await context.newPage();
      baseUrlOf = baseUrl;
      if (options.admin) {
        adminApi = await apiRequest.newContext({ baseURL: baseUrl });
        const res = await adminApi.post("/api/register", { data: options.admin });
        if (res.status() !== 201)
          throw new Error(`the file's admin ${options.admin.username}: ${res.status()} ${await res.text()}`);
        initialConfig = (
          (await (await adminApi.get("/api/trading-config")).json()) as { config: Record<string, unknown> }
        ).config;
      }
      ready({ app, baseUrl, browser, context, page, problems: watchProblems(page), fakePrices, login, initialConfig });
    } catch (error) {
      setupError = error;
    }
  });

  beforeEach(() => {
    if (setupError) throw setupError;
  });

  afterEach(async () => {
    for (const context of sessions.splice(0)) await context.close().catch(() => undefined);
  });

  afterAll(async () => {
    await adminApi?.dispose();
    await browser?.close();
    if (process.env.E2E_PRINT_SERVER_LOG && app) console.log(app.log());
    await app?.stop();
    await options.after?.();
    await fakePrices?.close();
  });
}

/**
 * A clean trading slate for one test, through the app's own admin features (`page` signed in
 * as an admin): the emergency stop reset, "Flatten all" until the exchange says flat, Reset
 * Statistics (trades, signals, positions, activity logs), and the trading configuration the
 * fresh app had (`suite.initialConfig`). What the test needs then, it makes itself.
 */
export async function resetTrading(page: Page, config: Record<string, unknown>): Promise<void> {
  expect((await page.request.post("/api/reset-emergency-stop")).status()).toBe(200);
  await expect
    .poll(
      async () => {
        const res = await page.request.post("/api/positions/close-all");
        return res.status() === 200 && ((await res.json()) as { flat: boolean }).flat;
      },
      { timeout: 60_000, interval: 500, message: "Flatten all: the exchange says flat" },
    )
    .toBe(true);
  await expect
    .poll(async () => (await page.request.post("/api/reset-stats")).status(), {
      timeout: 30_000,
      interval: 250,
      message: "Reset Statistics",
    })
    .toBe(200);
  const saved = await page.request.post("/api/trading-config", { data: config });
  expect(saved.status(), await saved.text()).toBe(200);
}

/**
 * resetTrading, then paper sizing per unit (not Coinbase contracts) and the fake Coinbase's
 * first prices again: the start of a suite whose prices come from a fake.
 */
export async function resetOnFakePrices(
  page: Page,
  config: Record<string, unknown>,
  fakePrices: FakePrices,
): Promise<void> {
  await resetTrading(page, config);
  const sizing = await page.request.post("/exchanges", {
    form: { intent: "contract-sizes", value: "false" },
    maxRedirects: 0,
  });
  expect(sizing.status()).toBe(302);
  await fakePrices.reset();
}

/**
 * Registers an account through the Create account screen; the first one is the admin, later
 * ones need an invite link (`account.invite`, from inviteLink).
 */
export async function registerAccount(
  page: Page,
  problems: PageProblems,
  account: { username: string; password: string; invite?: string },
): Promise<void> {
  await page.goto(account.invite ?? "/register");
  await h1(page, "Create account").waitFor({ state: "visible", timeout: 10_000 });
  await waitForHydration(page, problems);
  await fillRegistration(page, account.username, account.password);
  await page.getByRole("button", { name: "Create account", exact: true }).click();
  await page.waitForURL((url) => url.pathname === "/dashboard", { timeout: 15_000 });
}

/** Fills the Create account form on `page` (the confirmation is the password unless given). */
export async function fillRegistration(
  page: Page,
  username: string,
  password: string,
  confirm = password,
): Promise<void> {
  await field(page, "Username").fill(username);
  await field(page, "Password").fill(password);
  await field(page, "Confirm password").fill(confirm);
}

/** Fills the Sign in form on `page` with `account` and submits it (where it lands is the caller's check). */
export async function submitLogin(page: Page, account: { username: string; password: string }): Promise<void> {
  await field(page, "Username").fill(account.username);
  await field(page, "Password").fill(account.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

/** An invite link for `role`, made by the admin signed in on `adminPage` (POST /api/invites). */
export async function inviteLink(adminPage: Page, role: "admin" | "trader" | "viewer" = "trader"): Promise<string> {
  const response = await adminPage.request.post("/api/invites", { data: { role } });
  if (response.status() !== 201) throw new Error(`invite: ${response.status()} ${await response.text()}`);
  return ((await response.json()) as { url: string }).url;
}

/** The first page of a new context (no cookies), its problems watched; close it with `page.context().close()`. */
export async function freshPage(
  browser: Browser,
  baseUrl: string,
  options: { javaScriptEnabled?: boolean } = {},
): Promise<{ page: Page; problems: PageProblems }> {
  const context = await newContext(browser, baseUrl, options);
  const page = await context.newPage();
  return { page, problems: watchProblems(page) };
}

/** A page without JavaScript, signed in with the session cookies of `signedIn`; close its context (`page.context().close()`) when done. */
export async function signedInWithoutJs(browser: Browser, baseUrl: string, signedIn: BrowserContext): Promise<Page> {
  const context = await newContext(browser, baseUrl, { javaScriptEnabled: false });
  await context.addCookies(await signedIn.cookies());
  return context.newPage();
}

// ---------------------------------------------------------------------------------------
// Page checks every spec uses
// ---------------------------------------------------------------------------------------

/** Whitespace collapsed to single spaces, trimmed. */
export const squash = (s: string) => s.replace(/\s+/g, " ").trim();

export async function visible(locator: Locator, timeout = 10_000): Promise<void> {
  await locator.first().waitFor({ state: "visible", timeout });
}

/** Opens `pathname` (answered 200), waits for its heading `title` and for hydration. */
export async function gotoHydrated(
  page: Page,
  pathname: string,
  title: string,
  problems?: PageProblems,
): Promise<void> {
  const response = await page.goto(pathname);
  expect(response?.status(), pathname).toBe(200);
  await h1(page, title).waitFor({ state: "visible", timeout: 10_000 });
  await waitForHydration(page, problems);
}

/** Clicks `button` and returns the status of the POST to `pathname` it sends (a form's action, before any redirect is followed). */
export async function submitForm(page: Page, pathname: string, button: Locator): Promise<number> {
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname === pathname),
    button.click(),
  ]);
  return response.status();
}

/** The app's prices are known (the worker's price loop wrote them), so a market order can fill. */
export async function waitForMarketPrices(page: Page): Promise<void> {
  await expect
    .poll(
      async () =>
        ((await (await page.request.get("/api/market/products")).json()) as { price: string | null }[]).every(
          (p) => p.price !== null,
        ),
      { timeout: 30_000 },
    )
    .toBe(true);
}

/** GET `pathname` with the page's cookies: 200 and its JSON. */
export async function apiJson<T>(page: Page, pathname: string): Promise<T> {
  const res = await page.request.get(pathname);
  expect(res.status(), pathname).toBe(200);
  return (await res.json()) as T;
}

/**
 * A toast with this title and description was shown (at any time since `since`: a live
 * toast may replace it quickly, one toast at a time), with this variant.
 */
export async function expectToastShown(
  page: Page,
  title: string,
  description: string,
  variant: "default" | "destructive",
  since = 0,
): Promise<void> {
  const wanted = `${title} ${description}`;
  const seen = async () => (await toastsSeen(page)).filter((t) => t.at >= since).map((t) => `${t.variant}|${t.text}`);
  try {
    await expect
      .poll(seen, { timeout: 20_000, interval: 100, message: `toast '${wanted}' (${variant})` })
      .toContain(`${variant}|${wanted}`);
  } catch (error) {
    // Say which toasts did show: a different text is a different failure than none at all.
    throw new Error(`${(error as Error).message}\ntoasts seen: ${JSON.stringify(await seen())}`);
  }
}

/** Exactly one toast on screen now, with this title and description (without JavaScript: the server-rendered flash toast). */
export async function expectToastOnScreen(page: Page, title: string, description: string): Promise<void> {
  await expect
    .poll(async () => (await page.getByTestId("toast").allInnerTexts()).map(squash), { timeout: 10_000 })
    .toEqual([expect.stringMatching(new RegExp(`^${escapeRe(title)} ${escapeRe(description)}$`))]);
}

/**
 * A table row as a phone user reads it when CSS lays it out as a card (below 600 px,
 * app/components/ui/phone-cards.css.ts): its visible cells top to bottom, left to right, each
 * as the label its `::before` draws (the cell's data-label) and its text; squashed. The label
 * is only there when the card layout draws it, so this also checks the layout is on.
 */
export async function cardText(row: Locator): Promise<string> {
  const text = await row.evaluate((tr) =>
    [...tr.children]
      .map((td) => {
        const box = td.getBoundingClientRect();
        const content = getComputedStyle(td, "::before").content;
        const label = content.startsWith('"')
          ? (JSON.parse(content) as string)
          : content.startsWith("attr(")
            ? (td.getAttribute(content.slice(5, -1).trim()) ?? "")
            : "";
        return {
          top: Math.round(box.top),
          left: box.left,
          shown: box.height > 0,
          text: `${label} ${(td as HTMLElement).innerText}`,
        };
      })
      .filter((c) => c.shown)
      .sort((a, b) => a.top - b.top || a.left - b.left)
      .map((c) => c.text)
      .join(" "),
  );
  return squash(text);
}

/** Lines of a stat card: [title, value, description?]. */
export async function cardLines(page: Page, testId: string): Promise<string[]> {
  return (await page.getByTestId(testId).innerText())
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
}

/** Console errors other than the browser's own note about an expected non-2xx answer. */
export function unexpectedErrors(problems: PageProblems, allowedStatuses: number[] = []): string[] {
  return problems.errors.filter(
    (e) =>
      !allowedStatuses.some((s) =>
        e.startsWith(`console.error: Failed to load resource: the server responded with a status of ${s} `),
      ),
  );
}

/**
 * The page's live socket (/ws) answered by Playwright instead of the app: open, and silent.
 * For a test that counts a query's own polls: a live message would refresh that query too,
 * whenever the worker happens to publish one.
 */
export async function silenceLiveUpdates(page: Page): Promise<void> {
  await page.routeWebSocket(
    (url) => url.pathname === "/ws",
    () => undefined,
  );
}

/**
 * Resolves once the page's live socket (/ws) has said hello: from then on every event reaches
 * the page. Ask before the navigation that opens the socket, await after it.
 */
export function liveSocketReady(page: Page, timeout = 20_000): Promise<unknown> {
  return page
    .waitForEvent("websocket", { predicate: (ws) => new URL(ws.url()).pathname === "/ws", timeout })
    .then((ws) =>
      ws.waitForEvent("framereceived", {
        predicate: (frame) => String(frame.payload).includes('"type":"hello"'),
        timeout,
      }),
    );
}

/** Counts the requests a page makes whose method and path match, until stopped. */
export function countRequests(page: Page, match: (method: string, path: string) => boolean) {
  const seen: string[] = [];
  const listener = (r: { method(): string; url(): string }) => {
    const p = new URL(r.url()).pathname;
    if (match(r.method(), p)) seen.push(`${r.method()} ${p}`);
  };
  page.on("request", listener);
  return { seen, stop: () => page.off("request", listener) };
}

// ---------------------------------------------------------------------------------------
// The app's own rules, restated from docs/spec/ for the expectations
// ---------------------------------------------------------------------------------------

export interface HealthAnswer {
  status: string;
  systemStatus: { component: string; status: string; message: string }[];
  checkedAt: string;
}

/** docs/spec/screens.md (Sidebar): the status block's title and detail for a health answer. */
export function expectedStatusText(health: HealthAnswer): { title: string; detail: string | null } {
  const entries = health.systemStatus;
  if (entries.length > 0 && entries.every((e) => e.status === "online")) {
    return { title: "System Online", detail: "All services running" };
  }
  if (entries.some((e) => e.status === "warning")) return { title: "System Warning", detail: null };
  return { title: "System Error", detail: "Check system status" };
}

/**
 * GET /api/health. Anonymous callers get each component's status only (issue 10); pass a
 * signed-in page to get the messages as well.
 */
export async function fetchHealth(baseUrl: string, signedIn?: Page): Promise<HealthAnswer> {
  if (signedIn) {
    const res = await signedIn.request.get(`${baseUrl}/api/health`);
    if (res.status() !== 200) throw new Error(`GET /api/health answered ${res.status()}`);
    return (await res.json()) as HealthAnswer;
  }
  const res = await fetch(`${baseUrl}/api/health`);
  if (res.status !== 200) throw new Error(`GET /api/health answered ${res.status}`);
  return (await res.json()) as HealthAnswer;
}

/** Polls GET /api/health (30 s at most) until its components have these statuses, e.g. { coinbase_api: "online" } once the price loop runs. */
export async function waitForSystemStatus(
  baseUrl: string,
  wanted: Record<string, string>,
  message: string,
): Promise<void> {
  await expect
    .poll(
      async () => {
        const health = await fetchHealth(baseUrl);
        return Object.fromEntries(health.systemStatus.map((s) => [s.component, s.status]));
      },
      { timeout: 30_000, interval: 250, message },
    )
    .toMatchObject(wanted);
}

export const pathOf = (page: Page) => {
  const url = new URL(page.url());
  return url.pathname + url.search;
};

/** Locators every spec uses. */
export const h1 = (page: Page, name: string) => page.getByRole("heading", { level: 1, name, exact: true });
export const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });
export const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export type { Browser, BrowserContext, Locator, Page };

export interface FakePrices {
  url: string;
  /** The price the app's price loop reads next (within a second), e.g. set("ETH", "3425"). */
  set(base: string, price: string): void;
  /** How many price requests were answered. */
  readonly requests: number;
  /** Every price back to where the fake started, once the app's price loop has read them (two more requests per symbol). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A fake of Coinbase's public market data on 127.0.0.1: GET
 * /api/v3/brokerage/market/products?product_ids={BASE}-USD&... answers { products: [{ product_id,
 * price }] } from `prices` (each priced product counts as one request), anything else 404. Point an app at it with COINBASE_API_URL and its prices hold still (no random walk
 * setting off take-profits or stops in the middle of a test) until a test moves them.
 */
export async function startFakePrices(
  port: number,
  initial: Record<string, string> = { BTC: "95000", ETH: "3400", SOL: "180", XRP: "2.2" },
): Promise<FakePrices> {
  const prices = { ...initial };
  let requests = 0;
  const server: HttpServer = createHttpServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const ids = url.searchParams.getAll("product_ids");
    if (url.pathname !== "/api/v3/brokerage/market/products" || ids.length === 0) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "NOT_FOUND" }));
      return;
    }
    const products = ids.flatMap((id) => {
      const price = /^([A-Z]+)-USD$/.test(id) ? prices[id.slice(0, -4)] : undefined;
      return price ? [{ product_id: id, price }] : [];
    });
    requests += products.length;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ products }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return {
    url: `http://127.0.0.1:${port}`,
    set(base, price) {
      prices[base] = price;
    },
    get requests() {
      return requests;
    },
    async reset() {
      Object.assign(prices, initial);
      const after = requests + 2 * Object.keys(initial).length;
      await expect
        .poll(() => requests, { timeout: 15_000, message: "the price loop read the fake's first prices again" })
        .toBeGreaterThanOrEqual(after);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
