// The exchanges and credentials API (docs/spec/api.md#validation, api.md; docs/decisions/010): validation texts,
// masking and truncation, encryption at rest, Test through the Coinbase connector (against
// the MSW fake of tests/msw/coinbase.ts: no network), the admin guard, and no secret in any
// answer, activity log, live event or console line.
import { generateKeyPairSync } from "node:crypto";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from "vitest";
import { decryptSecret, encryptSecret } from "#app/core/crypto.ts";
import { MESSAGES } from "#app/core/schemas/exchange-connection.ts";
import {
  NO_CREDENTIALS_MESSAGE,
  saveCredentialSettings,
  saveCredentials,
} from "#app/services/exchange-connections.server.ts";
import { allowConsoleError } from "#tests/setup/setup-test-env.ts";
import { credentialsVersion, getTradingCredentials } from "#exchange/credentials.ts";
import { type CdpTestKey, createCoinbaseFake, makeCdpKey, makeExchangeKey } from "#tests/msw/coinbase.ts";
import { contractSizesSwitchedNotice } from "#app/core/exchange/contract-sizes.ts";
import { freshApp, registerVia } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";

const goodKey: CdpTestKey = makeCdpKey("ec");
const unknownKey: CdpTestKey = makeCdpKey("ec"); // valid PEM, but Coinbase does not know it
const fake = createCoinbaseFake({ cdpKeys: [goodKey] });
const server = setupServer(...fake.handlers);

const PASSPHRASE = "pass-phrase-9f8e7d";
/** A Coinbase Exchange API key (hex key, base64 secret): the kind that has a passphrase. */
const exchangeKey = { ...makeExchangeKey(), passphrase: PASSPHRASE };

beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

type Json = Record<string, any>;

describe.each(testDialects())("exchanges and credentials API on %s", (dialect) => {
  // The app's own APP_SECRET (tests/setup/app.ts), not this process's: Test reaches Coinbase
  // through getExchange, which reads saved credentials with the secret of the app serving the
  // database (bindExchangeConfig).
  const app = freshApp(dialect);
  let admin: string;
  let user: string;
  const consoleLines: string[] = [];

  beforeAll(async () => {
    admin = (await registerVia(app, "exch_admin")).cookie;
    user = (await registerVia(app, "exch_user")).cookie;
  });
  const spies: { mockRestore(): void }[] = [];
  beforeEach(() => {
    // (console.error is already watched by tests/setup: any call fails the test.)
    for (const method of ["log", "info", "warn", "debug"] as const) {
      spies.push(
        vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
          consoleLines.push(
            args
              .map((a) =>
                a instanceof Error ? `${a.message} ${a.stack}` : typeof a === "string" ? a : JSON.stringify(a),
              )
              .join(" "),
          );
        }),
      );
    }
  });
  afterEach(async () => {
    for (const spy of spies.splice(0)) spy.mockRestore();
    // Each test starts without connections, whatever the previous one left.
    await app.database.db.deleteFrom("exchanges").execute();
  });

  const call = async (method: string, path: string, json?: unknown, cookie = admin) => {
    const response = await app.fetch(path, { method, cookie, json });
    const text = await response.text();
    return { status: response.status, text, body: (text ? JSON.parse(text) : {}) as Json };
  };
  const db = () => app.database.db;

  /** Nothing the app said or stored for the browser carries one of these. */
  async function expectNoSecret(secrets: string[], texts: string[]) {
    const logs = await db().selectFrom("activity_logs").select(["message", "data"]).execute();
    const events = await db().selectFrom("events").select("data").execute();
    const everything = [
      ...texts,
      ...consoleLines,
      ...logs.map((l) => `${l.message} ${l.data}`),
      ...events.map((e) => e.data),
    ].join("\n");
    for (const secret of secrets) {
      expect(everything.includes(secret), `a secret leaked: ${secret.slice(0, 12)}...`).toBe(false);
      // PEM bodies: no line of the key either.
      for (const line of secret.split("\n").filter((l) => l.length > 20 && !l.startsWith("-----")))
        expect(everything.includes(line)).toBe(false);
    }
  }

  test("anonymous is 401, a user may list but not change anything, API Settings' calls are admin-only", async () => {
    const expectations: [string, string, number, number][] = [
      ["GET", "/api/exchanges", 401, 200],
      ["POST", "/api/exchanges", 401, 403],
      ["GET", "/api/exchanges/nope", 401, 404],
      ["PUT", "/api/exchanges/nope", 401, 403],
      ["DELETE", "/api/exchanges/nope", 401, 403],
      ["POST", "/api/exchanges/nope/test", 401, 403],
      ["GET", "/api/credentials", 401, 403],
      ["POST", "/api/credentials/save", 401, 403],
      ["POST", "/api/credentials/save-settings", 401, 403],
      ["GET", "/api/test/coinbase", 401, 403],
    ];
    for (const [method, path, anonymous, asUser] of expectations) {
      const anon = await app.fetch(path, { method, json: method === "GET" || method === "DELETE" ? undefined : {} });
      expect(anon.status, `${method} ${path} anonymous`).toBe(anonymous);
      const denied = await call(method, path, method === "GET" || method === "DELETE" ? undefined : {}, user);
      expect(denied.status, `${method} ${path} as user`).toBe(asUser);
      expect(typeof denied.body.error === "string" || denied.status === 200).toBe(true);
    }
    expect((await call("GET", "/api/exchanges", undefined, user)).body).toEqual({ exchanges: [] });
    expect((await call("GET", "/api/exchanges/nope/test")).status).toBe(405);
    expect((await call("GET", "/api/credentials/save")).status).toBe(405);
    expect((await call("PATCH", "/api/exchanges/nope")).status).toBe(405);
    // The actions' own method check (an admin past the guard, a method the action does not take).
    for (const [method, path] of [
      ["PUT", "/api/exchanges"],
      ["PUT", "/api/exchanges/nope/test"],
      ["PUT", "/api/credentials/save"],
      ["PUT", "/api/credentials/save-settings"],
    ] as const) {
      const refused = await call(method, path, {});
      expect(refused.status, `${method} ${path}`).toBe(405);
      expect(refused.body.error).toBe(`Method ${method} not allowed`);
    }
  });

  test("Connect Exchange validation answers the messages of docs/spec/api.md#validation and writes nothing", async () => {
    const valid = {
      exchangeName: "COINBASE",
      accountName: "Main",
      apiKey: goodKey.apiKey,
      apiSecret: goodKey.apiSecret,
      passphrase: "",
      sandbox: true,
      isEnabled: true,
    };
    const cases: [Json, string, string][] = [
      [{ ...valid, exchangeName: "" }, MESSAGES.exchangeRequired, "exchangeName"],
      [{ ...valid, exchangeName: "KRAKEN" }, MESSAGES.exchangeRequired, "exchangeName"],
      [{ ...valid, exchangeName: undefined }, MESSAGES.exchangeRequired, "exchangeName"],
      [{ ...valid, accountName: "   " }, MESSAGES.accountNameRequired, "accountName"],
      [{ ...valid, apiKey: "" }, MESSAGES.apiKeyRequired, "apiKey"],
      [{ ...valid, apiSecret: undefined }, MESSAGES.apiSecretRequired, "apiSecret"],
      [{ ...valid, apiSecret: "••••••••" }, MESSAGES.masked, "apiSecret"],
    ];
    for (const [body, message, field] of cases) {
      const answer = await call("POST", "/api/exchanges", body);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: message, field });
    }
    const notJson = await app.fetch("/api/exchanges", {
      method: "POST",
      cookie: admin,
      body: "{",
      headers: { "Content-Type": "application/json" },
    });
    expect(notJson.status).toBe(400);
    expect(await db().selectFrom("exchanges").selectAll().execute()).toEqual([]);
  });

  test("an added exchange: secrets encrypted at rest, the key truncated to 20 characters plus '...', paper value for sandbox", async () => {
    const versionBefore = await credentialsVersion(db());
    const created = await call("POST", "/api/exchanges", {
      exchangeName: "coinbase",
      accountName: "  Main account ",
      apiKey: exchangeKey.apiKey,
      apiSecret: exchangeKey.apiSecret,
      passphrase: PASSPHRASE,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      exchangeName: "COINBASE",
      accountName: "Main account",
      apiKey: `${exchangeKey.apiKey.slice(0, 20)}...`,
      hasPassphrase: true,
      sandbox: true,
      isEnabled: true,
      connectionStatus: "disconnected",
      statusMessage: null,
      isTrading: true,
      totalUsdValue: "10000.00",
      totalUsdSource: "paper",
    });
    expect(created.body).not.toHaveProperty("apiSecret");
    expect(created.body).not.toHaveProperty("passphrase");
    // The first enabled connection, the simulator's setting never chosen: it switched, and says so.
    expect(created.body.notice).toBe(contractSizesSwitchedNotice());
    delete created.body.notice;
    expect(await credentialsVersion(db())).not.toBe(versionBefore);

    const row = await db()
      .selectFrom("exchanges")
      .selectAll()
      .where("id", "=", created.body.id)
      .executeTakeFirstOrThrow();
    expect(row.api_secret_enc).not.toContain(exchangeKey.apiSecret.slice(40, 80));
    expect(decryptSecret(row.api_secret_enc, app.config.appSecret)).toBe(exchangeKey.apiSecret);
    expect(decryptSecret(row.passphrase_enc!, app.config.appSecret)).toBe(PASSPHRASE);

    // The worker's view: the saved credentials, decrypted.
    const credentials = await getTradingCredentials(db(), app.config);
    expect(credentials).toMatchObject({
      apiKey: exchangeKey.apiKey,
      apiSecret: exchangeKey.apiSecret,
      passphrase: PASSPHRASE,
      sandbox: true,
      source: "settings",
      connectionRef: created.body.id,
    });

    const listed = await call("GET", "/api/exchanges", undefined, user);
    expect(listed.body.exchanges).toHaveLength(1);
    expect(listed.body.exchanges[0]).toEqual(created.body);
    const one = await call("GET", `/api/exchanges/${created.body.id}`, undefined, user);
    expect(one.body).toEqual(created.body);

    const log = await db()
      .selectFrom("activity_logs")
      .select(["message", "type"])
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(log).toMatchObject({ type: "system" });
    expect(log.message).toContain('Exchange connected: Coinbase account "Main account" (sandbox)');
    await expectNoSecret([exchangeKey.apiSecret, PASSPHRASE], [created.text, listed.text, one.text]);
    await call("DELETE", `/api/exchanges/${created.body.id}`);
  });

  test("Test: success marks it connected with the exchange's message; a rejected key marks it error; nothing secret anywhere", async () => {
    const good = await call("POST", "/api/exchanges", {
      exchangeName: "COINBASE",
      accountName: "Good",
      apiKey: goodKey.apiKey,
      apiSecret: goodKey.apiSecret,
      sandbox: false,
    });
    const bad = await call("POST", "/api/exchanges", {
      exchangeName: "COINBASE",
      accountName: "Bad",
      apiKey: unknownKey.apiKey,
      apiSecret: unknownKey.apiSecret,
      sandbox: true,
    });
    expect(good.status).toBe(201);
    expect(bad.status).toBe(201);

    const passed = await call("POST", `/api/exchanges/${good.body.id}/test`);
    expect(passed.status).toBe(200);
    expect(passed.body.success).toBe(true);
    expect(passed.body.message).toMatch(/\S/);
    expect(passed.body.exchange).toMatchObject({
      id: good.body.id,
      connectionStatus: "connected",
      statusMessage: passed.body.message,
    });
    expect(passed.body.exchange.lastTestedAt).not.toBeNull();

    const failed = await call("POST", `/api/exchanges/${bad.body.id}/test`);
    expect(failed.status).toBe(200);
    expect(failed.body.success).toBe(false);
    expect(failed.body.message).toMatch(/401|rejected|unauthori/i);
    expect(failed.body.exchange).toMatchObject({ connectionStatus: "error", statusMessage: failed.body.message });

    // The live trading connection's Total USD Value comes from the balances the Coinbase
    // adapter reports (USD and stable coins; the fake's BTC wallet is not counted).
    // (A process notices changed credentials within a second or two: poll.)
    let listed = await call("GET", "/api/exchanges", undefined, user);
    for (let i = 0; i < 40 && !listed.body.exchanges.find((e: Json) => e.id === good.body.id)?.totalUsdValue; i++) {
      await new Promise((r) => setTimeout(r, 100));
      listed = await call("GET", "/api/exchanges", undefined, user);
    }
    const goodView = listed.body.exchanges.find((e: Json) => e.id === good.body.id);
    expect(goodView).toMatchObject({ isTrading: true, sandbox: false, totalUsdSource: "exchange" });
    expect(goodView.totalUsdValue).toMatch(/^\d+\.\d{2}$/);
    expect(Number(goodView.totalUsdValue)).toBeGreaterThan(0);
    expect(goodView.totalUsdValue).not.toBe("10000.00"); // not the paper account
    const stored = await db()
      .selectFrom("exchanges")
      .select("total_usd_value")
      .where("id", "=", good.body.id)
      .executeTakeFirstOrThrow();
    expect(Number(stored.total_usd_value)).toBe(Number(goodView.totalUsdValue));
    const badView = listed.body.exchanges.find((e: Json) => e.id === bad.body.id);
    expect(badView).toMatchObject({ isTrading: false, totalUsdSource: "paper", connectionStatus: "error" });

    expect((await call("POST", "/api/exchanges/00000000-0000-0000-0000-000000000000/test")).status).toBe(404);
    await expectNoSecret([goodKey.apiSecret, unknownKey.apiSecret], [passed.text, failed.text, listed.text]);
    await call("DELETE", `/api/exchanges/${good.body.id}`);
    await call("DELETE", `/api/exchanges/${bad.body.id}`);
  });

  test("PUT toggles isEnabled or sandbox (the trading connection follows), DELETE removes; 400 and 404 otherwise", async () => {
    const [firstKey, secondKey] = [makeCdpKey("ec"), makeCdpKey("ed25519")];
    const first = (
      await call("POST", "/api/exchanges", {
        exchangeName: "COINBASE",
        accountName: "First",
        apiKey: firstKey.apiKey,
        apiSecret: firstKey.apiSecret,
      })
    ).body;
    const second = (
      await call("POST", "/api/exchanges", {
        exchangeName: "COINBASE",
        accountName: "Second",
        apiKey: secondKey.apiKey,
        apiSecret: secondKey.apiSecret,
        isEnabled: false,
      })
    ).body;
    expect(second).toMatchObject({ isEnabled: false, isTrading: false });
    expect((await getTradingCredentials(db(), app.config))?.apiKey).toBe(firstKey.apiKey);

    const version = await credentialsVersion(db());
    const disabled = await call("PUT", `/api/exchanges/${first.id}`, { isEnabled: false });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ id: first.id, isEnabled: false, isTrading: false });
    expect(await credentialsVersion(db())).not.toBe(version);
    expect(await getTradingCredentials(db(), app.config)).toBeNull(); // none enabled, no env keys

    const enabled = await call("PUT", `/api/exchanges/${second.id}`, { isEnabled: true });
    expect(enabled.body).toMatchObject({ isEnabled: true, isTrading: true });
    const live = await call("PUT", `/api/exchanges/${second.id}`, { sandbox: false });
    expect(live.body).toMatchObject({ sandbox: false, connectionStatus: "disconnected" });
    expect(await getTradingCredentials(db(), app.config)).toMatchObject({ apiKey: secondKey.apiKey, sandbox: false });
    const logs = await db()
      .selectFrom("activity_logs")
      .select(["message", "level"])
      .orderBy("id", "desc")
      .limit(1)
      .execute();
    expect(logs[0]).toMatchObject({
      level: "warning",
      message: 'Exchange "Second" switched to production (live trading) by exch_admin',
    });

    const unchanged = await credentialsVersion(db());
    expect((await call("PUT", `/api/exchanges/${second.id}`, { sandbox: false })).status).toBe(200);
    expect(await credentialsVersion(db())).toBe(unchanged); // nothing changed, nothing renewed

    expect((await call("PUT", `/api/exchanges/${second.id}`, {})).status).toBe(400);
    expect((await call("PUT", `/api/exchanges/${second.id}`, { sandbox: "yes" })).body.error).toBe(
      "sandbox must be true or false",
    );
    expect((await call("PUT", "/api/exchanges/missing", { sandbox: true })).status).toBe(404);

    const removed = await call("DELETE", `/api/exchanges/${second.id}`);
    expect(removed.body).toEqual({ success: true, message: 'Exchange "Second" deleted', id: second.id });
    expect((await call("DELETE", `/api/exchanges/${second.id}`)).status).toBe(404);
    expect((await call("GET", `/api/exchanges/${second.id}`)).status).toBe(404);
    await call("DELETE", `/api/exchanges/${first.id}`);
    expect((await call("GET", "/api/exchanges")).body.exchanges).toEqual([]);
  });

  test("API Settings: every rule and message of docs/spec/api.md#validation, the masked summary, the 'Default' connection", async () => {
    const empty = await call("GET", "/api/credentials");
    expect(empty.body).toMatchObject({ apiKey: "", hasSecret: false, sandbox: true, source: "none" });

    const missing = await call("POST", "/api/credentials/save", { apiKey: "abc", apiSecret: "", sandbox: true });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      success: false,
      error: MESSAGES.missingCredentials,
      title: MESSAGES.missingCredentialsTitle,
    });
    expect((await call("POST", "/api/credentials/save", {})).body.error).toBe(MESSAGES.missingCredentials);

    const masked = await call("POST", "/api/credentials/save", {
      apiKey: "orga••••••••1234",
      apiSecret: "real-secret",
      sandbox: true,
    });
    expect(masked.body).toMatchObject({ success: false, error: MESSAGES.masked });
    expect(await db().selectFrom("exchanges").selectAll().execute()).toEqual([]);

    const saved = await call("POST", "/api/credentials/save", {
      apiKey: goodKey.apiKey,
      apiSecret: goodKey.apiSecret,
      sandbox: true,
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ success: true });
    expect(saved.body.message).toMatch(/saved/i);

    const summary = await call("GET", "/api/credentials");
    const maskedKey = `${goodKey.apiKey.slice(0, 4)}••••••••${goodKey.apiKey.slice(-4)}`;
    expect(summary.body).toMatchObject({ apiKey: maskedKey, hasSecret: true, sandbox: true, source: "settings" });
    const exchanges = (await call("GET", "/api/exchanges")).body.exchanges as Json[];
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]).toMatchObject({
      accountName: "Default",
      exchangeName: "COINBASE",
      isTrading: true,
      id: summary.body.connectionId,
    });

    // The form sent back as it was filled (the masked values): nothing was edited.
    const untouched = await call("POST", "/api/credentials/save", {
      apiKey: maskedKey,
      apiSecret: "••••••••••••••••",
      sandbox: true,
      originalApiKey: maskedKey,
      originalApiSecret: "••••••••••••••••",
    });
    expect(untouched.body).toEqual({ success: false, error: MESSAGES.noChanges, title: MESSAGES.noChangesTitle });

    const same = await call("POST", "/api/credentials/save", {
      apiKey: goodKey.apiKey,
      apiSecret: goodKey.apiSecret,
      sandbox: true,
    });
    expect(same.status).toBe(400);
    expect(same.body).toMatchObject({ success: false, error: MESSAGES.nothingToSave });

    const noSetting = await call("POST", "/api/credentials/save-settings", { sandbox: true });
    expect(noSetting.status).toBe(400);
    expect(noSetting.body).toMatchObject({ success: false, error: MESSAGES.noSettingsChange });
    const setting = await call("POST", "/api/credentials/save-settings", { sandbox: false });
    expect(setting.body).toMatchObject({ success: true });
    expect((await call("GET", "/api/credentials")).body.sandbox).toBe(false);
    expect((await call("POST", "/api/credentials/save-settings", {})).status).toBe(400);

    // New keys replace the old ones on the same connection.
    const replaced = await call("POST", "/api/credentials/save", {
      apiKey: unknownKey.apiKey,
      apiSecret: unknownKey.apiSecret,
      sandbox: true,
    });
    expect(replaced.body.success).toBe(true);
    const after = (await call("GET", "/api/exchanges")).body.exchanges as Json[];
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({
      id: exchanges[0]!.id,
      apiKey: `${unknownKey.apiKey.slice(0, 20)}...`,
      sandbox: true,
    });
    expect((await getTradingCredentials(db(), app.config))?.apiSecret).toBe(unknownKey.apiSecret.trim());

    await expectNoSecret(
      [goodKey.apiSecret, unknownKey.apiSecret],
      [summary.text, saved.text, same.text, replaced.text],
    );
    await call("DELETE", `/api/exchanges/${exchanges[0]!.id}`);
  });

  test("the key's shape (issue 22): both APIs take the three real kinds and refuse anything else before saving, naming what is expected, never the secret", async () => {
    const pkcs8 = generateKeyPairSync("ec", { namedCurve: "prime256v1" })
      .privateKey.export({ type: "pkcs8", format: "pem" })
      .toString();
    const accepted: [string, Json][] = [
      ["CDP ECDSA (SEC1)", { apiKey: goodKey.apiKey, apiSecret: goodKey.apiSecret }],
      ["CDP ECDSA (PKCS#8)", { apiKey: goodKey.apiKey, apiSecret: pkcs8 }],
      ["CDP Ed25519", { apiKey: makeCdpKey("ed25519").apiKey, apiSecret: makeCdpKey("ed25519").apiSecret }],
      ["Coinbase Exchange", exchangeKey],
    ];
    for (const [kind, key] of accepted) {
      const added = await call("POST", "/api/exchanges", {
        exchangeName: "COINBASE",
        accountName: kind,
        ...key,
        sandbox: true,
        isEnabled: false,
      });
      expect(added.status, kind).toBe(201);
    }
    expect(await db().selectFrom("exchanges").select("id").execute()).toHaveLength(4);
    await db().deleteFrom("exchanges").execute();

    const p384 = generateKeyPairSync("ec", { namedCurve: "secp384r1" })
      .privateKey.export({ type: "sec1", format: "pem" })
      .toString();
    const lookalike = `-----BEGIN EC PRIVATE KEY-----\n${Buffer.alloc(48, 9).toString("base64")}\n-----END EC PRIVATE KEY-----`;
    const refused: [Json, string, string][] = [
      [{ apiKey: "garbage", apiSecret: "garbage-secret-value" }, "apiSecret", MESSAGES.secretNotKeyOrExchange],
      [{ apiKey: goodKey.apiKey, apiSecret: "not-a-real-secret" }, "apiSecret", MESSAGES.secretNotKeyOrExchange],
      [{ apiKey: "key-123", apiSecret: goodKey.apiSecret }, "apiKey", MESSAGES.keyNameNotCdp],
      [{ apiKey: goodKey.apiKey, apiSecret: lookalike }, "apiSecret", MESSAGES.pemUnreadable],
      [
        { apiKey: goodKey.apiKey, apiSecret: p384 },
        "apiSecret",
        "API Secret is an EC key on secp384r1: Coinbase CDP keys use P-256",
      ],
      [
        { apiKey: goodKey.apiKey, apiSecret: goodKey.apiSecret, passphrase: PASSPHRASE },
        "passphrase",
        MESSAGES.passphraseWithCdp,
      ],
      [
        { apiKey: exchangeKey.apiKey, apiSecret: exchangeKey.apiSecret },
        "passphrase",
        MESSAGES.exchangeNeedsPassphrase,
      ],
      [
        { apiKey: "not-hex", apiSecret: exchangeKey.apiSecret, passphrase: PASSPHRASE },
        "apiKey",
        MESSAGES.exchangeKeyNotHex,
      ],
    ];
    const texts: string[] = [];
    for (const [key, field, message] of refused) {
      const answer = await call("POST", "/api/exchanges", { exchangeName: "COINBASE", accountName: "Refused", ...key });
      expect(answer.status, message).toBe(400);
      expect(answer.body).toEqual({ error: message, field });
      texts.push(answer.text);
    }

    // API Settings: CDP keys only (it has no passphrase), titled 'Invalid Credentials'.
    for (const [key, message] of [
      [{ apiKey: "garbage", apiSecret: "garbage-secret-value" }, MESSAGES.secretNotKey],
      [{ apiKey: goodKey.apiKey, apiSecret: lookalike }, MESSAGES.pemUnreadable],
      [{ apiKey: exchangeKey.apiKey, apiSecret: exchangeKey.apiSecret }, MESSAGES.exchangeKeyOnSettings],
    ] as const) {
      const answer = await call("POST", "/api/credentials/save", { ...key, sandbox: true });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ success: false, title: MESSAGES.notCoinbaseKeyTitle, error: message });
      texts.push(answer.text);
    }
    expect(await db().selectFrom("exchanges").select("id").execute()).toEqual([]);
    const ed = makeCdpKey("ed25519");
    const saved = await call("POST", "/api/credentials/save", {
      apiKey: ed.apiKey,
      apiSecret: ed.apiSecret,
      sandbox: true,
    });
    expect(saved.body.success).toBe(true);
    // The first saved connection turned the simulator's contract sizes on: the answer says so.
    expect(saved.body.message).toBe(
      `API credentials saved. Trading uses them in sandbox mode (paper orders). ${contractSizesSwitchedNotice()}`,
    );
    const replaced = await call("POST", "/api/credentials/save", {
      apiKey: goodKey.apiKey,
      apiSecret: goodKey.apiSecret,
      sandbox: true,
    });
    expect(replaced.body.message).toBe("API credentials saved. Trading uses them in sandbox mode (paper orders).");
    await expectNoSecret(
      [lookalike, p384, exchangeKey.apiSecret, PASSPHRASE, "garbage-secret-value", ed.apiSecret, goodKey.apiSecret],
      texts,
    );
  });

  test("two saves at once with no connection yet make one 'Default', holding the last keys", async () => {
    const keys = [1, 2, 3, 4].map(() => makeCdpKey("ec"));
    const save = (n: number) =>
      saveCredentials(
        db(),
        app.config,
        { apiKey: keys[n]!.apiKey, apiSecret: keys[n]!.apiSecret, sandbox: true },
        "exch_admin",
      );
    const outcomes = await Promise.all([0, 1, 2, 3].map(save));
    expect(outcomes.every((o) => o.success)).toBe(true);
    const rows = await db().selectFrom("exchanges").selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.account_name).toBe("Default");
    const last = keys.find((k) => k.apiKey === rows[0]!.api_key);
    expect(last).toBeDefined();
    expect(decryptSecret(rows[0]!.api_secret_enc, app.config.appSecret)).toBe(last!.apiSecret);
  });

  test("a secret stored under another APP_SECRET: Test says so (status error), and saving new keys replaces it", async () => {
    const now = Date.now();
    await db()
      .insertInto("exchanges")
      .values({
        id: "00000000-0000-4000-8000-00000000abcd",
        exchange_name: "COINBASE",
        account_name: "Old",
        api_key: "old-key",
        api_secret_enc: encryptSecret("old-secret", "a-different-app-secret-0123456789abcdef"),
        passphrase_enc: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const tested = await call("POST", "/api/exchanges/00000000-0000-4000-8000-00000000abcd/test");
    expect(tested.body).toMatchObject({
      success: false,
      message: "Stored secret cannot be decrypted: APP_SECRET differs from the one that encrypted it",
    });
    expect(tested.body.exchange.connectionStatus).toBe("error");
    expect((await call("GET", "/api/credentials")).body).toMatchObject({
      source: "settings",
      hasSecret: true,
      apiKey: "••••••••",
    });
    const fresh = makeCdpKey("ec");
    const saved = await call("POST", "/api/credentials/save", {
      apiKey: fresh.apiKey,
      apiSecret: fresh.apiSecret,
      sandbox: true,
    });
    expect(saved.body.success).toBe(true);
    expect(await getTradingCredentials(db(), app.config)).toMatchObject({
      apiKey: fresh.apiKey,
      apiSecret: fresh.apiSecret.trim(),
    });
  });

  test("GET /api/test/coinbase: no credentials, a good key (status kept on the connection), a rejected key; other exchanges 404", async () => {
    const none = await call("GET", "/api/test/coinbase");
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ success: false, error: NO_CREDENTIALS_MESSAGE, source: "none" });

    await call("POST", "/api/credentials/save", {
      apiKey: goodKey.apiKey,
      apiSecret: goodKey.apiSecret,
      sandbox: true,
    });
    const ok = await call("GET", "/api/test/coinbase");
    expect(ok.body).toMatchObject({ success: true, source: "settings" });
    expect(ok.body.message).toMatch(/sandbox/i);
    expect((await call("GET", "/api/credentials")).body).toMatchObject({
      connectionStatus: "connected",
      statusMessage: ok.body.message,
    });

    await call("POST", "/api/credentials/save", {
      apiKey: unknownKey.apiKey,
      apiSecret: unknownKey.apiSecret,
      sandbox: true,
    });
    const rejected = await call("GET", "/api/test/coinbase");
    expect(rejected.body).toMatchObject({ success: false, source: "settings" });
    expect(rejected.body.error).toBe(rejected.body.message);
    expect((await call("GET", "/api/credentials")).body.connectionStatus).toBe("error");

    expect((await call("GET", "/api/test/kraken")).status).toBe(404);
    await expectNoSecret([goodKey.apiSecret, unknownKey.apiSecret], [ok.text, rejected.text]);
    const id = (await call("GET", "/api/credentials")).body.connectionId;
    await call("DELETE", `/api/exchanges/${id}`);
  });
});

describe.each(testDialects())("credentials from the environment on %s", (dialect) => {
  const app = freshApp(dialect, {
    COINBASE_API_KEY: goodKey.apiKey,
    COINBASE_API_SECRET: goodKey.apiSecret.replace(/\n/g, "\\n"),
    COINBASE_SANDBOX: "false",
  });
  let admin: string;
  beforeAll(async () => {
    admin = (await registerVia(app, "env_admin")).cookie;
  });

  test("the summary says env, masked; Test uses them; saved credentials then win; Save Settings cannot change env", async () => {
    const summary = await app.fetch("/api/credentials", { cookie: admin });
    const body = (await summary.json()) as Json;
    expect(body).toMatchObject({
      apiKey: `${goodKey.apiKey.slice(0, 4)}••••••••${goodKey.apiKey.slice(-4)}`,
      hasSecret: true,
      sandbox: false,
      source: "env",
      connectionId: null,
    });
    const credentials = await getTradingCredentials(app.database.db, app.config);
    expect(credentials).toMatchObject({ source: "env", sandbox: false, apiSecret: goodKey.apiSecret });

    const tested = (await (await app.fetch("/api/test/coinbase", { cookie: admin })).json()) as Json;
    expect(tested).toMatchObject({ success: true, source: "env" });

    const settings = await app.fetch("/api/credentials/save-settings", {
      method: "POST",
      cookie: admin,
      json: { sandbox: true },
    });
    expect(settings.status).toBe(400);
    expect(((await settings.json()) as Json).error).toMatch(/COINBASE_SANDBOX/);
    const unchanged = await app.fetch("/api/credentials/save-settings", {
      method: "POST",
      cookie: admin,
      json: { sandbox: false },
    });
    expect(((await unchanged.json()) as Json).error).toBe(MESSAGES.noSettingsChange);

    const saved = await app.fetch("/api/credentials/save", {
      method: "POST",
      cookie: admin,
      json: { apiKey: unknownKey.apiKey, apiSecret: unknownKey.apiSecret, sandbox: true },
    });
    expect(saved.status).toBe(200);
    expect(await getTradingCredentials(app.database.db, app.config)).toMatchObject({
      source: "settings",
      apiKey: unknownKey.apiKey,
      sandbox: true,
    });
  });
});

describe("credentials saves when the database fails", () => {
  // A database that refuses to open a transaction: both saves answer 'Save Error' (500) with
  // a message that names no secret, instead of throwing into the route.
  const broken = {
    transaction: () => {
      throw new Error("database unavailable");
    },
  } as never;
  const config = {
    appSecret: "unit-app-secret-0123456789abcdef0123456789",
    COINBASE_API_KEY: undefined,
    COINBASE_API_SECRET: undefined,
    COINBASE_SANDBOX: true,
  };

  test("saveCredentials and saveCredentialSettings answer Save Error", async () => {
    allowConsoleError();
    expect(
      await saveCredentials(
        broken,
        config,
        { apiKey: goodKey.apiKey, apiSecret: goodKey.apiSecret, sandbox: true },
        "admin",
      ),
    ).toEqual({
      success: false,
      title: "Save Error",
      error: "The credentials could not be saved: please try again",
      status: 500,
    });
    expect(await saveCredentialSettings(broken, config, false, "admin")).toEqual({
      success: false,
      title: "Save Error",
      error: "The settings could not be saved: please try again",
      status: 500,
    });
  });
});
