// Exchanges and API Settings in a real browser (docs/spec/screens.md, screens.md#states, api.md#validation, api.md, api.md#errors), on their OWN
// app instance (a fresh SQLite DATA_DIR from the global setup's frozen build) pointed at the
// fake Coinbase of tests/fakes/coinbase-server.ts (COINBASE_API_URL), which knows one CDP
// key: Test succeeds with it and fails (401) with any other. No network.
// Exchanges: the empty state, the Connect Exchange dialog's validation messages, adding two
// exchanges, Test with 'Connection Successful' and 'Connection Failed' + the server's
// message, the sandbox switch, delete with the browser confirmation (dismissed, then
// accepted). API Settings: each save message of docs/spec/api.md#validation, Save Settings appearing only
// after the sandbox changed, Test Connection, Get Environment Setup. The error toasts of
// §8 (failed calls answered by the test), and adding/deleting without JavaScript. Screenshots in
// test-results/e2e/exchanges-*.png. Each test signs in on its own (suite.login) and makes the
// connections it looks at itself: every one deleted (which brings back "nothing saved yet",
// as nobody chooses "Use Coinbase contract sizes" here), then Main (the known key) and Backup
// (an unknown one) added through POST /api/exchanges where it needs them, so any one runs
// alone (`-t`) and in any order (docs/decisions/045-browser-tests-login-fixture.md).
import { describe, expect, test } from "vitest";
import { type CdpTestKey, makeCdpKey } from "../msw/coinbase.ts";
import { MESSAGES } from "../../app/core/schemas/exchange-connection.ts";
import { contractSizesSwitchNote, contractSizesSwitchedNotice } from "../../app/core/exchange/contract-sizes.ts";
import { type CoinbaseServer, startCoinbaseServer } from "../fakes/coinbase-server.ts";
import {
  type Page,
  type PageProblems,
  type Session,
  apiJson,
  escapeRe,
  gotoHydrated,
  maxToastsSeen,
  screenshot as fullScreenshot,
  squash,
  toastsSeen,
  useSuite,
  visible,
} from "./utils.ts";

const ADMIN = { username: "exch_admin", password: "exch-admin-secret-1" };
const goodKey: CdpTestKey = makeCdpKey("ec");
const unknownKey: CdpTestKey = makeCdpKey("ec");

let fake: CoinbaseServer | undefined;
let login: (options?: { javaScriptEnabled?: boolean }) => Promise<Session>;
// The running test's own page (set by start()).
let page: Page;
let problems: PageProblems;

useSuite(
  {
    label: "exchanges",
    port: 5127,
    before: async () => {
      fake = await startCoinbaseServer({ cdpKeys: [goodKey] });
      return fake.env;
    },
    after: async () => fake?.stop(),
    admin: ADMIN,
  },
  (suite) => {
    login = suite.login;
  },
);

/** A toast with this title (and description, a string or a pattern) was shown since `since`. */
async function expectToast(
  title: string,
  description: string | RegExp,
  variant: "default" | "destructive",
  since: number,
) {
  const pattern = new RegExp(
    `^${variant}\\|${escapeRe(title)} ${typeof description === "string" ? escapeRe(description) : description.source}$`,
  );
  await expect
    .poll(async () => (await toastsSeen(page)).filter((t) => t.at >= since).map((t) => `${t.variant}|${t.text}`), {
      timeout: 20_000,
      interval: 100,
      message: `toast ${title}`,
    })
    .toContainEqual(expect.stringMatching(pattern));
}

interface ExchangeJson {
  id: string;
  accountName: string;
  apiKey: string;
  sandbox: boolean;
  isEnabled: boolean;
  connectionStatus: string;
  statusMessage: string | null;
}
const exchanges = async () => (await apiJson<{ exchanges: ExchangeJson[] }>(page, "/api/exchanges")).exchanges;

async function screenshot(name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await fullScreenshot(page, `exchanges-${name}`);
}

const row = (accountName: string) =>
  page
    .getByTestId("exchange-row")
    .filter({ has: page.getByTestId("exchange-account").getByText(accountName, { exact: true }) });
const dialog = () => page.getByRole("dialog", { name: "Connect Exchange" });

/** The connections test 2 adds: Main with the fake's known key, Backup with a key it does not know (both sandbox, enabled). */
const CONNECTIONS = {
  Main: { exchangeName: "COINBASE", accountName: "Main", ...keyOf(goodKey), sandbox: true, isEnabled: true },
  Backup: { exchangeName: "COINBASE", accountName: "Backup", ...keyOf(unknownKey), sandbox: true, isEnabled: true },
};
function keyOf(key: CdpTestKey) {
  return { apiKey: key.apiKey, apiSecret: key.apiSecret };
}

/**
 * The test's own start: the admin signed in on a new context, every connection deleted, then
 * `names` added in this order (POST /api/exchanges).
 */
async function start(...names: (keyof typeof CONNECTIONS)[]): Promise<void> {
  ({ page, problems } = await login());
  for (const { id } of await exchanges())
    expect((await page.request.delete(`/api/exchanges/${id}`)).status(), `delete ${id}`).toBe(200);
  for (const name of names) {
    const added = await page.request.post("/api/exchanges", { data: CONNECTIONS[name] });
    expect(added.status(), await added.text()).toBe(201);
  }
  expect((await exchanges()).map((e) => e.accountName)).toEqual(names);
}

describe("Exchanges and API Settings (SQLite, own instance, fake Coinbase)", () => {
  test("1. the first account is the admin; Exchanges starts empty", async () => {
    await start();
    expect(await apiJson<{ username: string; role: string }>(page, "/api/user")).toMatchObject({
      username: ADMIN.username,
      role: "admin",
    });

    await gotoHydrated(page, "/exchanges", "Exchanges", problems);
    await visible(page.getByText("No exchanges connected", { exact: true }));
    await visible(page.getByRole("link", { name: "Add Your First Exchange" }));
    await screenshot("1-empty");

    // Nothing saved, the simulator's setting at its default: API Settings says what saving does.
    await gotoHydrated(page, "/api-settings", "API Settings", problems);
    expect(squash(await page.getByTestId("contract-sizes-note").innerText())).toBe(contractSizesSwitchNote());
    await gotoHydrated(page, "/exchanges", "Exchanges", problems);
    expect(problems.errors).toEqual([]);
  });

  test("2. Connect Exchange: each validation message, then two exchanges added", async () => {
    await start();
    await gotoHydrated(page, "/exchanges", "Exchanges", problems);
    await page.getByTestId("add-exchange").click();
    await visible(dialog());
    await page.getByTestId("connect-exchangeName").selectOption("");
    await page.getByTestId("connect-submit").click();
    for (const message of [
      "Please select an exchange",
      "Account name is required",
      "API Key is required",
      "API Secret is required",
    ]) {
      await visible(dialog().getByText(message, { exact: true }));
    }
    await screenshot("2-dialog-errors");
    expect(await exchanges()).toEqual([]);

    // Nothing saved yet and the simulator's setting at its default: the form says what saving does.
    expect(squash(await dialog().getByTestId("contract-sizes-note").innerText())).toBe(contractSizesSwitchNote());

    let since = Date.now();
    await page.getByTestId("connect-exchangeName").selectOption("COINBASE");
    await page.getByTestId("connect-accountName").fill("Main");
    await page.getByTestId("connect-apiKey").fill(goodKey.apiKey);
    // Not a Coinbase key (issue 22): said beside the field by the browser, nothing sent.
    await page.getByTestId("connect-apiSecret").fill("garbage");
    await page.getByTestId("connect-submit").click();
    await visible(dialog().getByText(MESSAGES.secretNotKeyOrExchange, { exact: true }));
    expect(await exchanges()).toEqual([]);
    await page.getByTestId("connect-apiSecret").fill(goodKey.apiSecret);
    // The errors go as the fields become valid.
    await expect.poll(() => dialog().getByText("API Secret is required", { exact: true }).count()).toBe(0);
    await expect.poll(() => dialog().getByText(MESSAGES.secretNotKeyOrExchange, { exact: true }).count()).toBe(0);
    await page.getByTestId("connect-submit").click();
    await expectToast(
      "Exchange Added",
      `Main is connected (sandbox). ${contractSizesSwitchedNotice()}`,
      "default",
      since,
    );
    await dialog().waitFor({ state: "hidden" });
    await visible(row("Main"));
    expect(squash(await row("Main").getByTestId("exchange-api-key").innerText())).toBe(
      `${goodKey.apiKey.slice(0, 20)}...`,
    );
    expect(await row("Main").getByTestId("exchange-total-usd").innerText()).toContain("$10,000.00");
    await visible(row("Main").getByTestId("exchange-trading"));

    since = Date.now();
    await page.getByTestId("add-exchange").click();
    // Saved now: the switch happened, nothing more to say.
    await visible(page.getByTestId("connect-accountName"));
    expect(await dialog().getByTestId("contract-sizes-note").count()).toBe(0);
    await page.getByTestId("connect-accountName").fill("Backup");
    await page.getByTestId("connect-apiKey").fill(unknownKey.apiKey);
    await page.getByTestId("connect-apiSecret").fill(unknownKey.apiSecret);
    await page.getByTestId("connect-submit").click();
    await expectToast("Exchange Added", "Backup is connected (sandbox)", "default", since);
    await visible(row("Backup"));
    expect((await exchanges()).map((e) => e.accountName)).toEqual(["Main", "Backup"]);
    const html = await page.content();
    expect(html).not.toContain(goodKey.apiSecret.split("\n")[1]!);
    expect(problems.errors).toEqual([]);
  });

  test("3. Test: 'Connection Successful' for the known key, 'Connection Failed' with Coinbase's message for the other", async () => {
    await start("Main", "Backup");
    await gotoHydrated(page, "/exchanges", "Exchanges", problems);
    let since = Date.now();
    await row("Main").getByTestId("exchange-test").click();
    await expectToast("Connection Successful", /.+/, "default", since);
    await expect
      .poll(async () => squash(await row("Main").getByTestId("exchange-status").innerText()))
      .toBe("Connected");

    since = Date.now();
    await row("Backup").getByTestId("exchange-test").click();
    const backup = async () => (await exchanges()).find((e) => e.accountName === "Backup")!;
    await expect.poll(async () => (await backup()).connectionStatus).toBe("error");
    const message = (await backup()).statusMessage!;
    expect(message).toMatch(/401|rejected|unauthori/i);
    await expectToast("Connection Failed", message, "destructive", since);
    await expect.poll(async () => squash(await row("Backup").getByTestId("exchange-status").innerText())).toBe("Error");
    await visible(row("Backup").getByText(message, { exact: true }));
    expect(await maxToastsSeen(page)).toBeLessThanOrEqual(1);
    await screenshot("3-tested");
    expect(problems.errors).toEqual([]);
  });

  test("4. the sandbox switch goes live and back; the enabled switch", async () => {
    await start("Main", "Backup");
    await gotoHydrated(page, "/exchanges", "Exchanges", problems);
    let since = Date.now();
    await row("Main").getByTestId("exchange-sandbox-switch").click();
    await expectToast("Sandbox Mode Updated", "Main now trades live on Coinbase", "default", since);
    await expect.poll(async () => (await exchanges()).find((e) => e.accountName === "Main")!.sandbox).toBe(false);
    await visible(row("Main").getByTestId("exchange-environment").getByText("Live", { exact: true }));
    await screenshot("4-live");

    since = Date.now();
    await row("Main").getByTestId("exchange-sandbox-switch").click();
    await expectToast("Sandbox Mode Updated", "Main now uses the sandbox: paper trading", "default", since);
    await expect.poll(async () => (await exchanges()).find((e) => e.accountName === "Main")!.sandbox).toBe(true);

    since = Date.now();
    await row("Backup").getByTestId("exchange-enabled-switch").click();
    await expectToast("Exchange Updated", "Backup is now disabled", "default", since);
    await expect.poll(async () => (await exchanges()).find((e) => e.accountName === "Backup")!.isEnabled).toBe(false);
    expect(await maxToastsSeen(page)).toBeLessThanOrEqual(1);
    expect(problems.errors).toEqual([]);
  });

  test("5. delete asks a browser confirmation: dismissed keeps it, accepted removes it", async () => {
    await start("Main", "Backup");
    await gotoHydrated(page, "/exchanges", "Exchanges", problems);
    const messages: string[] = [];
    page.once("dialog", (d) => {
      messages.push(d.message());
      void d.dismiss();
    });
    await row("Backup").getByTestId("exchange-delete").click();
    await expect.poll(() => messages.length).toBe(1);
    expect(messages[0]).toBe('Are you sure you want to delete the exchange "Backup"? Its stored API keys are removed.');
    expect((await exchanges()).map((e) => e.accountName)).toEqual(["Main", "Backup"]);

    const since = Date.now();
    page.once("dialog", (d) => void d.accept());
    await row("Backup").getByTestId("exchange-delete").click();
    await expectToast("Exchange Deleted", "Backup has been removed", "default", since);
    await row("Backup").waitFor({ state: "detached" });
    expect((await exchanges()).map((e) => e.accountName)).toEqual(["Main"]);
    await screenshot("5-after-delete");
    expect(problems.errors).toEqual([]);
  });

  test("6. API Settings: the masked form and every save message of docs/spec/api.md#validation", async () => {
    await start("Main");
    await gotoHydrated(page, "/api-settings", "API Settings", problems);
    const maskedKey = `${goodKey.apiKey.slice(0, 4)}••••••••${goodKey.apiKey.slice(-4)}`;
    const key = page.getByTestId("credentials-api-key");
    const secret = page.getByTestId("credentials-api-secret");
    expect(await key.inputValue()).toBe(maskedKey);
    expect(await secret.inputValue()).toBe("•".repeat(16));
    await visible(page.getByText("No passphrase is needed for futures", { exact: false }));
    expect(await page.getByTestId("save-settings").count()).toBe(0);
    await screenshot("6-api-settings");

    let since = Date.now();
    await page.getByTestId("save-credentials").click();
    await expectToast(
      "No Changes Detected",
      "Please enter new credentials or modify existing ones to save",
      "destructive",
      since,
    );

    since = Date.now();
    await key.fill("");
    await secret.fill("");
    await page.getByTestId("save-credentials").click();
    await expectToast("Missing Credentials", "API Key and Secret are required", "destructive", since);

    since = Date.now();
    await key.fill(goodKey.apiKey);
    await secret.fill("•".repeat(16));
    await page.getByTestId("save-credentials").click();
    await expectToast(
      "Invalid Credentials",
      "Please enter your actual API credentials, not the masked values.",
      "destructive",
      since,
    );

    // Not a Coinbase key (issue 22): refused by the browser (the server's refusal would be titled 'Save Failed').
    since = Date.now();
    await secret.fill("garbage-secret");
    await page.getByTestId("save-credentials").click();
    await expectToast("Invalid Credentials", MESSAGES.secretNotKey, "destructive", since);
    await visible(page.getByTestId("credentials-error").getByText(MESSAGES.secretNotKey));
    // Saved already: no note about the contract sizes.
    expect(await page.getByTestId("contract-sizes-note").count()).toBe(0);

    since = Date.now();
    await secret.fill(goodKey.apiSecret);
    await page.getByTestId("save-credentials").click();
    await expectToast("Save Failed", "No changes to save. Please enter new credentials.", "destructive", since);
    await visible(page.getByTestId("credentials-error").getByText("No changes to save. Please enter new credentials."));
    await screenshot("6-save-failed");
    // The browser logs the 400 of the refused save ('No changes to save'); nothing else.
    expect(problems.errors.filter((e) => !/status of 400 .*\/api\/credentials\/save\)$/.test(e))).toEqual([]);
  });

  test("7. Save Settings appears only after the sandbox changed; Test Connection; Get Environment Setup", async () => {
    await start("Main");
    await gotoHydrated(page, "/api-settings", "API Settings", problems);
    expect(await page.getByTestId("save-settings").count()).toBe(0);
    await page.getByTestId("credentials-sandbox").click();
    await visible(page.getByTestId("save-settings"));
    await page.getByTestId("credentials-sandbox").click();
    await expect.poll(() => page.getByTestId("save-settings").count()).toBe(0);

    let since = Date.now();
    await page.getByTestId("credentials-sandbox").click();
    await page.getByTestId("save-settings").click();
    await expectToast("Settings Saved", "Sandbox mode is off: orders are sent to Coinbase for real.", "default", since);
    await expect.poll(async () => (await apiJson<{ sandbox: boolean }>(page, "/api/credentials")).sandbox).toBe(false);
    await expect.poll(() => page.getByTestId("save-settings").count()).toBe(0);

    since = Date.now();
    await page.getByTestId("test-connection").click();
    await expectToast("Connection Successful", /.+/, "default", since);
    await expect.poll(async () => squash(await page.getByTestId("credentials-status").innerText())).toBe("Connected");

    // Back to sandbox, saved with new keys in one go (Save Credentials carries the sandbox box).
    since = Date.now();
    await page.getByTestId("credentials-sandbox").click();
    await page.getByTestId("save-settings").click();
    await expectToast("Settings Saved", "Sandbox mode is on: orders are paper orders.", "default", since);

    await page.getByTestId("get-environment-setup").click();
    const instructions = page.getByTestId("environment-instructions");
    await visible(instructions);
    const text = await instructions.innerText();
    for (const name of [
      "COINBASE_API_KEY",
      "COINBASE_API_SECRET",
      "COINBASE_SANDBOX",
      "restart the application",
      "No passphrase is needed for futures",
    ])
      expect(text).toContain(name);
    await screenshot("7-environment-setup");
    expect(problems.errors).toEqual([]);
  });

  test("8. the error toasts of docs/spec/api.md#errors when a call fails (the API answered by the test)", async () => {
    await start("Main");
    await gotoHydrated(page, "/exchanges", "Exchanges", problems);
    const fail500 = (body: string) => (route: import("playwright-core").Route) =>
      route.fulfill({ status: 500, contentType: "application/json", body });

    await page.route("**/api/exchanges", (route) =>
      route.request().method() === "POST"
        ? fail500(JSON.stringify({ error: "Database unavailable" }))(route)
        : route.continue(),
    );
    let since = Date.now();
    await page.getByTestId("add-exchange").click();
    // A real-shaped key, so the browser's check lets it through to the failing call.
    const broken = makeCdpKey("ed25519");
    await page.getByTestId("connect-accountName").fill("Broken");
    await page.getByTestId("connect-apiKey").fill(broken.apiKey);
    await page.getByTestId("connect-apiSecret").fill(broken.apiSecret);
    await page.getByTestId("connect-submit").click();
    await expectToast("Error Adding Exchange", "Database unavailable", "destructive", since);
    await page.getByRole("button", { name: "Cancel" }).click();
    await page.unroute("**/api/exchanges");

    await page.route("**/api/exchanges/*", (route) =>
      ["PUT", "DELETE"].includes(route.request().method())
        ? fail500(JSON.stringify({ error: "Try again later" }))(route)
        : route.continue(),
    );
    since = Date.now();
    await row("Main").getByTestId("exchange-sandbox-switch").click();
    await expectToast("Error Updating Sandbox Mode", "Try again later", "destructive", since);
    since = Date.now();
    await row("Main").getByTestId("exchange-enabled-switch").click();
    await expectToast("Error Updating Exchange", "Try again later", "destructive", since);
    since = Date.now();
    page.once("dialog", (d) => void d.accept());
    await row("Main").getByTestId("exchange-delete").click();
    await expectToast("Error Deleting Exchange", "Try again later", "destructive", since);
    await page.unroute("**/api/exchanges/*");
    // Nothing changed, and the switches show the stored values again.
    expect(await exchanges()).toMatchObject([{ accountName: "Main", sandbox: true, isEnabled: true }]);
    expect(await row("Main").getByTestId("exchange-sandbox-switch").isChecked()).toBe(true);

    await page.route("**/api/exchanges/*/test", (route) => route.abort("failed"));
    since = Date.now();
    await row("Main").getByTestId("exchange-test").click();
    await expectToast("Connection Test Failed", /.+/, "destructive", since);
    await page.unroute("**/api/exchanges/*/test");

    await gotoHydrated(page, "/api-settings", "API Settings", problems);
    await page.route("**/api/test/coinbase", (route) => route.abort("failed"));
    since = Date.now();
    await page.getByTestId("test-connection").click();
    await expectToast("Connection Test Error", /.+/, "destructive", since);
    await page.unroute("**/api/test/coinbase");

    await page.route("**/api/credentials/save", fail500(""));
    since = Date.now();
    const another = makeCdpKey("ec");
    await page.getByTestId("credentials-api-key").fill(another.apiKey);
    await page.getByTestId("credentials-api-secret").fill(another.apiSecret);
    await page.getByTestId("save-credentials").click();
    await expectToast("Save Error", "500: Internal Server Error", "destructive", since);
    await page.unroute("**/api/credentials/save");
    expect((await apiJson<{ apiKey: string }>(page, "/api/credentials")).apiKey).toBe(
      `${goodKey.apiKey.slice(0, 4)}••••••••${goodKey.apiKey.slice(-4)}`,
    );
    await screenshot("8-save-error");
  });

  test("9. without JavaScript: add an exchange inline and delete it through the confirmation row", async () => {
    await start("Main");
    const { page: p } = await login({ javaScriptEnabled: false });
    await p.goto("/exchanges");
    await p.getByTestId("add-exchange").click();
    await p.waitForURL((url) => url.search === "?add=1");
    await p.getByTestId("connect-submit").click();
    await visible(p.getByText("Account name is required", { exact: true }));
    await p.getByTestId("connect-accountName").fill("NoScript");
    // Not a Coinbase key: the server says so beside the field (issue 22).
    await p.getByTestId("connect-apiKey").fill("noscript-key");
    await p.getByTestId("connect-apiSecret").fill("noscript-secret");
    await p.getByTestId("connect-submit").click();
    await visible(p.getByText(MESSAGES.secretNotKeyOrExchange, { exact: true }));
    const noscript = makeCdpKey("ec");
    await p.getByTestId("connect-accountName").fill("NoScript");
    await p.getByTestId("connect-apiKey").fill(noscript.apiKey);
    await p.getByTestId("connect-apiSecret").fill(noscript.apiSecret);
    await p.getByTestId("connect-submit").click();
    await p.waitForURL((url) => url.pathname === "/exchanges" && url.search === "");
    await visible(p.getByTestId("toast").getByText("Exchange Added"));
    const added = p.getByTestId("exchange-row").filter({ hasText: "NoScript" });
    await visible(added);
    await added.getByTestId("exchange-delete").click();
    await visible(p.getByTestId("exchange-confirm-delete"));
    await fullScreenshot(p, "exchanges-9-nojs-confirm-delete");
    await p.getByTestId("exchange-confirm-delete-yes").click();
    await visible(p.getByTestId("toast").getByText("Exchange Deleted"));
    expect((await exchanges()).map((e) => e.accountName)).toEqual(["Main"]);
  });
});
