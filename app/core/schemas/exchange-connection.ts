// Exchange connections and API credentials (docs/spec/api.md#shapes, api.md#validation, api.md): the schemas the browser
// (instant validation) and the server (API routes, page actions) share, the exact texts of
// docs/spec/api.md#validation/api.md#errors, and the masking rules. No secrets are ever masked "reversibly": a masked
// value only says that something is stored.
import { z } from "zod";

/** The one supported exchange, "in capitals" (docs/spec/api.md#shapes). */
export const EXCHANGE_NAMES = ["COINBASE"] as const;
export type ExchangeName = (typeof EXCHANGE_NAMES)[number];
export const EXCHANGE_LABELS: Record<ExchangeName, string> = { COINBASE: "Coinbase" };

export const MESSAGES = {
  exchangeRequired: "Please select an exchange",
  accountNameRequired: "Account name is required",
  apiKeyRequired: "API Key is required",
  apiSecretRequired: "API Secret is required",
  missingCredentialsTitle: "Missing Credentials",
  missingCredentials: "API Key and Secret are required",
  noChangesTitle: "No Changes Detected",
  noChanges: "Please enter new credentials or modify existing ones to save",
  maskedTitle: "Invalid Credentials",
  masked: "Please enter your actual API credentials, not the masked values.",
  nothingToSave: "No changes to save. Please enter new credentials.",
  noSettingsChange: "No settings have been modified",
  // The key's shape (coinbaseKeyIssue): what Coinbase gives, never the value typed.
  notCoinbaseKeyTitle: "Invalid Credentials",
  secretNotKey:
    "API Secret is not a Coinbase key: paste the private key the CDP portal gave you (-----BEGIN EC PRIVATE KEY----- …) or its Ed25519 secret",
  secretNotKeyOrExchange:
    "API Secret is not a Coinbase key: paste the private key the CDP portal gave you (-----BEGIN EC PRIVATE KEY----- …) or its Ed25519 secret, or a Coinbase Exchange API secret (base64) with its passphrase",
  pemUnreadable:
    "API Secret is not a readable private key: paste the whole key the CDP portal gave you, from -----BEGIN EC PRIVATE KEY----- to its END line",
  keyNameNotCdp:
    "API Key is not a CDP key name: paste the key name the CDP portal gave you with this private key (organizations/{org_id}/apiKeys/{key_id})",
  keyIdNotCdp:
    "API Key is not a CDP key id: paste the key id the CDP portal gave you with this Ed25519 secret (a UUID, or organizations/{org_id}/apiKeys/{key_id})",
  ed25519Length: "API Secret is not a Coinbase Ed25519 secret: the CDP portal gives it as base64 of 64 bytes",
  ed25519Mismatch:
    "API Secret is not a usable Ed25519 secret: its second half is not the public key of its first; paste the whole secret the CDP portal gave you",
  exchangeKeyNotHex:
    "API Key is not a Coinbase Exchange API key: with a passphrase the key is the 32 hexadecimal characters Coinbase Exchange gave you",
  exchangeSecretShort:
    "API Secret is not a Coinbase Exchange API secret: it is base64 of 64 bytes, as Coinbase Exchange gave it",
  passphraseWithCdp:
    "A passphrase belongs to a Coinbase Exchange API key; CDP keys (a private key or an Ed25519 secret) have none: leave Passphrase empty",
  exchangeNeedsPassphrase: "This looks like a Coinbase Exchange API key: enter its passphrase too (CDP keys have none)",
  exchangeKeyOnSettings:
    "This looks like a Coinbase Exchange API key: API Settings takes a CDP key (futures); add an Exchange API key with its passphrase under Exchanges",
} as const;

/** The bullet the masked values are made of. Any value containing it is a masked one. */
export const MASK_CHAR = "•";
export const MASKED_SECRET = MASK_CHAR.repeat(16);

export const ACCOUNT_NAME_MAX = 100;
export const API_KEY_MAX = 512;
export const API_SECRET_MAX = 8192;
export const PASSPHRASE_MAX = 256;

export const isMasked = (value: string | null | undefined) => typeof value === "string" && value.includes(MASK_CHAR);

/** The API key as API Settings shows it: its first and last 4 characters around bullets. */
export function maskApiKey(apiKey: string): string {
  if (!apiKey) return "";
  if (apiKey.length <= 8) return MASK_CHAR.repeat(8);
  return `${apiKey.slice(0, 4)}${MASK_CHAR.repeat(8)}${apiKey.slice(-4)}`;
}

/** Checkbox/switch booleans from JSON (true/false) or a form post ("on" / absent, "true"/"false"). */
export function toBoolean(value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null || value === "") return fallback;
  if (typeof value === "boolean") return value;
  if (typeof value === "number") return value !== 0;
  const text = String(value).trim().toLowerCase();
  if (["true", "on", "1", "yes"].includes(text)) return true;
  if (["false", "off", "0", "no"].includes(text)) return false;
  return fallback;
}

const requiredText = (message: string, max: number, tooLong: string) =>
  z.preprocess(
    (v) => (typeof v === "string" ? v.trim() : v == null ? "" : v),
    z.string({ error: message }).min(1, message).max(max, tooLong),
  );

// ---------------------------------------------------------------------------------------
// The key's shape (issue 22; docs/decisions/010-exchange-connections.md "The key's shape").
// Coinbase gives three kinds of keys, and nothing else can trade or read (how the connector
// loads them: exchange/coinbase/jwt.ts, exchange-client.ts):
// - CDP ECDSA: key name organizations/{org}/apiKeys/{id}; secret a SEC1 (EC PRIVATE KEY) or
//   PKCS#8 (PRIVATE KEY) PEM of a P-256 key;
// - CDP Ed25519: key id (a UUID, or the key name); secret base64 of 64 bytes (seed + public);
// - Coinbase Exchange API (profiles and reports): hex key, base64 secret, and a passphrase.
// The browser checks the structure (no node:crypto there); the server also loads the key
// (installKeyLoader, app/core/schemas/exchange-connection.server.ts), in the same function, so
// the schemas give the same message on both sides. A message never repeats what was typed.

/** The kinds of Coinbase keys the app can use. */
export type CoinbaseKeyKind = "cdp-ecdsa" | "cdp-ed25519" | "exchange";

/** Server-only: loads a secret (as typed) of `kind` and answers why it cannot be used, or null. */
export type KeyLoader = (kind: CoinbaseKeyKind, secret: string) => string | null;
let keyLoader: KeyLoader | null = null;

/** Installed once by the server (exchange-connection.server.ts); the browser has none. */
export function installKeyLoader(loader: KeyLoader | null): void {
  keyLoader = loader;
}

const CDP_KEY_NAME = /^organizations\/[A-Za-z0-9_-]+\/apiKeys\/[A-Za-z0-9_-]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX_KEY = /^[0-9a-f]{32}$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const PEM = /^-----BEGIN (EC PRIVATE KEY|PRIVATE KEY)-----\n(?:[A-Za-z0-9+/=]+\n)+-----END \1-----$/;

/** The secret as the connector loads it (exchange/coinbase/jwt.ts); env files often carry a PEM on one line with literal "\n". */
export function normalizeSecret(secret: string): string {
  return secret.includes("\\n") ? secret.replace(/\\n/g, "\n").trim() : secret.trim();
}

/** A secret as the connector reads it: literal "\n" (env files) as line breaks, CRLF as LF. */
function normalizedSecret(secret: string): string {
  const text = secret.includes("\\n") ? secret.replace(/\\n/g, "\n") : secret;
  return text
    .replace(/\r\n?/g, "\n")
    .trim()
    .split("\n")
    .map((line) => line.trim())
    .join("\n");
}

/** Bytes of a base64 text (no decoding, so the browser needs nothing). */
const base64Bytes = (text: string) => (text.length / 4) * 3 - (text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0);

export interface KeyIssue {
  path: "apiKey" | "apiSecret" | "passphrase";
  message: string;
}

/**
 * Whether the key is one Coinbase gives (null) or why not. `passphrase` undefined: the form
 * has no passphrase field (API Settings: CDP keys only); null or "": none was typed.
 */
export function coinbaseKeyIssue(v: {
  apiKey: string;
  apiSecret: string;
  passphrase?: string | null;
}): KeyIssue | null {
  const withPassphraseField = v.passphrase !== undefined;
  const passphrase = (v.passphrase ?? "").trim();
  const apiKey = v.apiKey.trim();
  const secret = normalizedSecret(v.apiSecret);
  const notKey: KeyIssue = {
    path: "apiSecret",
    message: withPassphraseField ? MESSAGES.secretNotKeyOrExchange : MESSAGES.secretNotKey,
  };
  const loaded = (kind: CoinbaseKeyKind): KeyIssue | null => {
    const reason = keyLoader ? keyLoader(kind, v.apiSecret) : null;
    return reason ? { path: "apiSecret", message: reason } : null;
  };

  if (secret.startsWith("-----BEGIN")) {
    if (!PEM.test(secret))
      return secret.includes("PRIVATE KEY-----") ? { path: "apiSecret", message: MESSAGES.pemUnreadable } : notKey;
    if (passphrase) return { path: "passphrase", message: MESSAGES.passphraseWithCdp };
    if (!CDP_KEY_NAME.test(apiKey)) return { path: "apiKey", message: MESSAGES.keyNameNotCdp };
    return loaded("cdp-ecdsa");
  }
  const compact = secret.replace(/\s+/g, "");
  if (!BASE64.test(compact) || compact.length === 0) return notKey;
  const bytes = base64Bytes(compact);
  if (passphrase) {
    if (!HEX_KEY.test(apiKey)) {
      return CDP_KEY_NAME.test(apiKey) || UUID.test(apiKey)
        ? { path: "passphrase", message: MESSAGES.passphraseWithCdp }
        : { path: "apiKey", message: MESSAGES.exchangeKeyNotHex };
    }
    if (bytes !== 64) return { path: "apiSecret", message: MESSAGES.exchangeSecretShort };
    return null;
  }
  if (HEX_KEY.test(apiKey))
    return withPassphraseField
      ? { path: "passphrase", message: MESSAGES.exchangeNeedsPassphrase }
      : { path: "apiKey", message: MESSAGES.exchangeKeyOnSettings };
  if (bytes !== 64) return { path: "apiSecret", message: MESSAGES.ed25519Length };
  if (!UUID.test(apiKey) && !CDP_KEY_NAME.test(apiKey)) return { path: "apiKey", message: MESSAGES.keyIdNotCdp };
  return loaded("cdp-ed25519");
}

/** POST /api/exchanges (JSON: sandbox and isEnabled default to true when absent). */
const AddExchangeFields = z.object({
  exchangeName: z.preprocess(
    (v) => (typeof v === "string" ? v.trim().toUpperCase() : v),
    z.enum(EXCHANGE_NAMES, { error: MESSAGES.exchangeRequired }),
  ),
  accountName: requiredText(
    MESSAGES.accountNameRequired,
    ACCOUNT_NAME_MAX,
    `Account name must be at most ${ACCOUNT_NAME_MAX} characters`,
  ),
  apiKey: requiredText(
    MESSAGES.apiKeyRequired,
    API_KEY_MAX,
    `API Key must be at most ${API_KEY_MAX} characters`,
  ).refine((v) => !isMasked(v), MESSAGES.masked),
  // Secrets are kept as typed (a PEM's line breaks matter); only surrounding blanks go.
  apiSecret: requiredText(
    MESSAGES.apiSecretRequired,
    API_SECRET_MAX,
    `API Secret must be at most ${API_SECRET_MAX} characters`,
  ).refine((v) => !isMasked(v), MESSAGES.masked),
  passphrase: z.preprocess(
    (v) => (typeof v === "string" && v.trim() !== "" ? v.trim() : null),
    z.string().max(PASSPHRASE_MAX, `Passphrase must be at most ${PASSPHRASE_MAX} characters`).nullable(),
  ),
  sandbox: z
    .unknown()
    .optional()
    .transform((v) => toBoolean(v, true)),
  isEnabled: z
    .unknown()
    .optional()
    .transform((v) => toBoolean(v, true)),
});
/** The key's shape (coinbaseKeyIssue) as a Zod issue on the field it is about. */
const withKeyShape = <T extends { apiKey: string; apiSecret: string; passphrase: string | null }>(
  v: T,
  ctx: z.RefinementCtx,
) => {
  // Only once the fields themselves are fine (Zod runs this even when one of them failed).
  const usable = (text: unknown, max: number) =>
    typeof text === "string" && text !== "" && text.length <= max && !isMasked(text);
  if (
    !usable(v.apiKey, API_KEY_MAX) ||
    !usable(v.apiSecret, API_SECRET_MAX) ||
    !(v.passphrase === null || usable(v.passphrase, PASSPHRASE_MAX))
  )
    return;
  const issue = coinbaseKeyIssue(v);
  if (issue) ctx.addIssue({ code: "custom", path: [issue.path], message: issue.message });
};
export const AddExchangeSchema = AddExchangeFields.superRefine(withKeyShape);
/**
 * The Connect Exchange form (page action without JavaScript, instant validation with it):
 * the same fields, but the switches are checkboxes, so absent means off.
 */
export const AddExchangeFormSchema = AddExchangeFields.extend({
  sandbox: z
    .unknown()
    .optional()
    .transform((v) => toBoolean(v, false)),
  isEnabled: z
    .unknown()
    .optional()
    .transform((v) => toBoolean(v, false)),
}).superRefine(withKeyShape);
export type AddExchange = z.output<typeof AddExchangeSchema>;

/** PUT /api/exchanges/{id}: isEnabled, or sandbox (or both). */
export const UpdateExchangeSchema = z
  .object({
    isEnabled: z.boolean({ error: "isEnabled must be true or false" }).optional(),
    sandbox: z.boolean({ error: "sandbox must be true or false" }).optional(),
  })
  .refine((v) => v.isEnabled !== undefined || v.sandbox !== undefined, {
    message: "Send isEnabled or sandbox",
    path: ["isEnabled"],
  });
export type UpdateExchange = z.output<typeof UpdateExchangeSchema>;

/**
 * API Settings' credentials form and POST /api/credentials/save. `originalApiKey` /
 * `originalApiSecret` are what the form was filled with (the masked values): both sent back
 * untouched means nothing was edited (the no-JavaScript path of 'No Changes Detected').
 */
export const SaveCredentialsFields = z.object({
  apiKey: z.preprocess((v) => (typeof v === "string" ? v.trim() : ""), z.string()),
  apiSecret: z.preprocess((v) => (typeof v === "string" ? v.trim() : ""), z.string()),
  sandbox: z
    .unknown()
    .optional()
    .transform((v) => toBoolean(v, true)),
  originalApiKey: z.string().optional().catch(undefined),
  originalApiSecret: z.string().optional().catch(undefined),
});

/** The fields plus the rules of docs/spec/api.md#validation (credentialsIssue) as Zod issues, for forms. */
export const SaveCredentialsSchema = SaveCredentialsFields.superRefine((v, ctx) => {
  const issue = credentialsIssue(v);
  if (issue) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
});
export type SaveCredentials = z.output<typeof SaveCredentialsFields>;

export interface CredentialsIssue {
  title: string;
  message: string;
  path: string[];
}

/** The rules of docs/spec/api.md#validation in their order: missing, nothing edited, masked values; then the key's shape. */
export function credentialsIssue(v: {
  apiKey: string;
  apiSecret: string;
  originalApiKey?: string;
  originalApiSecret?: string;
}): CredentialsIssue | null {
  if (!v.apiKey || !v.apiSecret) {
    return {
      title: MESSAGES.missingCredentialsTitle,
      message: MESSAGES.missingCredentials,
      path: [v.apiKey ? "apiSecret" : "apiKey"],
    };
  }
  const untouched =
    v.originalApiKey !== undefined &&
    v.originalApiSecret !== undefined &&
    v.originalApiKey !== "" &&
    v.apiKey === v.originalApiKey.trim() &&
    v.apiSecret === v.originalApiSecret.trim();
  if (untouched) return { title: MESSAGES.noChangesTitle, message: MESSAGES.noChanges, path: [""] };
  if (isMasked(v.apiKey) || isMasked(v.apiSecret)) {
    return {
      title: MESSAGES.maskedTitle,
      message: MESSAGES.masked,
      path: [isMasked(v.apiKey) ? "apiKey" : "apiSecret"],
    };
  }
  if (v.apiKey.length > API_KEY_MAX)
    return { title: "Save Failed", message: `API Key must be at most ${API_KEY_MAX} characters`, path: ["apiKey"] };
  if (v.apiSecret.length > API_SECRET_MAX)
    return {
      title: "Save Failed",
      message: `API Secret must be at most ${API_SECRET_MAX} characters`,
      path: ["apiSecret"],
    };
  // API Settings has no passphrase field: CDP keys only.
  const shape = coinbaseKeyIssue({ apiKey: v.apiKey, apiSecret: v.apiSecret });
  if (shape) return { title: MESSAGES.notCoinbaseKeyTitle, message: shape.message, path: [shape.path] };
  return null;
}

/** POST /api/credentials/save-settings: the sandbox switch alone. */
export const SaveSettingsSchema = z.object({
  sandbox: z
    .unknown()
    .refine((v) => v !== undefined && v !== null && v !== "", "sandbox is required")
    .transform((v) => toBoolean(v, true)),
});

/** What GET /api/credentials answers (docs/spec/api.md#shapes "Credentials summary"). */
export interface CredentialsSummary {
  apiKey: string; // masked
  hasSecret: boolean;
  sandbox: boolean;
  /** Where the trading credentials come from: API Settings, the environment, or nowhere. */
  source: "settings" | "env" | "none";
  connectionId: string | null;
  connectionStatus: "connected" | "error" | "disconnected";
  statusMessage: string | null;
  lastTestedAt: string | null;
}

/** An exchange connection as GET /api/exchanges answers it: never a secret. */
export interface ExchangeView {
  id: string;
  exchangeName: string;
  accountName: string;
  apiKey: string; // truncated to 20 characters plus "..."
  hasPassphrase: boolean;
  sandbox: boolean;
  isEnabled: boolean;
  connectionStatus: "connected" | "error" | "disconnected";
  statusMessage: string | null;
  totalUsdValue: string | null;
  /** Where the value comes from: the simulator's paper account, or the exchange's balances. */
  totalUsdSource: "paper" | "exchange" | null;
  /** This is the connection the worker trades with (the first enabled one). */
  isTrading: boolean;
  lastTestedAt: string | null;
  createdAt: string;
  updatedAt: string;
}
