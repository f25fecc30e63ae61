// The screenshot gate of issue 14 ("Styling"): every screen of the navigation, plus Sign in
// and Create account, at 1440x900 and 390x844, full page, compared pixel by pixel with the
// baselines in tests/e2e/visual-baseline/<name>-<width>.png (pixelmatch, threshold 0.1 per
// pixel, at most 0.1 % of the pixels may differ: anti-aliasing noise). A change of the
// styling (the lean kit -> build-time CSS migration) must keep this green; see
// docs/decisions/035-visual-baseline.md.
// - The state is fixed: its OWN app (fresh SQLite DATA_DIR, port 5201: the webhook URL on
//   screen shows it) whose prices come from a fake Coinbase that never moves; one admin and
//   three positions (trades, signals, log lines) made through the real webhook at fixed
//   prices, then every time the screens show rewritten in the database to fixed values
//   (SEEDED_AT, a minute apart, in insertion order).
// - The browser's clock stands still at FIXED_NOW (page.clock.setFixedTime), its time zone
//   is UTC and its locale en-US; animations off, the caret hidden, fonts loaded, hydrated,
//   and a screen that shows an error or logs one is never compared.
// - What still differs per run is masked (see masks): random ids, and the charts fed by
//   the worker's equity snapshots on the wall clock.
// A missing baseline fails. UPDATE_VISUAL_BASELINE=1 (re)writes the baselines instead of
// comparing. On failure: test-results/e2e/visual-diff/<name>-<width>.{actual,diff}.png.
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import pixelmatch from "pixelmatch";
import { PNG } from "pngjs";
import { describe, expect, test } from "vitest";
import {
  type BrowserContext,
  type FakePrices,
  type Locator,
  type Page,
  type PageProblems,
  type RunningApp,
  ROOT,
  SCREENSHOT_DIR,
  apiJson,
  freePort,
  registerAccount,
  startFakePrices,
  useSuite,
  waitForHydration,
  watchProblems,
} from "./utils.ts";

const BASELINE_DIR = path.join(ROOT, "tests/e2e/visual-baseline");
const DIFF_DIR = path.join(SCREENSHOT_DIR, "visual-diff");
const UPDATE = process.env.UPDATE_VISUAL_BASELINE === "1";
/** pixelmatch's per-pixel colour threshold, and the share of pixels that may differ. */
const PIXEL_THRESHOLD = 0.1;
const MAX_DIFF_RATIO = 0.001;
/** Thursday 26 November 2026, 12:00 UTC: the browser's "now" and the seeded data's anchor. */
const FIXED_NOW = Date.UTC(2026, 10, 26, 12, 0, 0);
const HOUR = 3_600_000;
/**
 * The seeded rows' first time: more than a day before FIXED_NOW and before the wall clock
 * of any run, so the relative labels ("N min ago", "Last signal: ...") turn into dates and
 * times, which the server (on the wall clock) and the browser (on FIXED_NOW) render alike;
 * relative labels would differ between the server's HTML and the hydrated page.
 */
const SEEDED_AT = FIXED_NOW - 54 * HOUR;
const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
] as const;
const VISUAL_PORT = 5201;
const ADMIN = { username: "visual_admin", password: "visual-admin-secret-1" };

/** Every screen reachable from the navigation (app/components/layout/navigation.ts). */
const SCREENS: { name: string; path: string }[] = [
  { name: "dashboard", path: "/dashboard" },
  { name: "positions", path: "/positions" },
  { name: "exchanges", path: "/exchanges" },
  { name: "webhook", path: "/webhook" },
  { name: "api-settings", path: "/api-settings" },
  { name: "trading-rules", path: "/trading-rules" },
  { name: "users", path: "/users" },
  { name: "history", path: "/history" },
  { name: "strategies", path: "/strategies" },
  { name: "performance", path: "/performance" },
  { name: "manual-trading", path: "/manual-trading" },
  { name: "logs", path: "/logs" },
  { name: "market-data", path: "/market-data" },
  { name: "profiles", path: "/profiles" },
  { name: "reports", path: "/reports" },
  { name: "notifications", path: "/notifications" },
  { name: "audit", path: "/audit" },
  { name: "account", path: "/account" },
];

/**
 * What differs between two runs of the same state, masked (painted over in one colour):
 * - the ids in the activity log's data chips (tradeId, orderId, signalId: random UUIDs);
 * - the profile's short id on Profiles ("ID 608c6c45": a random UUID);
 * - the equity curve and the drawdown chart on Performance: the worker's equity snapshots
 *   are taken on the wall clock (their times and count differ per run);
 * - the Daily P&L chart on Performance: its axis is the server's last 30 days (wall clock).
 * The other windows the server picks on its clock (24h P&L, Week / Month statistics, the
 * dashboard's 30 days) hold no closed trade of the seeded state, so they show the same
 * zeros whatever the date.
 */
const masks = (page: Page): Locator[] => [
  page.locator("[data-testid=activity-log-data-entry]", { hasText: /Id: / }),
  page.getByText(/^ID [0-9a-f]{8}$/),
  page.locator("[data-testid=chart-equity-chart]"),
  page.locator("[data-testid=chart-drawdown-chart]"),
  page.locator("[data-testid=chart-daily-chart]"),
];

let app: RunningApp;
let baseUrl: string;
let browser: import("playwright-core").Browser;
let adminContext: BrowserContext;
let adminPage: Page;
let adminProblems: PageProblems;
let fakePrices: FakePrices | undefined;

useSuite(
  {
    label: "visual",
    port: VISUAL_PORT,
    before: async () => {
      fakePrices = await startFakePrices(await freePort(Number(process.env.E2E_VISUAL_PRICE_PORT ?? 5401)));
      // Paper funding once a day (at 00:00 UTC), not every hour: a run across the top of the hour
      // wrote a funding line into the Activity Log and funding into Trade History's P&L card.
      return { COINBASE_API_URL: fakePrices.url, SIM_FUNDING_INTERVAL_SECONDS: "86400" };
    },
    after: () => fakePrices?.close() ?? Promise.resolve(),
  },
  (suite) => {
    app = suite.app!;
    baseUrl = suite.baseUrl;
    browser = suite.browser;
    adminContext = suite.context;
    adminPage = suite.page;
    adminProblems = suite.problems;
  },
);

// --- comparing -----------------------------------------------------------------------------

interface Outcome {
  name: string;
  ratio: number;
}
const outcomes: Outcome[] = [];
// This run's diffs only.
rmSync(DIFF_DIR, { recursive: true, force: true });

/** Compares `png` with its baseline (or writes it with UPDATE_VISUAL_BASELINE=1). */
function compare(name: string, png: Buffer): void {
  const baselinePath = path.join(BASELINE_DIR, `${name}.png`);
  if (UPDATE) {
    mkdirSync(BASELINE_DIR, { recursive: true });
    writeFileSync(baselinePath, png);
    return;
  }
  const writeDiff = (diff?: PNG) => {
    mkdirSync(DIFF_DIR, { recursive: true });
    writeFileSync(path.join(DIFF_DIR, `${name}.actual.png`), png);
    if (diff) writeFileSync(path.join(DIFF_DIR, `${name}.diff.png`), PNG.sync.write(diff));
  };
  if (!existsSync(baselinePath)) {
    writeDiff();
    throw new Error(
      `${name}: no baseline at ${path.relative(ROOT, baselinePath)} (run with UPDATE_VISUAL_BASELINE=1 to create it)`,
    );
  }
  const expected = PNG.sync.read(readFileSync(baselinePath));
  const actual = PNG.sync.read(png);
  // A screen that grew or shrank: compare the common top-left part, and count every pixel
  // outside it (in the larger of the two) as differing.
  const width = Math.min(expected.width, actual.width);
  const height = Math.min(expected.height, actual.height);
  const crop = (image: PNG) => {
    if (image.width === width && image.height === height) return image.data;
    const out = new PNG({ width, height });
    PNG.bitblt(image, out, 0, 0, width, height, 0, 0);
    return out.data;
  };
  const diff = new PNG({ width, height });
  const total = Math.max(expected.width, actual.width) * Math.max(expected.height, actual.height);
  const differing =
    pixelmatch(crop(expected), crop(actual), diff.data, width, height, { threshold: PIXEL_THRESHOLD }) +
    (total - width * height);
  const ratio = differing / total;
  outcomes.push({ name, ratio });
  const size =
    expected.width === actual.width && expected.height === actual.height
      ? ""
      : ` (the screen is ${actual.width}x${actual.height} px, its baseline ${expected.width}x${expected.height} px)`;
  if (ratio > MAX_DIFF_RATIO) {
    writeDiff(diff);
    throw new Error(
      `${name}: ${(ratio * 100).toFixed(3)} % of the pixels differ from the baseline (at most ${MAX_DIFF_RATIO * 100} %)${size}; see ${path.relative(ROOT, DIFF_DIR)}/${name}.{actual,diff}.png`,
    );
  }
}

// --- a deterministic page ----------------------------------------------------------------

/** A context of the given size whose clock stands still at FIXED_NOW. */
async function fixedContext(
  width: number,
  height: number,
  storageState?: Awaited<ReturnType<BrowserContext["storageState"]>>,
) {
  const context = await browser.newContext({
    baseURL: baseUrl,
    viewport: { width, height },
    deviceScaleFactor: 1,
    storageState,
    timezoneId: "UTC",
    locale: "en-US",
  });
  const page = await context.newPage();
  await page.clock.setFixedTime(FIXED_NOW);
  return { context, page, problems: watchProblems(page) };
}

async function shoot(page: Page, problems: PageProblems, name: string, pathname: string): Promise<void> {
  problems.clear();
  const response = await page.goto(pathname);
  expect(response?.status(), pathname).toBe(200);
  await waitForHydration(page, problems);
  await page.evaluate(() => document.fonts.ready.then(() => undefined));
  // The first polls answer (they render the same data the loader did) and images decode.
  await page.waitForLoadState("networkidle", { timeout: 3_000 }).catch(() => undefined);
  await page.waitForTimeout(400);
  await page.evaluate(() => window.scrollTo(0, 0));
  // Never compare (or baseline) a broken screen.
  const errors = problems.errors.filter((e) => !e.includes("Failed to load resource"));
  if (errors.length > 0 || (await page.getByText("Something went wrong", { exact: true }).count()) > 0) {
    throw new Error(
      `${name}: ${pathname} did not render cleanly: ${errors.map((e) => e.split("\n")[0]!.slice(0, 160)).join(" | ") || "'Something went wrong'"}`,
    );
  }
  const png = await page.screenshot({
    fullPage: true,
    animations: "disabled",
    caret: "hide",
    scale: "css",
    mask: masks(page),
    maskColor: "#ff00ff",
  });
  compare(name, png);
}

// --- the state ----------------------------------------------------------------------------

async function webhook(secret: string, n: number, action: "buy" | "sell", symbol: string, quantity: string) {
  const res = await adminPage.request.post("/api/webhook/tradingview", {
    headers: { "content-type": "text/plain" },
    data: JSON.stringify({ secret, id: `visual-${n}`, action, symbol, quantity, order_type: "market" }),
  });
  expect(res.status(), await res.text()).toBe(200);
}

/** Every time the screens show, rewritten to SEEDED_AT plus a minute per row, in insertion order. */
function pinTimes(dataDir: string) {
  const db = new Database(path.join(dataDir, "app.db"));
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    const pin: [string, string[]][] = [
      ["trades", ["created_at", "executed_at", "updated_at"]],
      ["positions", ["created_at", "updated_at", "closed_at"]],
      ["signals", ["created_at", "processed_at", "signal_time"]],
      ["activity_logs", ["created_at"]],
      ["audit_entries", ["created_at"]],
      [
        "signal_timeline",
        ["fired_at", "received_at", "committed_at", "claimed_at", "sent_at", "acked_at", "filled_at"],
      ],
      ["users", ["created_at", "updated_at", "last_login_at"]],
      ["strategies", ["created_at", "updated_at", "secret_rotated_at"]],
      ["profiles", ["created_at", "updated_at"]],
      ["exchanges", ["created_at", "updated_at", "last_tested_at"]],
    ];
    for (const [table, columns] of pin) {
      const exists = db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
      if (!exists) continue;
      const present = new Set((db.query(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name));
      const sets = columns
        .filter((c) => present.has(c))
        .map((c) => `${c} = CASE WHEN ${c} IS NULL THEN NULL ELSE ? END`);
      if (sets.length === 0) continue;
      const rows = db.query(`SELECT rowid AS r FROM ${table} ORDER BY rowid`).all() as { r: number }[];
      const update = db.query(`UPDATE ${table} SET ${sets.join(", ")} WHERE rowid = ?`);
      rows.forEach(({ r }, i) => {
        const at = SEEDED_AT + i * 60_000;
        update.run(...sets.map(() => at), r);
      });
    }
  } finally {
    db.close();
  }
}

// --- the suite ----------------------------------------------------------------------------

describe("visual: every screen at 1440 and 390 px, pixel by pixel against the baselines", () => {
  let signedIn: Awaited<ReturnType<BrowserContext["storageState"]>>;

  test("Create account (the first admin) before anyone exists", async () => {
    for (const { width, height } of VIEWPORTS) {
      const { context, page, problems } = await fixedContext(width, height);
      try {
        await shoot(page, problems, `register-${width}`, "/register");
      } finally {
        await context.close();
      }
    }
  });

  test("the state: an admin, trades, positions and signals through the webhook, times pinned", async () => {
    // The webhook URL on the dashboard and Webhook Config shows the port.
    expect(app.port, "the visual suite needs its port 5201 free (the webhook URL in the screenshots shows it)").toBe(
      VISUAL_PORT,
    );
    await registerAccount(adminPage, adminProblems, ADMIN);
    await expect.poll(() => fakePrices?.requests ?? 0, { timeout: 15_000 }).toBeGreaterThan(0);
    const secret = (await apiJson<{ secret: string }>(adminPage, "/api/webhook-config")).secret;
    await webhook(secret, 1, "buy", "BTC-PERP", "0.01");
    await expect
      .poll(async () => (await apiJson<unknown[]>(adminPage, "/api/positions")).length, { timeout: 20_000 })
      .toBe(1);
    await webhook(secret, 2, "sell", "ETH-PERP", "0.5");
    await expect
      .poll(async () => (await apiJson<unknown[]>(adminPage, "/api/positions")).length, { timeout: 20_000 })
      .toBe(2);
    await webhook(secret, 3, "buy", "SOL-PERP", "2");
    await expect
      .poll(async () => (await apiJson<unknown[]>(adminPage, "/api/positions")).length, { timeout: 20_000 })
      .toBe(3);
    pinTimes(app.dataDir);
    signedIn = await adminContext.storageState();
  });

  test("Sign in, signed out", async () => {
    for (const { width, height } of VIEWPORTS) {
      const { context, page, problems } = await fixedContext(width, height);
      try {
        await shoot(page, problems, `login-${width}`, "/login");
      } finally {
        await context.close();
      }
    }
  });

  for (const { width, height } of VIEWPORTS) {
    test(`every screen at ${width} px`, async () => {
      const { context, page, problems } = await fixedContext(width, height, signedIn);
      const failures: string[] = [];
      try {
        for (const screen of SCREENS) {
          try {
            await shoot(page, problems, `${screen.name}-${width}`, screen.path);
          } catch (error) {
            failures.push((error as Error).message);
          }
        }
      } finally {
        await context.close();
      }
      expect(failures, failures.join("\n")).toEqual([]);
    }, 180_000);
  }

  test("report", () => {
    const worst = [...outcomes].sort((a, b) => b.ratio - a.ratio);
    console.log(
      `[visual] ${UPDATE ? "baselines written" : "differing pixels per screen"}: ${worst.map((o) => `${o.name} ${(o.ratio * 100).toFixed(4)}%`).join(", ")}`,
    );
  });
});
