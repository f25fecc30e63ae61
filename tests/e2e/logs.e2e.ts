// The Activity Logs screen in a real browser (issue 13), on its own app instance: the list
// fills the viewport below the header and scrolls inside at 1440 and 390 px; "Older" loads
// the next page in place with JavaScript (every entry once) and is a plain link without it;
// the filter form narrows the list; no page or console errors. The 250 entries are a fixture
// (made once, by the first test that asks), and each test signs in on its own (suite.login),
// so either runs alone (`-t`) and in any order.
import { describe, expect, test } from "vitest";
import {
  type Page,
  type RunningApp,
  type Session,
  h1,
  screenshot,
  unexpectedErrors,
  useSuite,
  waitForHydration,
  withAppDatabase,
} from "./utils.ts";

const ADMIN = { username: "logs_admin", password: "logs-admin-secret-1" };

let app: RunningApp | undefined;
let login: (options?: { javaScriptEnabled?: boolean }) => Promise<Session>;
let seeded = false;

useSuite({ label: "logs", port: 5161, admin: ADMIN }, (suite) => {
  ({ app, login } = suite);
});

/** The fixture: 250 entries a minute apart from 2026-01-01, trade and system, info and error. */
function seedEntries(): void {
  if (seeded) return;
  withAppDatabase(app!, (db) => {
    const insert = db.query(
      "INSERT INTO activity_logs (type, level, message, data, created_at) VALUES (?, ?, ?, ?, ?)",
    );
    const start = Date.parse("2026-01-01T00:00:00Z");
    for (let i = 0; i < 250; i++)
      insert.run(
        i % 2 ? "trade" : "system",
        i % 3 ? "info" : "error",
        `Browser paging entry ${i}`,
        "{}",
        start + i * 60_000,
      );
  });
  seeded = true;
}

const entries = (p: Page) => p.getByTestId("activity-log-list").getByTestId("activity-log-entry");

describe("Activity Logs screen", () => {
  test("250 entries: the list fills the viewport and scrolls inside; Older loads in place, each entry once", async () => {
    const { page, problems } = await login();
    seedEntries();
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto("/logs");
      await h1(page, "Activity Logs").waitFor({ state: "visible", timeout: 10_000 });
      await waitForHydration(page, problems);
      const box = await page.getByTestId("activity-log-list").boundingBox();
      expect(box).not.toBeNull();
      // Down to the viewport's bottom (less a small margin), and scrolling inside.
      expect(box!.y + box!.height).toBeGreaterThan(900 - 60);
      expect(box!.y + box!.height).toBeLessThanOrEqual(900);
      const scroll = await page
        .getByTestId("activity-log-list")
        .evaluate((el) => ({ inner: el.scrollHeight, outer: el.clientHeight }));
      expect(scroll.inner).toBeGreaterThan(scroll.outer);
      await screenshot(page, `logs-${width}`, false);
    }
    expect(await entries(page).count()).toBe(100);
    await page.getByTestId("logs-older").click();
    await expect.poll(() => entries(page).count(), { timeout: 10_000 }).toBe(200);
    expect(new URL(page.url()).search).toBe("");
    await page.getByTestId("logs-older").click();
    await expect.poll(() => entries(page).count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(250);
    await expect.poll(() => page.getByTestId("logs-older").count()).toBe(0);
    const messages = await page.getByTestId("activity-log-message").allInnerTexts();
    expect(new Set(messages).size).toBe(messages.length);
    for (let i = 0; i < 250; i++) expect(messages).toContain(`Browser paging entry ${i}`);
    expect(unexpectedErrors(problems)).toEqual([]);
  });

  test("without JavaScript: the filter form and the Older link", async () => {
    seedEntries();
    const { page: plain } = await login({ javaScriptEnabled: false });
    await plain.goto("/logs");
    await plain.getByTestId("logs-filter-q").fill("entry 1");
    await plain.getByTestId("logs-filter-type").selectOption("trade");
    await plain.getByTestId("activity-log-filter-button").click();
    await plain.waitForURL((url) => url.searchParams.get("q") === "entry 1");
    const shown = await plain.getByTestId("activity-log-message").allInnerTexts();
    const expected = Array.from({ length: 250 }, (_, i) => i).filter(
      (i) => i % 2 === 1 && `Browser paging entry ${i}`.includes("entry 1"),
    );
    expect(shown.sort()).toEqual(expected.map((i) => `Browser paging entry ${i}`).sort());
    await plain.goto("/logs");
    await plain.getByTestId("logs-older").click();
    await plain.waitForURL((url) => url.searchParams.has("before"));
    expect(await plain.getByTestId("activity-log-entry").count()).toBe(100);
  });
});
