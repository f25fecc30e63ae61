import { afterEach, describe, expect, test } from "vitest";
import { encryptSecret } from "#app/core/crypto.ts";
import { credentialsVersion, envCredentials, getTradingCredentials } from "#exchange/credentials.ts";
import { DecryptError } from "#app/core/crypto.ts";
import {
  type NewExchangeConnection,
  deleteExchangeConnection,
  getCredentialsVersion,
  getExchangeConnection,
  getPrimaryConnection,
  insertExchangeConnection,
  listExchangeConnections,
  lockCredentials,
  recordConnectionTest,
  recordTotalUsdValue,
  updateExchangeConnection,
} from "#db/queries/exchanges.ts";
import { testDialects } from "#tests/setup/db.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";

const SECRET = "unit-app-secret-0123456789abcdef0123456789";
const CONFIG = {
  appSecret: SECRET,
  COINBASE_API_KEY: undefined,
  COINBASE_API_SECRET: undefined,
  COINBASE_SANDBOX: true,
};

const connection = (name: string, extra: Partial<NewExchangeConnection> = {}): NewExchangeConnection => ({
  exchangeName: "COINBASE",
  accountName: name,
  apiKey: `${name}-key`,
  apiSecretEnc: encryptSecret(`${name}-secret`, SECRET),
  passphraseEnc: null,
  sandbox: true,
  isEnabled: true,
  ...extra,
});

describe.each(testDialects())("exchange connections repository on %s", (dialect) => {
  const fresh = freshDatabase(dialect);
  afterEach(async () => {
    await fresh.db.deleteFrom("exchanges").execute();
  });

  test("insert and read back: flags as booleans, status disconnected, secrets as stored; oldest first", async () => {
    const a = await fresh.db
      .transaction()
      .execute((trx) => insertExchangeConnection(trx, connection("a", { passphraseEnc: encryptSecret("pp", SECRET) })));
    const b = await fresh.db
      .transaction()
      .execute((trx) => insertExchangeConnection(trx, connection("b", { sandbox: false, isEnabled: false })));
    expect(a).toMatchObject({
      exchangeName: "COINBASE",
      accountName: "a",
      apiKey: "a-key",
      sandbox: true,
      isEnabled: true,
      connectionStatus: "disconnected",
      statusMessage: null,
      totalUsdValue: null,
      lastTestedAt: null,
    });
    expect(b).toMatchObject({ sandbox: false, isEnabled: false });
    expect(a.passphraseEnc).toMatch(/^v1\./);
    expect(Date.parse(b.createdAt)).toBeGreaterThan(Date.parse(a.createdAt)); // same millisecond or not
    expect((await listExchangeConnections(fresh.db)).map((c) => c.accountName)).toEqual(["a", "b"]);
    expect(await getExchangeConnection(fresh.db, "missing")).toBeNull();
  });

  test("the primary (trading) connection is the oldest enabled one", async () => {
    expect(await getPrimaryConnection(fresh.db)).toBeNull();
    const first = await insertExchangeConnection(fresh.db, connection("first", { isEnabled: false }));
    const second = await insertExchangeConnection(fresh.db, connection("second"));
    await insertExchangeConnection(fresh.db, connection("third"));
    expect((await getPrimaryConnection(fresh.db))?.id).toBe(second.id);
    await updateExchangeConnection(fresh.db, first.id, { isEnabled: true });
    expect((await getPrimaryConnection(fresh.db))?.id).toBe(first.id);
    const locked = await fresh.db.transaction().execute(async (trx) => {
      await lockCredentials(trx);
      return getPrimaryConnection(trx, { forUpdate: true });
    });
    expect(locked?.id).toBe(first.id);
  });

  test("every credentials change renews the version; tests and values do not", async () => {
    const v0 = await getCredentialsVersion(fresh.db);
    const row = await insertExchangeConnection(fresh.db, connection("v"));
    const v1 = await getCredentialsVersion(fresh.db);
    expect(v1).not.toBe(v0);
    expect(await credentialsVersion(fresh.db)).toBe(v1);

    await recordConnectionTest(fresh.db, row.id, { status: "connected", message: "ok" });
    await recordTotalUsdValue(fresh.db, row.id, "1234.5");
    expect(await getCredentialsVersion(fresh.db)).toBe(v1);
    const tested = await getExchangeConnection(fresh.db, row.id);
    expect(tested).toMatchObject({ connectionStatus: "connected", statusMessage: "ok", totalUsdValue: "1234.5" });
    expect(tested?.lastTestedAt).not.toBeNull();

    // New keys or another environment: the old test result no longer applies.
    const updated = await updateExchangeConnection(fresh.db, row.id, { sandbox: false });
    expect(updated).toMatchObject({
      sandbox: false,
      connectionStatus: "disconnected",
      statusMessage: null,
      totalUsdValue: null,
    });
    const v2 = await getCredentialsVersion(fresh.db);
    expect(v2).not.toBe(v1);
    // Enabling/disabling keeps the test result.
    await recordConnectionTest(fresh.db, row.id, { status: "error", message: "nope" });
    expect(await updateExchangeConnection(fresh.db, row.id, { isEnabled: false })).toMatchObject({
      isEnabled: false,
      connectionStatus: "error",
    });
    const v3 = await getCredentialsVersion(fresh.db);
    expect(v3).not.toBe(v2);

    expect(await updateExchangeConnection(fresh.db, "missing", { isEnabled: true })).toBeNull();
    expect(await recordConnectionTest(fresh.db, "missing", { status: "connected", message: "x" })).toBeNull();
    expect(await getCredentialsVersion(fresh.db)).toBe(v3);
    expect(await deleteExchangeConnection(fresh.db, row.id)).toBe(true);
    expect(await getCredentialsVersion(fresh.db)).not.toBe(v3);
    expect(await deleteExchangeConnection(fresh.db, row.id)).toBe(false);
  });

  test("a change rolled back leaves the version as it was", async () => {
    const before = await getCredentialsVersion(fresh.db);
    await expect(
      fresh.db.transaction().execute(async (trx) => {
        await insertExchangeConnection(trx, connection("rolled"));
        throw new Error("abort");
      }),
    ).rejects.toThrow("abort");
    expect(await getCredentialsVersion(fresh.db)).toBe(before);
    expect(await listExchangeConnections(fresh.db)).toEqual([]);
  });

  test("getTradingCredentials: saved (decrypted) wins over env, env when none is enabled, else null; a foreign APP_SECRET throws", async () => {
    const env = {
      ...CONFIG,
      COINBASE_API_KEY: "env-key",
      COINBASE_API_SECRET: "line1\\nline2",
      COINBASE_SANDBOX: false,
    };
    expect(await getTradingCredentials(fresh.db, CONFIG)).toBeNull();
    expect(await getTradingCredentials(fresh.db, env)).toEqual({
      apiKey: "env-key",
      apiSecret: "line1\nline2",
      passphrase: null,
      sandbox: false,
      source: "env",
      connectionId: null,
      connectionRef: null,
    });
    expect(envCredentials({ ...env, COINBASE_API_SECRET: "  " })).toBeNull();

    const saved = await insertExchangeConnection(
      fresh.db,
      connection("saved", { passphraseEnc: encryptSecret("pp", SECRET) }),
    );
    expect(await getTradingCredentials(fresh.db, env)).toEqual({
      apiKey: "saved-key",
      apiSecret: "saved-secret",
      passphrase: "pp",
      sandbox: true,
      source: "settings",
      connectionId: null,
      connectionRef: saved.id,
    });
    await expect(
      getTradingCredentials(fresh.db, { ...env, appSecret: "another-app-secret-0123456789abcdef" }),
    ).rejects.toBeInstanceOf(DecryptError);
    await updateExchangeConnection(fresh.db, saved.id, { isEnabled: false });
    expect((await getTradingCredentials(fresh.db, env))?.source).toBe("env");
  });
});
