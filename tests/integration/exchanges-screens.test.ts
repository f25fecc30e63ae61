// The Exchanges and API Settings screens as a browser without JavaScript gets them:
// server-rendered HTML and plain form posts to the page actions (intent=...), answered by
// redirects with flash toasts or the page again with the messages of docs/spec/api.md#validation. The Coinbase
// connector answers through the MSW fake (tests/msw/coinbase.ts): no network.
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { MESSAGES } from "#app/core/schemas/exchange-connection.ts";
import { getTradingCredentials } from "#exchange/credentials.ts";
import { createCoinbaseFake, makeCdpKey, makeExchangeKey } from "#tests/msw/coinbase.ts";
import { contractSizesSwitchNote, contractSizesSwitchedNotice } from "#app/core/exchange/contract-sizes.ts";
import { COINBASE_CONTRACT_SIZES_SETTING } from "#exchange/trading-product.ts";
import { freshApp, html, registerVia, toastAfter } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";

const goodKey = makeCdpKey("ec");
const fake = createCoinbaseFake({ cdpKeys: [goodKey] });
const server = setupServer(...fake.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterAll(() => server.close());

describe.each(testDialects())("exchanges and API settings screens on %s", (dialect) => {
  const app = freshApp(dialect);
  let admin: string;
  let user: string;
  beforeAll(async () => {
    admin = (await registerVia(app, "scr_admin")).cookie;
    user = (await registerVia(app, "scr_user")).cookie;
  });
  afterEach(async () => {
    await app.database.db.deleteFrom("exchanges").execute();
  });

  const post = (path: string, form: Record<string, string>, cookie = admin) =>
    app.fetch(path, { method: "POST", cookie, form });
  type Key = { apiKey: string; apiSecret: string; passphrase?: string };
  /** A Coinbase connection posted through Connect Exchange (sandbox on). */
  const add = (accountName: string, key: Key, extra: Record<string, string> = {}) =>
    post("/exchanges", {
      intent: "add",
      exchangeName: "COINBASE",
      accountName,
      apiKey: key.apiKey,
      apiSecret: key.apiSecret,
      passphrase: key.passphrase ?? "",
      sandbox: "on",
      ...extra,
    });
  /** A key posted on API Settings (sandbox on, no key saved before). */
  const save = (key: Key) =>
    post("/api-settings", {
      intent: "save",
      apiKey: key.apiKey,
      apiSecret: key.apiSecret,
      sandbox: "on",
      originalApiKey: "",
      originalApiSecret: "",
    });

  test("the empty Exchanges page, the inline Connect Exchange form, and each validation message beside its field", async () => {
    const page = await (await app.fetch("/exchanges", { cookie: admin })).text();
    expect(page).toContain("No exchanges connected");
    expect(page).toContain("Add Your First Exchange");
    expect(page).toContain('href="/exchanges?add=1"');

    const form = await (await app.fetch("/exchanges?add=1", { cookie: admin })).text();
    expect(form).toContain("Connect Exchange");
    expect(form).toContain('name="intent" value="add"');

    const invalid = await post("/exchanges", {
      intent: "add",
      exchangeName: "",
      accountName: "",
      apiKey: "",
      apiSecret: "",
      sandbox: "on",
      isEnabled: "on",
    });
    expect(invalid.status).toBe(400);
    const body = await invalid.text();
    for (const message of [
      MESSAGES.exchangeRequired,
      MESSAGES.accountNameRequired,
      MESSAGES.apiKeyRequired,
      MESSAGES.apiSecretRequired,
    ])
      expect(body).toContain(html(message));
    expect(await app.database.db.selectFrom("exchanges").selectAll().execute()).toEqual([]);

    // The secret typed into a refused form is not sent back in the page.
    const partial = await post("/exchanges", {
      intent: "add",
      exchangeName: "COINBASE",
      accountName: "",
      apiKey: "k",
      apiSecret: "top-secret-value-123",
    });
    expect(await partial.text()).not.toContain("top-secret-value-123");
  });

  test("add (switches off when unchecked), toggle sandbox and enabled, test, delete with its confirmation step", async () => {
    const added = await post("/exchanges", {
      intent: "add",
      exchangeName: "COINBASE",
      accountName: "Desk",
      apiKey: goodKey.apiKey,
      apiSecret: goodKey.apiSecret,
      isEnabled: "on",
    });
    const afterAdd = await toastAfter(app, added, admin);
    expect(afterAdd).toContain("Exchange Added");
    const row = await app.database.db.selectFrom("exchanges").selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ account_name: "Desk", sandbox: 0, is_enabled: 1 });
    expect(afterAdd).toContain(html(`${goodKey.apiKey.slice(0, 20)}...`));
    expect(afterAdd).not.toContain(goodKey.apiKey.slice(20));
    for (const column of ["Exchange", "Account Name", "API", "Total USD Value", "Status", "Enabled", "Actions"])
      expect(afterAdd).toContain(`>${column}</th>`);

    expect(
      await toastAfter(app, await post("/exchanges", { intent: "sandbox", id: row.id, value: "true" }), admin),
    ).toContain("Sandbox Mode Updated");
    expect((await app.database.db.selectFrom("exchanges").select("sandbox").executeTakeFirstOrThrow()).sandbox).toBe(1);
    expect(
      await toastAfter(app, await post("/exchanges", { intent: "enabled", id: row.id, value: "false" }), admin),
    ).toContain("Exchange Updated");
    expect(await getTradingCredentials(app.database.db, app.config)).toBeNull();
    await post("/exchanges", { intent: "enabled", id: row.id, value: "true" });

    const tested = await toastAfter(app, await post("/exchanges", { intent: "test", id: row.id }), admin);
    expect(tested).toContain("Connection Successful");
    expect(
      (await app.database.db.selectFrom("exchanges").select("connection_status").executeTakeFirstOrThrow())
        .connection_status,
    ).toBe("connected");

    const ask = await post("/exchanges", { intent: "delete", id: row.id });
    expect(ask.status).toBe(302);
    expect(ask.headers.get("location")).toBe(`/exchanges?confirmDelete=${row.id}`);
    const confirmPage = await (await app.fetch(ask.headers.get("location")!, { cookie: admin })).text();
    expect(confirmPage).toContain(html('Are you sure you want to delete the exchange "Desk"?'));
    expect(await app.database.db.selectFrom("exchanges").selectAll().execute()).toHaveLength(1);
    expect(
      await toastAfter(app, await post("/exchanges", { intent: "delete", id: row.id, confirmed: "1" }), admin),
    ).toContain("Exchange Deleted");
    expect(await app.database.db.selectFrom("exchanges").selectAll().execute()).toEqual([]);
    expect(
      await toastAfter(app, await post("/exchanges", { intent: "delete", id: row.id, confirmed: "1" }), admin),
    ).toContain("Error Deleting Exchange");
  });

  test("without JavaScript, a change to an exchange that is gone says so and writes nothing; an unknown intent is a 400", async () => {
    const gone = "no-such-exchange";
    const cases: [Record<string, string>, string][] = [
      [{ intent: "sandbox", id: gone, value: "true" }, "Error Updating Sandbox Mode"],
      [{ intent: "enabled", id: gone, value: "false" }, "Error Updating Exchange"],
      [{ intent: "test", id: gone }, "Connection Test Failed"],
      [{ intent: "delete", id: gone, confirmed: "1" }, "Error Deleting Exchange"],
    ];
    for (const [form, title] of cases) {
      const page = await toastAfter(app, await post("/exchanges", form), admin);
      expect(page, form.intent).toContain(title);
      expect(page, form.intent).toContain("The exchange no longer exists");
    }
    expect(await app.database.db.selectFrom("exchanges").selectAll().execute()).toEqual([]);
    const unknown = await post("/exchanges", { intent: "rename", id: gone });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain("No exchanges connected");
  });

  test("a user sees the table without change controls and every post is refused", async () => {
    const shared = makeCdpKey("ed25519");
    await post("/exchanges", {
      intent: "add",
      exchangeName: "COINBASE",
      accountName: "Shared",
      apiKey: shared.apiKey,
      apiSecret: shared.apiSecret,
      sandbox: "on",
      isEnabled: "on",
    });
    const page = await (await app.fetch("/exchanges", { cookie: user })).text();
    expect(page).toContain("Shared");
    expect(page).not.toContain('data-testid="add-exchange"');
    expect(page).not.toContain('data-testid="exchange-delete"');
    const id = (await app.database.db.selectFrom("exchanges").select("id").executeTakeFirstOrThrow()).id;
    const forms: Record<string, string>[] = [
      { intent: "delete", id, confirmed: "1" },
      { intent: "sandbox", id, value: "false" },
      { intent: "add", exchangeName: "COINBASE", accountName: "x", apiKey: "k", apiSecret: "s" },
    ];
    for (const form of forms) {
      expect((await post("/exchanges", form, user)).status).toBe(403);
    }
    expect(await app.database.db.selectFrom("exchanges").selectAll().execute()).toHaveLength(1);
    expect((await app.fetch("/api-settings", { cookie: user })).status).toBe(403);
    expect((await post("/api-settings", { intent: "save", apiKey: "a", apiSecret: "b" }, user)).status).toBe(403);
  });

  test("API Settings without JavaScript: the masked form, every save message, Save Settings, Test Connection, the environment setup", async () => {
    const first = await (await app.fetch("/api-settings", { cookie: admin })).text();
    for (const text of [
      "Connection Status",
      "Test Connection",
      "API Key",
      "API Secret",
      "Save Settings",
      "Get Environment Setup",
      "No passphrase is needed for futures",
    ])
      expect(first).toContain(text);

    const missing = await post("/api-settings", {
      intent: "save",
      apiKey: "",
      apiSecret: "",
      originalApiKey: "",
      originalApiSecret: "",
    });
    expect(missing.status).toBe(400);
    const missingPage = await missing.text();
    expect(missingPage).toContain(MESSAGES.missingCredentialsTitle);
    expect(missingPage).toContain(MESSAGES.missingCredentials);

    expect(await toastAfter(app, await save(goodKey), admin)).toContain("Credentials Saved");

    const page = await (await app.fetch("/api-settings", { cookie: admin })).text();
    const maskedKey = `${goodKey.apiKey.slice(0, 4)}••••••••${goodKey.apiKey.slice(-4)}`;
    expect(page).toContain(maskedKey);
    expect(page).not.toContain(goodKey.apiKey);
    expect(page).not.toContain(goodKey.apiSecret.split("\n")[1]!);
    const maskedSecret = "•".repeat(16);
    expect(page).toContain(maskedSecret);

    const untouched = await post("/api-settings", {
      intent: "save",
      apiKey: maskedKey,
      apiSecret: maskedSecret,
      sandbox: "on",
      originalApiKey: maskedKey,
      originalApiSecret: maskedSecret,
    });
    expect(untouched.status).toBe(400);
    const untouchedPage = await untouched.text();
    expect(untouchedPage).toContain(MESSAGES.noChangesTitle);
    expect(untouchedPage).toContain(MESSAGES.noChanges);

    const masked = await post("/api-settings", {
      intent: "save",
      apiKey: "new-key",
      apiSecret: maskedSecret,
      sandbox: "on",
      originalApiKey: maskedKey,
      originalApiSecret: maskedSecret,
    });
    expect(await masked.text()).toContain(html(MESSAGES.masked));

    const same = await post("/api-settings", {
      intent: "save",
      apiKey: goodKey.apiKey,
      apiSecret: goodKey.apiSecret,
      sandbox: "on",
      originalApiKey: maskedKey,
      originalApiSecret: maskedSecret,
    });
    expect(same.status).toBe(400);
    expect(await same.text()).toContain(html(MESSAGES.nothingToSave));

    const noSetting = await post("/api-settings", { intent: "save-settings", sandbox: "on" });
    expect(noSetting.status).toBe(400);
    expect(await noSetting.text()).toContain(MESSAGES.noSettingsChange);
    expect(await toastAfter(app, await post("/api-settings", { intent: "save-settings" }), admin)).toContain(
      "Settings Saved",
    );
    expect((await getTradingCredentials(app.database.db, app.config))?.sandbox).toBe(false);

    const tested = await toastAfter(app, await post("/api-settings", { intent: "test" }), admin);
    expect(tested).toContain("Connection Successful");
    expect(tested).toContain(">Connected<");

    const setup = await (await app.fetch("/api-settings?setup=1", { cookie: admin })).text();
    for (const text of ["COINBASE_API_KEY", "COINBASE_API_SECRET", "COINBASE_SANDBOX", "restart the application"])
      expect(setup).toContain(text);
  });

  test("the key's shape without JavaScript (issue 22): Connect Exchange and API Settings refuse what is no Coinbase key, with the message beside the field, and take each real shape", async () => {
    const db = app.database.db;
    const refused: [{ apiKey: string; apiSecret: string; passphrase?: string }, string][] = [
      [{ apiKey: "garbage", apiSecret: "garbage-secret" }, MESSAGES.secretNotKeyOrExchange],
      [{ apiKey: "key-123", apiSecret: "secret-123-not-a-key" }, MESSAGES.secretNotKeyOrExchange],
      [{ apiKey: "my-key", apiSecret: goodKey.apiSecret }, MESSAGES.keyNameNotCdp],
      [
        {
          apiKey: goodKey.apiKey,
          apiSecret: `-----BEGIN EC PRIVATE KEY-----\n${"A".repeat(64)}\n-----END EC PRIVATE KEY-----`,
        },
        MESSAGES.pemUnreadable,
      ],
      [{ ...goodKey, passphrase: "pass-phrase-1" }, MESSAGES.passphraseWithCdp],
      [{ apiKey: makeExchangeKey().apiKey, apiSecret: makeExchangeKey().apiSecret }, MESSAGES.exchangeNeedsPassphrase],
    ];
    for (const [key, message] of refused) {
      const answer = await add("Shape", key);
      expect(answer.status, message).toBe(400);
      const page = await answer.text();
      expect(page, message).toContain(html(message));
      // The typed secret is not sent back.
      expect(page.includes(key.apiSecret.split("\n").find((l) => !l.startsWith("-----"))!), message).toBe(false);
    }
    expect(await db.selectFrom("exchanges").selectAll().execute()).toEqual([]);

    const shapes = { ecdsa: makeCdpKey("ec"), ed25519: makeCdpKey("ed25519"), exchange: makeExchangeKey() };
    for (const [name, key] of Object.entries(shapes)) {
      expect(await toastAfter(app, await add(name, key), admin), name).toContain("Exchange Added");
    }
    expect(
      (await db.selectFrom("exchanges").select("account_name").execute()).map((r) => r.account_name).sort(),
    ).toEqual(["ecdsa", "ed25519", "exchange"]);
    await db.deleteFrom("exchanges").execute();

    // API Settings (no passphrase field: CDP keys only), titled 'Invalid Credentials'.
    for (const [key, message] of [
      [{ apiKey: "garbage", apiSecret: "garbage-secret" }, MESSAGES.secretNotKey],
      [{ apiKey: "organizations/x/apiKeys/y", apiSecret: "not-a-real-secret" }, MESSAGES.secretNotKey],
      [makeExchangeKey(), MESSAGES.exchangeKeyOnSettings],
    ] as const) {
      const answer = await save(key);
      expect(answer.status).toBe(400);
      const page = await answer.text();
      expect(page).toContain(MESSAGES.notCoinbaseKeyTitle);
      expect(page).toContain(html(message));
      expect(page.includes(key.apiSecret)).toBe(false);
    }
    expect(await db.selectFrom("exchanges").selectAll().execute()).toEqual([]);
    for (const key of [makeCdpKey("ec"), makeCdpKey("ed25519")]) {
      expect(await toastAfter(app, await save(key), admin)).toContain("Credentials Saved");
      expect((await getTradingCredentials(db, app.config))?.apiKey).toBe(key.apiKey);
    }
  });

  test("before saving, both forms say that paper sizing switches to Coinbase contracts while the simulator's setting is at its default; the save says it did; gone once saved or chosen", async () => {
    const db = app.database.db;
    const note = html(contractSizesSwitchNote());
    expect(note).toContain("BTC 0.01, ETH 0.1, SOL 5, XRP 500");
    await db.deleteFrom("settings").where("key", "=", COINBASE_CONTRACT_SIZES_SETTING).execute();
    try {
      expect(await (await app.fetch("/api-settings", { cookie: admin })).text()).toContain(note);
      expect(await (await app.fetch("/exchanges?add=1", { cookie: admin })).text()).toContain(note);

      // A disabled connection turns nothing on: no notice, and the note stays.
      const disabled = await toastAfter(app, await add("Spare", makeCdpKey("ec")), admin);
      expect(disabled).toContain("Exchange Added");
      expect(disabled).not.toContain(html(contractSizesSwitchedNotice()));
      expect(await (await app.fetch("/api-settings", { cookie: admin })).text()).toContain(note);
      await db.deleteFrom("exchanges").execute();

      // The save that switched says so; afterwards neither form says it any more.
      const saved = await toastAfter(app, await save(goodKey), admin);
      expect(saved).toContain("Credentials Saved");
      expect(saved).toContain(html(contractSizesSwitchedNotice()));
      expect(saved).not.toContain(note);
      expect(await (await app.fetch("/exchanges?add=1", { cookie: admin })).text()).not.toContain(note);
      await db.deleteFrom("exchanges").execute();

      // Through Connect Exchange the same.
      expect(await (await app.fetch("/exchanges?add=1", { cookie: admin })).text()).toContain(note);
      const added = await toastAfter(app, await add("Desk", goodKey, { isEnabled: "on" }), admin);
      expect(added).toContain("Exchange Added");
      expect(added).toContain(html(contractSizesSwitchedNotice()));
      await db.deleteFrom("exchanges").execute();

      // Chosen by the user (even "on"): nothing is said before or after saving.
      expect(
        await toastAfter(app, await post("/exchanges", { intent: "contract-sizes", value: "true" }), admin),
      ).toContain("Simulator Setting Updated");
      expect(await (await app.fetch("/api-settings", { cookie: admin })).text()).not.toContain(note);
      expect(await (await app.fetch("/exchanges?add=1", { cookie: admin })).text()).not.toContain(note);
      const chosen = await toastAfter(app, await save(goodKey), admin);
      expect(chosen).toContain("Credentials Saved");
      expect(chosen).not.toContain(html(contractSizesSwitchedNotice()));
      // A user (not admin) is never told: they cannot save.
      await db.deleteFrom("exchanges").execute();
      await db.deleteFrom("settings").where("key", "=", COINBASE_CONTRACT_SIZES_SETTING).execute();
      expect(await (await app.fetch("/exchanges", { cookie: user })).text()).not.toContain(note);
    } finally {
      await db.deleteFrom("settings").where("key", "=", COINBASE_CONTRACT_SIZES_SETTING).execute();
    }
  });
});
