// Webhook secret rotation with a grace period (issue 25, decision 017), on both databases: the
// old secret is accepted during the grace the admin chose and refused after it (the webhook's
// clock injected), the new one works at once, both are stored encrypted, a retried alert is
// still a duplicate across the two secrets, and without a grace the old one stops at once.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  getWebhookSecret,
  handleWebhook,
  previousSecretUntil,
  rotateWebhookSecret,
} from "#app/services/webhook.server.ts";
import { freshApp, registeredAccounts, webhookSecret } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";

describe.each(testDialects())("webhook secret grace period on %s", (dialect) => {
  const app = freshApp(dialect, {}, { file: true });
  const cookies = registeredAccounts(app, { admin: ["grace_admin", "admin"], trader: "grace_trader" });
  const db = () => app.database.db;
  let n = 0;
  const send = (secret: string, now: number, extra: Record<string, unknown> = {}) => {
    n += 1;
    return handleWebhook(db(), {
      rawBody: JSON.stringify({
        secret,
        action: "buy",
        symbol: "ETH-PERP",
        quantity: "0.01",
        order_type: "market",
        id: `grace-${n}`,
        ...extra,
      }),
      token: null,
      appSecret: app.config.appSecret,
      ip: "203.0.113.7",
      now,
    });
  };

  beforeAll(async () => {
    // Alerts are stored, not traded: this suite is about the secret.
    await app.fetch("/api/emergency-stop", { method: "POST", cookie: cookies.admin, json: {} });
  });
  afterAll(async () => {
    await app.fetch("/api/reset-emergency-stop", { method: "POST", cookie: cookies.admin, json: {} });
  });

  test("the old secret works during the grace period, not after; the new one at once; both stored encrypted", async () => {
    const old = await webhookSecret(app, cookies.admin);
    const t0 = Date.now();
    const fresh = await rotateWebhookSecret(db(), app.config.appSecret, "grace_admin", { grace: "15m", now: t0 });
    expect(fresh).not.toBe(old);
    expect(await getWebhookSecret(db(), app.config.appSecret)).toBe(fresh);
    expect(await previousSecretUntil(db(), t0)).toBe(t0 + 15 * 60_000);

    expect((await send(fresh, t0 + 1000)).status).toBe(200);
    expect((await send(old, t0 + 1000)).status).toBe(200);
    expect((await send(old, t0 + 15 * 60_000 - 1)).status).toBe(200);
    const after = await send(old, t0 + 15 * 60_000);
    expect(after).toMatchObject({ status: 401, body: { error: "Invalid or missing webhook secret" } });
    expect((await send(fresh, t0 + 15 * 60_000 + 1)).status).toBe(200);
    expect(await previousSecretUntil(db(), t0 + 15 * 60_000)).toBeNull();

    // Stored encrypted: neither secret appears in the settings row.
    const row = await db()
      .selectFrom("settings")
      .select("value")
      .where("key", "=", "webhook_secret")
      .executeTakeFirstOrThrow();
    expect(row.value).not.toContain(old);
    expect(row.value).not.toContain(fresh);
    expect(JSON.parse(row.value)).toMatchObject({ previous: { until: t0 + 15 * 60_000 } });
    // The activity line and the audit entry say until when, never a secret.
    const line = await db()
      .selectFrom("activity_logs")
      .select("message")
      .where("message", "like", "Webhook secret rotated by grace_admin%")
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(line.message).toBe(
      `Webhook secret rotated by grace_admin: the previous secret keeps working until ${new Date(t0 + 15 * 60_000).toISOString()}`,
    );
  });

  test("idempotency is unaffected: the same alert sent with the old secret, then the new one, is one signal", async () => {
    const old = await getWebhookSecret(db(), app.config.appSecret);
    const t0 = Date.now();
    const fresh = await rotateWebhookSecret(db(), app.config.appSecret, "grace_admin", { grace: "1h", now: t0 });
    const first = await send(old, t0 + 5, { id: "same-alert" });
    const second = await send(fresh, t0 + 10, { id: "same-alert" });
    expect(first).toMatchObject({ status: 200, body: { status: "skipped" } });
    expect(second).toMatchObject({ status: 200, body: { status: "duplicate", duplicate: true } });
    expect((second.body as { signalId: string }).signalId).toBe((first.body as { signalId: string }).signalId);
  });

  test("without a grace the old secret stops at once; the API and the screen take the choice (admin only) and show until when", async () => {
    const old = await getWebhookSecret(db(), app.config.appSecret);
    const t0 = Date.now();
    await rotateWebhookSecret(db(), app.config.appSecret, "grace_admin", { now: t0 });
    expect((await send(old, t0 + 1)).status).toBe(401);
    expect(await previousSecretUntil(db(), t0)).toBeNull();

    expect(
      (await app.fetch("/api/webhook-config/rotate", { method: "POST", cookie: cookies.trader, json: { grace: "1h" } }))
        .status,
    ).toBe(403);
    expect(
      (await app.fetch("/api/webhook-config/rotate", { method: "POST", cookie: cookies.admin, json: { grace: "2h" } }))
        .status,
    ).toBe(400);
    const before = await getWebhookSecret(db(), app.config.appSecret);
    const rotated = await app.fetch("/api/webhook-config/rotate", {
      method: "POST",
      cookie: cookies.admin,
      json: { grace: "24h" },
    });
    expect(rotated.status).toBe(200);
    const config = (await rotated.json()) as { secret: string; previousSecretUntil: string | null };
    expect(config.secret).not.toBe(before);
    expect(Date.parse(config.previousSecretUntil!) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    expect((await send(before, Date.now())).status).toBe(200);

    // The screen, without JavaScript: a form post with the grace chosen, then the page says until when.
    const form = await app.fetch("/webhook", {
      method: "POST",
      cookie: cookies.admin,
      form: { intent: "rotate", grace: "15m" },
    });
    expect([200, 302, 303]).toContain(form.status);
    const page = await (await app.fetch("/webhook", { cookie: cookies.admin })).text();
    expect(page).toContain('data-testid="rotate-grace"');
    expect(page).toMatch(/The previous secret keeps working until \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
  });
});
