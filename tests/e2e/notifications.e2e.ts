// The Notifications screen in a real browser (issue 13, decision 030), on its own app instance
// whose Telegram API root and webhook URL point at a local fake: saving Telegram and webhook
// settings, "Send test message" on each (the fake receives them), the delivery log listing
// both as sent, an emergency stop told by the real worker, no secret in the page; a screenshot
// at 1440 px.
import { type IncomingMessage, type Server, createServer } from "node:http";
import { describe, expect, test } from "vitest";
import {
  type Page,
  type PageProblems,
  freePort,
  h1,
  registerAccount,
  screenshot,
  unexpectedErrors,
  useSuite,
  waitForHydration,
} from "./utils.ts";

const ADMIN = { username: "notify_admin", password: "notify-admin-secret-1" };
const BOT_TOKEN = "7012345678:AAH-e2e_fake_bot_token_0123456789abcd";
const SIGNING_SECRET = "e2e-signing-secret-0123456789";

interface Received {
  path: string;
  body: string;
}
const received: Received[] = [];
let fake: Server | undefined;
let fakeBase = "";
const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });

let page: Page;
let problems: PageProblems;

useSuite(
  {
    label: "notify",
    port: 5191,
    before: async () => {
      const port = await freePort(5193);
      fake = createServer(async (req, res) => {
        const body = await readBody(req);
        const path = req.url ?? "";
        if (/\/getUpdates$/.test(path)) {
          // Hold the long poll a little, as Telegram does.
          setTimeout(
            () =>
              res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true, result: [] })),
            500,
          );
          return;
        }
        received.push({ path, body });
        if (/\/getMe$/.test(path)) {
          res.writeHead(200, { "content-type": "application/json" }).end(
            JSON.stringify({
              ok: true,
              result: { id: 1, is_bot: true, first_name: "PerpDesk", username: "perpdesk_e2e_bot" },
            }),
          );
          return;
        }
        if (/\/sendMessage$/.test(path)) {
          const chat = JSON.parse(body).chat_id;
          res.writeHead(200, { "content-type": "application/json" }).end(
            JSON.stringify({
              ok: true,
              result: { message_id: received.length, date: 0, chat: { id: Number(chat), type: "private" } },
            }),
          );
          return;
        }
        res.writeHead(204).end();
      });
      await new Promise<void>((resolve) => fake!.listen(port, "127.0.0.1", () => resolve()));
      fakeBase = `http://127.0.0.1:${port}`;
      return { TELEGRAM_API_ROOT: fakeBase };
    },
    after: async () => {
      await new Promise<void>((resolve) => (fake ? fake.close(() => resolve()) : resolve()));
    },
  },
  (suite) => {
    ({ page, problems } = suite);
  },
);

describe("Notifications screen", () => {
  test("save Telegram and a webhook, send a test message on each, see them in the delivery log", async () => {
    await registerAccount(page, problems, ADMIN);
    await page.setViewportSize({ width: 1440, height: 1000 });
    await page.goto("/notifications");
    await h1(page, "Notifications").waitFor({ state: "visible", timeout: 10_000 });
    await waitForHydration(page, problems);

    const telegram = page.getByTestId("channel-telegram");
    await telegram.getByTestId("field-botToken").fill(BOT_TOKEN);
    await telegram.getByTestId("field-chatId").fill("424242");
    await page.getByLabel("telegram enabled").check();
    await page.getByTestId("save-telegram").click();
    await expect.poll(() => telegram.innerText(), { timeout: 10_000 }).toContain("Token saved (…abcd)");
    expect(await telegram.getByTestId("field-botToken").inputValue()).toBe(""); // the saved token is not kept in the field

    // The fake hook runs on 127.0.0.1: a private destination, refused unless the admin allows it (docs/security.md).
    await page.getByTestId("field-allowPrivateDestinations").check();
    await page.getByTestId("save-general").click();
    await expect
      .poll(() => page.getByTestId("field-allowPrivateDestinations").isChecked(), { timeout: 10_000 })
      .toBe(true);
    await page.waitForLoadState("networkidle");

    const webhook = page.getByTestId("channel-webhook");
    const webhookUrl = `${fakeBase}/api/webhooks/42/e2e-fake-webhook-token-abcdefgh`;
    await webhook.getByTestId("field-url").fill(webhookUrl);
    await webhook.getByTestId("field-signingSecret").fill(SIGNING_SECRET);
    await page.getByLabel("webhook enabled").check();
    await page.getByTestId("save-webhook").click();
    await expect.poll(() => webhook.innerText(), { timeout: 10_000 }).toContain("URL saved (127.0.0.1");

    await page.getByTestId("test-telegram").click();
    await expect.poll(() => page.getByTestId("delivery-row").count(), { timeout: 10_000 }).toBe(1);
    await page.getByTestId("test-webhook").click();
    await expect.poll(() => page.getByTestId("delivery-row").count(), { timeout: 10_000 }).toBe(2);
    const rows = await page.getByTestId("delivery-row").allInnerTexts();
    expect(rows.every((r) => r.includes("Test message from PerpDesk") && r.includes("sent"))).toBe(true);
    expect(rows.map((r) => (r.includes("telegram") ? "telegram" : "webhook")).sort()).toEqual(["telegram", "webhook"]);

    // The fake received both: the Telegram message to the chat, the webhook's JSON for Discord and Slack.
    const sent = received.find((r) => r.path.endsWith("/sendMessage"))!;
    expect(JSON.parse(sent.body)).toMatchObject({ chat_id: "424242" });
    const hook = received.find((r) => r.path.startsWith("/api/webhooks/42/"))!;
    expect(JSON.parse(hook.body)).toMatchObject({ title: "Test message from PerpDesk", event: "test" });
    expect(JSON.parse(hook.body).content).toContain("Test message from PerpDesk");

    // The real worker: the emergency stop (an event the webhook has on by default) reaches the
    // webhook through the notifier and the notification queue; the owner's chat is long-polled.
    const stop = await page.evaluate(() =>
      fetch("/api/emergency-stop", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: "{}",
      }).then((r) => r.status),
    );
    expect(stop).toBe(200);
    await expect
      .poll(
        () =>
          received.filter(
            (r) => r.path.startsWith("/api/webhooks/42/") && JSON.parse(r.body).title === "Emergency stop ON",
          ).length,
        { timeout: 20_000 },
      )
      .toBe(1);
    await expect.poll(() => received.some((r) => r.path.endsWith("/getMe")), { timeout: 15_000 }).toBe(true);
    await page.evaluate(() =>
      fetch("/api/reset-emergency-stop", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: "{}",
      }),
    );
    await page.reload();
    await expect
      .poll(() => page.getByTestId("delivery-row").allInnerTexts(), { timeout: 10_000 })
      .toEqual(expect.arrayContaining([expect.stringContaining("Emergency stop ON")]));

    // Secrets are never in the page.
    const html = await page.content();
    for (const secret of [BOT_TOKEN, SIGNING_SECRET, webhookUrl]) expect(html.includes(secret)).toBe(false);
    await screenshot(page, "notifications-1440");
    expect(unexpectedErrors(problems)).toEqual([]);
  });
});
