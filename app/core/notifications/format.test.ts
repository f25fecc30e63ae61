import { createHmac } from "node:crypto";
import { describe, expect, test } from "vitest";
import { classifyLogLine, rejectedCount } from "./classify.ts";
import { digestText, scrub, signBody, telegramText, webhookBody } from "./format.ts";

const line = (over: Partial<Parameters<typeof classifyLogLine>[0]>) => ({
  id: 1,
  type: "system",
  level: "info",
  message: "",
  data: {},
  createdAt: 0,
  ...over,
});

describe("scrub", () => {
  test("removes known secrets, their URL-encoded form, bot tokens and URL credentials", () => {
    const token = "7012345678:AAH-fake_bot_token_0123456789abcdefXYZ";
    const text = `POST https://api.telegram.org/bot${token}/sendMessage failed; smtp://alerts:hunter2hunter2@mail.example.com; secret p@ss w0rd! and ${encodeURIComponent("p@ss w0rd!")}`;
    const out = scrub(text, ["p@ss w0rd!"]);
    expect(out).not.toContain(token);
    expect(out).not.toContain("hunter2hunter2");
    expect(out).not.toContain("p@ss w0rd!");
    expect(out).not.toContain(encodeURIComponent("p@ss w0rd!"));
    expect(out).toContain("[redacted]");
    expect(scrub("nothing secret here", ["abc"])).toBe("nothing secret here"); // too short to be a secret
  });
  test("any URL keeps only scheme://host: a webhook URL's secret path and query never survive, even when not quoted exactly", () => {
    const saved = "https://hooks.example.com/services/T000/B000/XXXXsecretpath?token=querysecret";
    const quoted = `fetch to ${saved}&extra=1 failed; see http://127.0.0.1:8080/internal#frag and https://hooks.example.com`;
    const out = scrub(quoted, [saved]);
    expect(out).not.toContain("secretpath");
    expect(out).not.toContain("querysecret");
    expect(out).not.toContain("/internal");
    expect(out).toContain("http://127.0.0.1:8080");
    expect(out).toContain("https://hooks.example.com");
  });
});

describe("message bodies", () => {
  const message = {
    kind: "order_filled",
    title: "Order filled",
    body: "BUY 1 BTC-PERP",
    createdAt: 0,
    notificationId: "n1",
  };
  test("the webhook body works for Discord (content) and Slack (text) and is signed over the raw body", () => {
    const body = webhookBody(message);
    expect(JSON.parse(body)).toMatchObject({
      content: "Order filled\nBUY 1 BTC-PERP",
      text: "Order filled\nBUY 1 BTC-PERP",
      event: "order_filled",
      notificationId: "n1",
    });
    expect(signBody(body, "k")).toBe(`sha256=${createHmac("sha256", "k").update(body).digest("hex")}`);
    expect(JSON.parse(webhookBody({ ...message, body: "x".repeat(5000) })).content).toHaveLength(2000);
  });
  test("Telegram text is capped at 4,096 characters; a digest lists each title", () => {
    expect(telegramText({ title: "t", body: "y".repeat(5000) })).toHaveLength(4096);
    const digest = digestText(
      [
        { title: "A", createdAt: 0 },
        { title: "B", createdAt: 1000 },
      ],
      60,
    );
    expect(digest.title).toBe("Digest: 2 notifications held back by the rate limit");
    expect(digest.body).toContain("00:00:00 A");
    expect(digest.body).toContain("00:00:01 B");
  });
});

describe("classifyLogLine: the activity lines the app writes", () => {
  test("fills, failures, rule closes, the emergency stop, drifts, missed heartbeats, rejections", () => {
    expect(
      classifyLogLine(
        line({
          type: "trade",
          level: "success",
          message: "Order filled on simulator: BUY 0.5 ETH-PERP @ 3000 (fee 0.9)",
          data: {
            tradeId: "t1",
            orderId: "o1",
            symbol: "ETH-PERP",
            side: "buy",
            quantity: "0.5",
            price: "3000",
            source: "signal",
          },
        }),
      ),
    ).toMatchObject({ event: "order_filled", tradeId: "t1", title: "Order filled: BUY 0.5 ETH-PERP @ 3000" });
    // A reconciliation booking is not an order fill (the drift tells it).
    expect(
      classifyLogLine(
        line({
          type: "trade",
          level: "success",
          message: "Booked from simulator",
          data: { tradeId: "t1", orderId: "o1", price: "1", source: "reconcile" },
        }),
      ),
    ).toBeNull();
    expect(
      classifyLogLine(
        line({
          type: "trade",
          level: "error",
          message: "Order failed: BUY 500 BTC-PERP: margin",
          data: { tradeId: "t2", symbol: "BTC-PERP", side: "buy", quantity: "500" },
        }),
      )?.event,
    ).toBe("order_failed");
    expect(
      classifyLogLine(
        line({
          type: "trade",
          level: "warning",
          message: "Stop loss: closing 0.5 ETH-PERP at 2900",
          data: { positionId: "p", symbol: "ETH-PERP", trigger: "sl", closeQuantity: "0.5" },
        }),
      ),
    ).toMatchObject({ event: "rule_hit", title: "Stop-loss hit on ETH-PERP" });
    expect(
      classifyLogLine(
        line({
          type: "trade",
          message: "TP",
          data: { positionId: "p", symbol: "X", trigger: "tp2", closeQuantity: "1" },
        }),
      )?.title,
    ).toBe("Take-profit 2 hit on X");
    expect(
      classifyLogLine(
        line({
          type: "trade",
          message: "Trail",
          data: { positionId: "p", symbol: "X", trigger: "trail", closeQuantity: "1" },
        }),
      )?.title,
    ).toBe("Trailing stop hit on X");
    expect(
      classifyLogLine(line({ type: "trade", message: "Trailing stop armed", data: { positionId: "p", symbol: "X" } })),
    ).toBeNull();
    expect(classifyLogLine(line({ level: "warning", message: "Emergency stop activated by telegram" }))?.title).toBe(
      "Emergency stop ON",
    );
    expect(classifyLogLine(line({ level: "success", message: "Emergency stop reset by admin" }))?.title).toBe(
      "Emergency stop OFF",
    );
    expect(
      classifyLogLine(
        line({ level: "warning", message: "Drift on simulator: BTC-PERP", data: { driftId: "d", symbol: "BTC-PERP" } }),
      )?.event,
    ).toBe("drift");
    expect(
      classifyLogLine(
        line({
          type: "webhook",
          level: "error",
          message: "Missed heartbeat: strategy default …",
          data: { strategyKey: "default" },
        }),
      )?.event,
    ).toBe("missed_alert");
    const rejected = line({
      type: "webhook",
      level: "warning",
      message: "Webhook rejected 5 times in one minute from one source: Invalid secret",
      data: { count: 5 },
    });
    expect(classifyLogLine(rejected)?.event).toBe("webhook_rejected");
    expect(rejectedCount(rejected)).toBe(4); // the first of the minute had its own line
    expect(
      rejectedCount(line({ type: "webhook", level: "warning", message: "Webhook rejected: Invalid secret" })),
    ).toBe(1);
    expect(classifyLogLine(line({ type: "auth", level: "warning", message: "Failed login for x" }))).toBeNull();
  });
});
