// The audit trail (issue 13, decision 029), on both databases: every kind of change of
// settings, credentials, roles, trading rules, the emergency stop and every reset makes one
// audit entry with its actor and changed fields; no secret value is ever stored; the entries
// survive Reset Statistics and the emergency-stop reset; GET /api/audit is admin-only and its
// cursor paging returns every entry exactly once, also while new entries arrive.
import { beforeAll, describe, expect, test } from "vitest";
import type { User } from "#db/queries/users.ts";
import { updateSecuritySettings } from "#app/services/users.server.ts";
import type { AuditChanges, AuditEntry } from "#db/queries/audit.ts";
import { makeCdpKey, makeExchangeKey } from "#tests/msw/coinbase.ts";
import { createTestApp, freshApp, registerVia, webhookSecret } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";

describe.each(testDialects())("Audit trail on %s", (dialect) => {
  const app = freshApp(dialect);
  let admin: string;
  let viewer: string;
  let traderId: string;
  const secrets: string[] = [];
  const db = () => app.database.db;
  const rows = () => db().selectFrom("audit_entries").selectAll().orderBy("id").execute();
  /** The entries of one action made since `fromId`; the test expects exactly one. */
  const one = async (action: string, fromId: number) => {
    const found = (await rows()).filter((r) => r.action === action && Number(r.id) > fromId);
    expect(found, `${action}: ${JSON.stringify(await rows())}`).toHaveLength(1);
    return { ...found[0], changes: JSON.parse(found[0].changes) as AuditChanges };
  };
  const lastId = async () => Number((await rows()).at(-1)?.id ?? 0);
  /** Runs `change` and checks the one entry it made: its actor and changed fields. */
  const expectAudit = async (
    action: string,
    change: () => Promise<Response>,
    fields: string[],
    status = [200, 201, 302],
  ) => {
    const from = await lastId();
    const response = await change();
    expect(status, `${action}: ${response.status} ${await response.clone().text()}`).toContain(response.status);
    const entry = await one(action, from);
    expect(entry.actor).toBe("au_admin");
    expect(Object.keys(entry.changes).sort()).toEqual([...fields].sort());
    return entry;
  };

  beforeAll(async () => {
    admin = (await registerVia(app, "au_admin")).cookie;
    viewer = (await registerVia(app, "au_viewer", "secret123", "viewer")).cookie;
    traderId = (await registerVia(app, "au_trader")).user.id;
  });

  test("each kind of change makes one entry with the actor and the changed fields, never a secret", async () => {
    const post =
      (path: string, json: unknown, method = "POST") =>
      () =>
        app.fetch(path, { method, cookie: admin, json });
    const form = (path: string, fields: Record<string, string>) => () =>
      app.fetch(path, { method: "POST", cookie: admin, form: fields });

    // Trading rules: only what changed.
    const rules = await expectAudit(
      "trading_config.update",
      post("/api/trading-config", { autoTradingEnabled: false }),
      ["autoTradingEnabled"],
    );
    expect(rules.changes.autoTradingEnabled).toEqual({ before: true, after: false });
    expect(rules.target).toBe("trading_config");

    // Emergency stop on, then reset.
    await expectAudit("emergency_stop.activate", post("/api/emergency-stop", {}), ["active"]);
    const reset = await expectAudit("emergency_stop.reset", post("/api/reset-emergency-stop", {}), ["active"]);
    expect(reset.changes.active).toEqual({ before: true, after: false });

    // Webhook secret rotation: the old and the new secret appear nowhere.
    secrets.push(await webhookSecret(app, admin));
    const rotated = await expectAudit("webhook_secret.rotate", post("/api/webhook-config/rotate", {}), ["secret"]);
    expect(rotated.changes.secret).toEqual({ before: "(changed)", after: "(changed)" });
    secrets.push(await webhookSecret(app, admin));
    expect(secrets[0]).not.toBe(secrets[1]);

    // Webhook senders and strict tickers (the Webhook Config screen's forms).
    const allow = await expectAudit(
      "webhook_allowlist.update",
      form("/webhook", { intent: "allowlist", allowlist: "203.0.113.7" }),
      ["allowlist"],
    );
    expect(allow.changes.allowlist).toEqual({ before: "", after: "203.0.113.7" });
    await expectAudit("strict_tickers.update", form("/webhook", { intent: "strict-tickers", value: "on" }), [
      "strictTickers",
    ]);

    // Credentials: saved, then changed; an exchange connection added, changed, deleted.
    // Real-shaped keys (saving checks the key's shape, issue 22): two CDP keys, one Exchange key.
    const [first, second, spare] = [makeCdpKey("ec"), makeCdpKey("ec"), makeExchangeKey()];
    const apiSecrets = [first.apiSecret, second.apiSecret, spare.apiSecret, spare.passphrase];
    // A PEM is stored JSON-escaped: each line of its body must not appear either.
    secrets.push(
      ...apiSecrets,
      ...apiSecrets.flatMap((s) => s.split("\n").filter((l) => l.length > 20 && !l.startsWith("-----"))),
    );
    const saved = await expectAudit(
      "credentials.create",
      post("/api/credentials/save", { apiKey: first.apiKey, apiSecret: apiSecrets[0], sandbox: true }),
      ["apiKey", "apiSecret", "sandbox"],
    );
    expect(saved.changes.apiSecret).toEqual({ after: "(changed)" });
    const changed = await expectAudit(
      "credentials.update",
      post("/api/credentials/save", { apiKey: first.apiKey, apiSecret: apiSecrets[1], sandbox: true }),
      ["apiSecret"],
    );
    expect(changed.changes.apiSecret).toEqual({ before: "(changed)", after: "(changed)" });
    await expectAudit("credentials.sandbox", post("/api/credentials/save-settings", { sandbox: false }), ["sandbox"]);
    const created = await expectAudit(
      "exchange.create",
      post("/api/exchanges", {
        exchangeName: "COINBASE",
        accountName: "Spare",
        apiKey: spare.apiKey,
        apiSecret: apiSecrets[2],
        passphrase: apiSecrets[3],
        sandbox: true,
        isEnabled: false,
      }),
      ["exchangeName", "accountName", "apiKey", "apiSecret", "passphrase", "sandbox", "isEnabled"],
    );
    expect(created.changes.passphrase).toEqual({ after: "(changed)" });
    await expectAudit("exchange.update", post(`/api/exchanges/${created.target}`, { sandbox: false }, "PUT"), [
      "sandbox",
    ]);
    await expectAudit("exchange.delete", post(`/api/exchanges/${created.target}`, undefined, "DELETE"), [
      "exchangeName",
      "accountName",
      "sandbox",
      "isEnabled",
    ]);

    // Users: role change, disable, invites, registration and the 2FA requirement, delete.
    const role = await expectAudit("user.update", post(`/api/users/${traderId}`, { role: "viewer" }, "PATCH"), [
      "role",
    ]);
    expect(role.changes.role).toEqual({ before: "trader", after: "viewer" });
    expect(role.target).toBe("au_trader");
    await expectAudit("user.update", post(`/api/users/${traderId}`, { disabled: true }, "PATCH"), ["disabled"]);
    const invite = await expectAudit("invite.create", post("/api/invites", { role: "trader" }), ["role", "expiresAt"]);
    const code = (
      await db()
        .selectFrom("invites")
        .select("code")
        .where("used_at", "is", null)
        .orderBy("created_at", "desc")
        .execute()
    )
      .map((i) => i.code)
      .find((c) => c.startsWith(invite.target.slice(0, 6)))!;
    secrets.push(code); // the full invitation code is a credential too: only its start is kept
    await expectAudit("invite.revoke", post(`/api/invites/${encodeURIComponent(code)}`, undefined, "DELETE"), [
      "revoked",
    ]);
    await expectAudit("security_settings.update", post("/api/security-settings", { registrationOpen: true }), [
      "registrationOpen",
    ]);
    await expectAudit("security_settings.update", post("/api/security-settings", { requireTwoFactor: true }), [
      "requireTwoFactor",
    ]);
    // Required 2FA locks out this admin (no second factor yet): turned off through the service.
    const off = await lastId();
    await updateSecuritySettings(db(), { username: "au_admin" } as User, { requireTwoFactor: false });
    expect((await one("security_settings.update", off)).changes).toEqual({
      requireTwoFactor: { before: true, after: false },
    });
    await expectAudit("user.delete", post(`/api/users/${traderId}`, undefined, "DELETE"), ["role", "disabled"]);

    // Strategies: create, update, rotate, heartbeat expectation, delete.
    const createdStrategy = await app.fetch("/api/strategies", {
      method: "POST",
      cookie: admin,
      json: { name: "Audited" },
    });
    expect(createdStrategy.status).toBe(201);
    const strategy = (await createdStrategy.json()) as { id: string; secret: string };
    secrets.push(strategy.secret);
    const made = await one("strategy.create", 0);
    expect(made).toMatchObject({ actor: "au_admin", target: strategy.id });
    expect(made.changes.name).toEqual({ after: "Audited" });
    const renamed = await expectAudit(
      "strategy.update",
      post(`/api/strategies/${strategy.id}`, { name: "Audited 2" }, "PUT"),
      ["name"],
    );
    expect(renamed.changes.name).toEqual({ before: "Audited", after: "Audited 2" });
    const from = await lastId();
    const rotate = await app.fetch(`/api/strategies/${strategy.id}/rotate`, { method: "POST", cookie: admin });
    expect(rotate.status).toBe(200);
    secrets.push(JSON.stringify(await rotate.json()).match(/"secret":"([^"]+)"/)?.[1] ?? "none");
    expect((await one("strategy.rotate_secret", from)).changes.secret).toEqual({
      before: "(changed)",
      after: "(changed)",
    });
    await expectAudit("heartbeat.set", post(`/api/heartbeats/${strategy.id}`, { intervalSeconds: 300 }, "PUT"), [
      "intervalSeconds",
      "graceSeconds",
    ]);
    await expectAudit("heartbeat.clear", post(`/api/heartbeats/${strategy.id}`, undefined, "DELETE"), ["expected"]);
    const gone = await lastId();
    expect((await app.fetch(`/api/strategies/${strategy.id}`, { method: "DELETE", cookie: admin })).status).toBe(200);
    const deleted = await one("strategy.delete", gone);
    expect(deleted).toMatchObject({ actor: "au_admin", target: strategy.id });
    expect(deleted.changes.name).toEqual({ before: "Audited 2" });

    // The simulator's contract-size switch (the Exchanges screen's form).
    await expectAudit("simulator.contract_sizes", form("/exchanges", { intent: "contract-sizes", value: "true" }), [
      "value",
    ]);

    // Reset Statistics.
    const stats = await expectAudit("statistics.reset", post("/api/reset-stats", {}), ["deleted"]);
    expect(stats.changes.deleted.after).toMatchObject({ trades: expect.any(Number), logs: expect.any(Number) });

    // No secret anywhere in the trail.
    const all = JSON.stringify(await rows());
    for (const secret of secrets)
      expect(all.includes(secret), `secret ${secret.slice(0, 4)}… in the audit trail`).toBe(false);
    expect(all).not.toContain("organizations/");
  });

  test("entries survive Reset Statistics and the emergency-stop reset; the API is admin-only", async () => {
    const before = (await rows()).map((r) => r.id);
    expect(before.length).toBeGreaterThan(20);
    expect((await app.fetch("/api/reset-stats", { method: "POST", cookie: admin })).status).toBe(200);
    expect((await app.fetch("/api/emergency-stop", { method: "POST", cookie: admin })).status).toBe(200);
    expect((await app.fetch("/api/reset-emergency-stop", { method: "POST", cookie: admin })).status).toBe(200);
    const after = (await rows()).map((r) => r.id);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.length).toBe(before.length + 3);

    expect((await app.fetch("/api/audit", { cookie: viewer })).status).toBe(403);
    expect((await app.fetch("/api/audit")).status).toBe(401);
    expect((await app.fetch("/audit", { cookie: viewer })).status).toBe(403);
    // The screen: server-rendered rows, "Older" a plain link with the cursor (no JavaScript needed).
    const page = await app.fetch("/audit?limit=5", { cookie: admin });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html.includes("<h1")).toBe(true);
    expect(html.match(/data-testid="audit-row"/g)?.length).toBe(5);
    expect(html.includes("emergency_stop.reset")).toBe(true);
    const older = html.match(
      /data-testid="audit-older"[^>]*href="([^"]+)"|href="([^"]+)"[^>]*data-testid="audit-older"/,
    );
    expect(older?.[1] ?? older?.[2]).toBe(`/audit?before=${Number(after[after.length - 5])}&amp;limit=5`);
    expect((await (await app.fetch("/users", { cookie: admin })).text()).includes('href="/audit"')).toBe(true);
  });

  test("an entry names the client address of the request that made the change (X-Forwarded-For only behind a trusted proxy)", async () => {
    // This app does not trust proxies: a client-written X-Forwarded-For is not its address.
    const from = await lastId();
    await app.fetch("/api/trading-config", {
      method: "POST",
      cookie: admin,
      json: { autoTradingEnabled: true },
      headers: { "X-Forwarded-For": "203.0.113.9" },
    });
    expect((await one("trading_config.update", from)).ip).toBeNull();

    const proxied = await createTestApp(dialect, { TRUST_PROXY: "true" });
    try {
      const cookie = (await registerVia(proxied, "au_proxied")).cookie;
      const change = (ip: string, value: boolean) =>
        proxied.fetch("/api/trading-config", {
          method: "POST",
          cookie,
          json: { autoTradingEnabled: value },
          headers: { "X-Forwarded-For": ip },
        });
      expect((await change("198.51.100.7", false)).status).toBe(200);
      expect((await change("2001:db8::5", true)).status).toBe(200);
      const entries = await proxied.database.db
        .selectFrom("audit_entries")
        .select(["action", "ip"])
        .where("action", "=", "trading_config.update")
        .orderBy("id")
        .execute();
      expect(entries.map((e) => e.ip)).toEqual(["198.51.100.7", "2001:db8::5"]);
      // The API shows it.
      const body = (await (await proxied.fetch("/api/audit", { cookie })).json()) as { entries: AuditEntry[] };
      expect(body.entries.find((e) => e.action === "trading_config.update")?.ip).toBe("2001:db8::5");
    } finally {
      await proxied.cleanup();
    }
  });

  test("cursor paging returns every entry exactly once, also while new entries arrive", async () => {
    const all = (await rows()).map((r) => Number(r.id)).sort((a, b) => b - a);
    const seen: number[] = [];
    let before: number | null = null;
    for (let pages = 0; pages < 100; pages++) {
      const response = await app.fetch(`/api/audit?limit=4${before ? `&before=${before}` : ""}`, { cookie: admin });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { entries: AuditEntry[]; nextBefore: number | null };
      expect(body.entries.length).toBeLessThanOrEqual(4);
      seen.push(...body.entries.map((e) => e.id));
      if (pages === 1) {
        // A change while paging: newer than the cursor, so it is not in the older pages.
        expect(
          (
            await app.fetch("/webhook", {
              method: "POST",
              cookie: admin,
              form: { intent: "strict-tickers", value: "off" },
            })
          ).status,
        ).toBe(302);
      }
      if (body.nextBefore == null) break;
      before = body.nextBefore;
    }
    expect(seen).toEqual(all);
    expect(new Set(seen).size).toBe(seen.length);
  });

  test("a change that changes nothing writes no audit entry (issue 23): each writer, asked twice, records once", async () => {
    const json =
      (path: string, body: unknown, method = "POST") =>
      () =>
        app.fetch(path, { method, cookie: admin, json: body });
    const form = (path: string, fields: Record<string, string>) => () =>
      app.fetch(path, { method: "POST", cookie: admin, form: fields });
    const other = (await registerVia(app, "au_noop", "secret123", "viewer")).user.id;
    const strategy = (await (
      await app.fetch("/api/strategies", { method: "POST", cookie: admin, json: { name: "Unchanged" } })
    ).json()) as { id: string };
    /** The first call may change something (it brings the setting to a known state); the second must not. */
    const cases: [string, () => Promise<Response>][] = [
      ["trading_config.update", json("/api/trading-config", { autoTradingEnabled: false })],
      ["emergency_stop.activate", json("/api/emergency-stop", {})],
      ["emergency_stop.reset", json("/api/reset-emergency-stop", {})],
      ["strict_tickers.update", form("/webhook", { intent: "strict-tickers", value: "off" })],
      ["webhook_allowlist.update", form("/webhook", { intent: "allowlist", allowlist: "" })],
      ["simulator.contract_sizes", form("/exchanges", { intent: "contract-sizes", value: "false" })],
      ["security_settings.update", json("/api/security-settings", { registrationOpen: false })],
      ["user.update", json(`/api/users/${other}`, { role: "trader", disabled: false }, "PATCH")],
      ["strategy.update", json(`/api/strategies/${strategy.id}`, { name: "Unchanged", enabled: true }, "PUT")],
      ["heartbeat.set", json(`/api/heartbeats/${strategy.id}`, { intervalSeconds: 600 }, "PUT")],
      ["heartbeat.clear", json(`/api/heartbeats/${strategy.id}`, undefined, "DELETE")],
      [
        "notifications.update",
        json("/api/notifications", {
          intent: "general",
          rateLimitPerMinute: 12,
          dailySummaryTime: "20:00",
          allowPrivateDestinations: false,
        }),
      ],
    ];
    for (const [action, call] of cases) {
      const first = await call();
      expect([200, 201, 302], `${action}: ${first.status} ${await first.clone().text()}`).toContain(first.status);
      const from = await lastId();
      const again = await call();
      expect([200, 201, 302], `${action} again: ${again.status}`).toContain(again.status);
      const written = (await rows()).filter((r) => Number(r.id) > from);
      expect(
        written.map((r) => `${r.action} ${r.changes}`),
        `${action} asked again with nothing to change`,
      ).toEqual([]);
    }
    // A real change after a no-op is still recorded: turning strict tickers on.
    const from = await lastId();
    await form("/webhook", { intent: "strict-tickers", value: "on" })();
    expect((await one("strict_tickers.update", from)).changes).toEqual({
      strictTickers: { before: false, after: true },
    });
    // Clearing a heartbeat that is expected records what it was ("before"), as issue 23 expects.
    await json(`/api/heartbeats/${strategy.id}`, { intervalSeconds: 600 }, "PUT")();
    const cleared = await lastId();
    await json(`/api/heartbeats/${strategy.id}`, undefined, "DELETE")();
    expect((await one("heartbeat.clear", cleared)).changes).toEqual({ expected: { before: true, after: false } });
  });
});
