// The key's shape (issue 22; docs/decisions/010-exchange-connections.md): the three kinds of
// keys Coinbase gives are accepted, anything else is refused with a message naming what is
// expected (never the value typed), the same in the browser (structure only) and on the
// server (the key loaded as the connector loads it).
import { generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { z } from "zod";
import { loadCdpSecret } from "#app/core/schemas/exchange-connection.server.ts";
import {
  AddExchangeFormSchema,
  AddExchangeSchema,
  MESSAGES,
  SaveCredentialsSchema,
  coinbaseKeyIssue,
  credentialsIssue,
  installKeyLoader,
} from "#app/core/schemas/exchange-connection.ts";
import { makeCdpKey, makeExchangeKey } from "#tests/msw/coinbase.ts";

const ec = makeCdpKey("ec");
const ed = makeCdpKey("ed25519");
const exchange = makeExchangeKey();
const pkcs8 = generateKeyPairSync("ec", { namedCurve: "prime256v1" })
  .privateKey.export({ type: "pkcs8", format: "pem" })
  .toString();
const p384 = generateKeyPairSync("ec", { namedCurve: "secp384r1" })
  .privateKey.export({ type: "sec1", format: "pem" })
  .toString();
const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 })
  .privateKey.export({ type: "pkcs8", format: "pem" })
  .toString();
const keyName = `organizations/${randomUUID()}/apiKeys/${randomUUID()}`;

/** Each failing field with its messages. */
function errors(schema: z.ZodType, input: unknown): Record<string, string[]> {
  const result = schema.safeParse(input);
  if (result.success) return {};
  const out: Record<string, string[]> = {};
  for (const issue of result.error.issues) (out[issue.path.join(".")] ??= []).push(issue.message);
  return out;
}

/** The same secret, a PEM whose body is a valid-looking base64 that is no key. */
const fakePem = (label: string) =>
  `-----BEGIN ${label}-----\n${Buffer.alloc(48, 7).toString("base64")}\n-----END ${label}-----\n`;

// Both sides: in the browser there is no loader; the server installs one on import.
describe.each([
  ["browser (structure only)", null],
  ["server (structure and load)", loadCdpSecret],
] as const)("coinbaseKeyIssue, %s", (_side, loader) => {
  installKeyLoader(loader);
  afterEach(() => installKeyLoader(loader));

  test("accepts the three real shapes: CDP ECDSA (SEC1 and PKCS#8), CDP Ed25519, Coinbase Exchange with passphrase", () => {
    installKeyLoader(loader);
    expect(coinbaseKeyIssue({ apiKey: ec.apiKey, apiSecret: ec.apiSecret, passphrase: null })).toBeNull();
    expect(coinbaseKeyIssue({ apiKey: ec.apiKey, apiSecret: ec.apiSecret })).toBeNull();
    expect(coinbaseKeyIssue({ apiKey: keyName, apiSecret: pkcs8 })).toBeNull();
    // As an env file writes it (literal \n), and as a browser posts a textarea (CRLF).
    expect(coinbaseKeyIssue({ apiKey: ec.apiKey, apiSecret: ec.apiSecret.replace(/\n/g, "\\n") })).toBeNull();
    expect(coinbaseKeyIssue({ apiKey: ec.apiKey, apiSecret: ec.apiSecret.replace(/\n/g, "\r\n") })).toBeNull();
    expect(coinbaseKeyIssue({ apiKey: ed.apiKey, apiSecret: ed.apiSecret })).toBeNull();
    expect(coinbaseKeyIssue({ apiKey: keyName, apiSecret: ed.apiSecret, passphrase: "" })).toBeNull();
    expect(coinbaseKeyIssue(exchange)).toBeNull();
  });

  test("refuses what is no Coinbase key, naming what is expected", () => {
    installKeyLoader(loader);
    const cases: [{ apiKey: string; apiSecret: string; passphrase?: string | null }, string, string][] = [
      [{ apiKey: "garbage", apiSecret: "garbage" }, "apiSecret", MESSAGES.secretNotKey],
      [{ apiKey: "key-123", apiSecret: "secret-123", passphrase: null }, "apiSecret", MESSAGES.secretNotKeyOrExchange],
      [{ apiKey: ec.apiKey, apiSecret: "not-a-real-secret" }, "apiSecret", MESSAGES.secretNotKey],
      [
        { apiKey: ec.apiKey, apiSecret: ec.apiSecret.split("\n").slice(0, 2).join("\n") },
        "apiSecret",
        MESSAGES.pemUnreadable,
      ],
      [
        { apiKey: ec.apiKey, apiSecret: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----" },
        "apiSecret",
        MESSAGES.secretNotKey,
      ],
      [{ apiKey: "my-key", apiSecret: ec.apiSecret }, "apiKey", MESSAGES.keyNameNotCdp],
      [{ apiKey: ed.apiKey, apiSecret: ec.apiSecret }, "apiKey", MESSAGES.keyNameNotCdp],
      [{ apiKey: ec.apiKey, apiSecret: ec.apiSecret, passphrase: "pass" }, "passphrase", MESSAGES.passphraseWithCdp],
      [{ apiKey: ed.apiKey, apiSecret: ed.apiSecret, passphrase: "pass" }, "passphrase", MESSAGES.passphraseWithCdp],
      [{ apiKey: "not-a-uuid", apiSecret: ed.apiSecret }, "apiKey", MESSAGES.keyIdNotCdp],
      [{ apiKey: ed.apiKey, apiSecret: randomBytes(32).toString("base64") }, "apiSecret", MESSAGES.ed25519Length],
      [
        { apiKey: "zz-not-hex", apiSecret: exchange.apiSecret, passphrase: exchange.passphrase },
        "apiKey",
        MESSAGES.exchangeKeyNotHex,
      ],
      [
        { apiKey: exchange.apiKey, apiSecret: randomBytes(20).toString("base64"), passphrase: exchange.passphrase },
        "apiSecret",
        MESSAGES.exchangeSecretShort,
      ],
      [
        { apiKey: exchange.apiKey, apiSecret: exchange.apiSecret, passphrase: "" },
        "passphrase",
        MESSAGES.exchangeNeedsPassphrase,
      ],
      [{ apiKey: exchange.apiKey, apiSecret: exchange.apiSecret }, "apiKey", MESSAGES.exchangeKeyOnSettings],
    ];
    for (const [input, path, message] of cases) {
      expect(coinbaseKeyIssue(input), `${input.apiKey.slice(0, 12)} / ${input.apiSecret.slice(0, 12)}`).toEqual({
        path,
        message,
      });
    }
  });

  test("a message never repeats what was typed", () => {
    installKeyLoader(loader);
    for (const input of [
      { apiKey: "secret-key-name-1234", apiSecret: "secret-value-5678" },
      { apiKey: "secret-key-name-1234", apiSecret: ec.apiSecret },
      // Only the server can tell this one is no key.
      ...(loader ? [{ apiKey: ec.apiKey, apiSecret: fakePem("EC PRIVATE KEY") }] : []),
    ]) {
      const issue = coinbaseKeyIssue(input);
      expect(issue).not.toBeNull();
      expect(issue!.message).not.toContain("secret-value-5678");
      expect(issue!.message).not.toContain("secret-key-name-1234");
      expect(issue!.message).not.toContain(Buffer.alloc(48, 7).toString("base64"));
    }
  });
});

describe("the server loads the key as the connector will", () => {
  afterEach(() => installKeyLoader(loadCdpSecret));

  test("a PEM that only looks right, another curve, RSA, and mixed Ed25519 halves are refused on the server only", () => {
    const mixed = Buffer.concat([Buffer.from(ed.apiSecret, "base64").subarray(0, 32), randomBytes(32)]).toString(
      "base64",
    );
    const cases: [{ apiKey: string; apiSecret: string }, string][] = [
      [{ apiKey: ec.apiKey, apiSecret: fakePem("EC PRIVATE KEY") }, MESSAGES.pemUnreadable],
      [{ apiKey: ec.apiKey, apiSecret: fakePem("PRIVATE KEY") }, MESSAGES.pemUnreadable],
      [{ apiKey: ec.apiKey, apiSecret: p384 }, "API Secret is an EC key on secp384r1: Coinbase CDP keys use P-256"],
      [
        { apiKey: ec.apiKey, apiSecret: rsa },
        "API Secret is a rsa key: Coinbase CDP keys are ECDSA (P-256) or Ed25519",
      ],
      [{ apiKey: ed.apiKey, apiSecret: mixed }, MESSAGES.ed25519Mismatch],
    ];
    for (const [input, message] of cases) {
      installKeyLoader(null);
      expect(coinbaseKeyIssue(input), "the browser's structural check lets it through").toBeNull();
      installKeyLoader(loadCdpSecret);
      expect(coinbaseKeyIssue(input)).toEqual({ path: "apiSecret", message });
    }
  });
});

describe("the schemas carry it", () => {
  beforeEach(() => installKeyLoader(loadCdpSecret));
  const base = { exchangeName: "COINBASE", accountName: "Main" };

  test("Connect Exchange (JSON and form): the message on the field it is about; real keys pass", () => {
    for (const schema of [AddExchangeSchema, AddExchangeFormSchema]) {
      expect(errors(schema, { ...base, apiKey: "key-123", apiSecret: "secret-123" })).toEqual({
        apiSecret: [MESSAGES.secretNotKeyOrExchange],
      });
      expect(errors(schema, { ...base, apiKey: "key-123", apiSecret: ec.apiSecret })).toEqual({
        apiKey: [MESSAGES.keyNameNotCdp],
      });
      expect(errors(schema, { ...base, ...ec, passphrase: "p" })).toEqual({ passphrase: [MESSAGES.passphraseWithCdp] });
      expect(errors(schema, { ...base, apiKey: ec.apiKey, apiSecret: ec.apiSecret })).toEqual({});
      expect(errors(schema, { ...base, apiKey: ed.apiKey, apiSecret: ed.apiSecret })).toEqual({});
      expect(errors(schema, { ...base, ...exchange })).toEqual({});
      // The messages of docs/spec/api.md#validation come first: an empty field is not also "not a key".
      expect(errors(schema, { ...base, apiKey: "", apiSecret: "" })).toEqual({
        apiKey: [MESSAGES.apiKeyRequired],
        apiSecret: [MESSAGES.apiSecretRequired],
      });
    }
  });

  test("API Settings: after the rules of docs/spec/api.md#validation, CDP keys only, titled 'Invalid Credentials'", () => {
    expect(credentialsIssue({ apiKey: "", apiSecret: "garbage" })?.message).toBe(MESSAGES.missingCredentials);
    expect(credentialsIssue({ apiKey: "orga••••1234", apiSecret: "garbage" })?.message).toBe(MESSAGES.masked);
    expect(credentialsIssue({ apiKey: "garbage", apiSecret: "garbage" })).toEqual({
      title: "Invalid Credentials",
      message: MESSAGES.secretNotKey,
      path: ["apiSecret"],
    });
    expect(credentialsIssue({ apiKey: exchange.apiKey, apiSecret: exchange.apiSecret })).toEqual({
      title: "Invalid Credentials",
      message: MESSAGES.exchangeKeyOnSettings,
      path: ["apiKey"],
    });
    expect(credentialsIssue({ apiKey: ec.apiKey, apiSecret: ec.apiSecret })).toBeNull();
    expect(errors(SaveCredentialsSchema, { apiKey: "garbage", apiSecret: "garbage" })).toEqual({
      apiSecret: [MESSAGES.secretNotKey],
    });
    expect(errors(SaveCredentialsSchema, { apiKey: ed.apiKey, apiSecret: ed.apiSecret })).toEqual({});
  });
});
