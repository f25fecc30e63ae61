// The Coinbase Exchange client (HMAC + passphrase) through the MSW fake, which verifies each
// signature: profiles (list with balances, create, transfer, delete to a destination) and
// reports (nested body per type, otc-fills on the wire, status progression, download).
import { beforeEach, describe, expect, test } from "vitest";
import { AuthError, InvalidOrderError, NotFoundError } from "#app/core/exchange/errors.ts";
import { EXCHANGE_SANDBOX_URL } from "./config.ts";
import { makeExchangeKey } from "#tests/msw/coinbase.ts";
import { useCoinbaseFake } from "#tests/msw/server.ts";
import { CoinbaseExchangeClient, exchangeSignature } from "./exchange-client.ts";

const key = makeExchangeKey();
const msw = useCoinbaseFake({ exchangeKeys: [key], exchangeBase: EXCHANGE_SANDBOX_URL });
const client = (k = key) =>
  new CoinbaseExchangeClient({
    ...k,
    baseUrl: EXCHANGE_SANDBOX_URL,
    sandbox: true,
    readTimeoutMs: 300,
    writeTimeoutMs: 300,
    backoffMs: 1,
  });

beforeEach(() => {
  msw.reset();
});

test("the signature is HMAC-SHA256 of timestamp + METHOD + path + body with the base64-decoded secret", () => {
  // Known-answer: key "secret" (base64 c2VjcmV0), computed independently with openssl.
  expect(exchangeSignature("c2VjcmV0", "1700000000", "get", "/profiles?active=true", "")).toBe(
    "MtVy4TKWR2aAPWuo5BZhEDzNRwPNQPn8JNGOfAZam5M=",
  );
});

describe("profiles", () => {
  test("list (with the key's balances), create, transfer, delete moving funds to the destination", async () => {
    const c = client();
    const [main] = await c.listProfiles();
    expect(main).toMatchObject({ name: "default", isDefault: true, active: true });
    expect(main!.balances).toEqual([
      { currency: "USD", available: "1000", hold: "0" },
      { currency: "BTC", available: "0.1", hold: "0" },
    ]);
    const request = msw.fake.requestsTo("/profiles", "GET")[0]!;
    expect(request).toMatchObject({ authorized: true, host: "api-public.sandbox.exchange.coinbase.com" });
    expect(request.query.get("active")).toBe("true");

    const created = await c.createProfile("Swing");
    expect(created).toMatchObject({ name: "Swing", isDefault: false, active: true, balances: [] });
    await c.transferFunds({ fromProfileId: main!.id, toProfileId: created.id, currency: "USD", amount: "250.75" });
    expect(msw.fake.requestsTo("/profiles/transfer", "POST")[0]!.body).toEqual({
      from: main!.id,
      to: created.id,
      currency: "USD",
      amount: "250.75",
    });

    await c.deleteProfile(created.id, main!.id);
    expect(msw.fake.requestsTo(`/profiles/${created.id}/deactivate`, "PUT")[0]!.body).toEqual({
      profile_id: created.id,
      to: main!.id,
    });
    const after = await c.listProfiles();
    expect(after.map((p) => p.name)).toEqual(["default"]);
    expect(after[0]!.balances.find((b) => b.currency === "USD")!.available).toBe("1000"); // the 250.75 came back
  });

  test("Coinbase's refusals and a missing profile come back in words", async () => {
    const c = client();
    const [main] = await c.listProfiles();
    const error = await c
      .transferFunds({ fromProfileId: main!.id, toProfileId: main!.id, currency: "USD", amount: "999999" })
      .catch((e) => e);
    expect(error).toBeInstanceOf(InvalidOrderError);
    expect(error.message).toBe(
      "Coinbase Exchange refused POST /profiles/transfer: insufficient funds (Insufficient funds)",
    );
    await expect(c.deleteProfile("00000000-0000-0000-0000-000000000000", main!.id)).rejects.toThrow(NotFoundError);
  });

  test("a wrong passphrase or secret is a 401 AuthError that mentions the passphrase, never the secret", async () => {
    const wrong = { ...key, passphrase: "nope" };
    const error = await client(wrong)
      .listProfiles()
      .catch((e) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect(error.message).toBe(
      "Coinbase Exchange rejected the API key (401 Unauthorized): check the key name, the secret, the passphrase and that the key is active",
    );
    const test = await client({ ...key, apiSecret: Buffer.from("x".repeat(64)).toString("base64") }).testConnection();
    expect(test.success).toBe(false);
    expect(test.message).not.toContain(key.apiSecret);
    expect(await client().testConnection()).toEqual({
      success: true,
      message: "Connected to Coinbase Exchange (sandbox): 1 profile visible",
    });
  });
});

describe("reports", () => {
  test.each([
    [
      "fills",
      {
        fills: { start_date: "2026-11-01T00:00:00.000Z", end_date: "2026-11-20T00:00:00.000Z", product_id: "BTC-USD" },
      },
    ],
    [
      "otc_fills",
      {
        otc_fills: {
          start_date: "2026-11-01T00:00:00.000Z",
          end_date: "2026-11-20T00:00:00.000Z",
          product_id: "BTC-USD",
        },
      },
    ],
    [
      "account",
      { account: { start_date: "2026-11-01T00:00:00.000Z", end_date: "2026-11-20T00:00:00.000Z", account_id: "ALL" } },
    ],
    ["balance", { balance: { datetime: "2026-11-20T00:00:00.000Z", group_by_profile: true } }],
  ] as const)(
    "%s: the nested object on the wire, then pending -> creating -> ready and the file",
    async (type, nested) => {
      const c = client();
      const report = await c.createReport({
        type,
        format: "csv",
        startDate: "2026-11-01T00:00:00.000Z",
        endDate: "2026-11-20T00:00:00.000Z",
        productId: "BTC-USD",
      });
      const wireType = type === "otc_fills" ? "otc-fills" : type;
      expect(msw.fake.requestsTo("/reports", "POST")[0]!.body).toEqual({ type: wireType, format: "csv", ...nested });
      expect(report).toMatchObject({ type, status: "pending", fileUrl: null });
      expect((await c.getReport(report.id)).status).toBe("creating");
      const ready = await c.getReport(report.id);
      expect(ready).toMatchObject({ id: report.id, type, status: "ready" });
      expect(ready.fileUrl).toBe(`${EXCHANGE_SANDBOX_URL}/files/${report.id}.csv`);
      const file = new TextDecoder().decode(await c.downloadReport(ready.fileUrl!));
      expect(file.split("\n")[0]).toBe("portfolio,trade id,product,side,created at,size,price,fee");
    },
  );

  test("a download that fails says so; a non-URL is refused", async () => {
    const c = client();
    await expect(c.downloadReport(`${EXCHANGE_SANDBOX_URL}/files/nothing.csv`)).rejects.toThrow(
      "Coinbase Exchange report download failed (HTTP 404)",
    );
    await expect(c.downloadReport("ftp://x/y")).rejects.toThrow("not an http(s) URL");
  });

  test("an unknown report id is NotFoundError", async () => {
    await expect(client().getReport("missing")).rejects.toThrow(NotFoundError);
  });
});
