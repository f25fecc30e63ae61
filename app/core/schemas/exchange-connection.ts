// Exchange connections and API credentials (SPEC.md §3, §5, §7): the schemas the browser
// (instant validation) and the server (API routes, page actions) share, the exact texts of
// SPEC.md §5/§8, and the masking rules. No secrets are ever masked "reversibly": a masked
// value only says that something is stored.
import { z } from "zod";

/** The one supported exchange, "in capitals" (SPEC.md §3). */
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

/** POST /api/exchanges (JSON: sandbox and isEnabled default to true when absent). */
export const AddExchangeSchema = z.object({
  exchangeName: z.preprocess(
    (v) => (typeof v === "string" ? v.trim().toUpperCase() : v),
    z.enum(EXCHANGE_NAMES, { error: MESSAGES.exchangeRequired }),
  ),
  accountName: requiredText(MESSAGES.accountNameRequired, ACCOUNT_NAME_MAX, `Account name must be at most ${ACCOUNT_NAME_MAX} characters`),
  apiKey: requiredText(MESSAGES.apiKeyRequired, API_KEY_MAX, `API Key must be at most ${API_KEY_MAX} characters`).refine((v) => !isMasked(v), MESSAGES.masked),
  // Secrets are kept as typed (a PEM's line breaks matter); only surrounding blanks go.
  apiSecret: requiredText(MESSAGES.apiSecretRequired, API_SECRET_MAX, `API Secret must be at most ${API_SECRET_MAX} characters`).refine((v) => !isMasked(v), MESSAGES.masked),
  passphrase: z.preprocess(
    (v) => (typeof v === "string" && v.trim() !== "" ? v.trim() : null),
    z.string().max(PASSPHRASE_MAX, `Passphrase must be at most ${PASSPHRASE_MAX} characters`).nullable(),
  ),
  sandbox: z.unknown().optional().transform((v) => toBoolean(v, true)),
  isEnabled: z.unknown().optional().transform((v) => toBoolean(v, true)),
});
/**
 * The Connect Exchange form (page action without JavaScript, instant validation with it):
 * the same fields, but the switches are checkboxes, so absent means off.
 */
export const AddExchangeFormSchema = AddExchangeSchema.extend({
  sandbox: z.unknown().optional().transform((v) => toBoolean(v, false)),
  isEnabled: z.unknown().optional().transform((v) => toBoolean(v, false)),
});
export type AddExchange = z.output<typeof AddExchangeSchema>;

/** PUT /api/exchanges/{id}: isEnabled, or sandbox (or both). */
export const UpdateExchangeSchema = z
  .object({
    isEnabled: z.boolean({ error: "isEnabled must be true or false" }).optional(),
    sandbox: z.boolean({ error: "sandbox must be true or false" }).optional(),
  })
  .refine((v) => v.isEnabled !== undefined || v.sandbox !== undefined, { message: "Send isEnabled or sandbox", path: ["isEnabled"] });
export type UpdateExchange = z.output<typeof UpdateExchangeSchema>;

/**
 * API Settings' credentials form and POST /api/credentials/save. `originalApiKey` /
 * `originalApiSecret` are what the form was filled with (the masked values): both sent back
 * untouched means nothing was edited (the no-JavaScript path of 'No Changes Detected').
 */
export const SaveCredentialsFields = z.object({
  apiKey: z.preprocess((v) => (typeof v === "string" ? v.trim() : ""), z.string()),
  apiSecret: z.preprocess((v) => (typeof v === "string" ? v.trim() : ""), z.string()),
  sandbox: z.unknown().optional().transform((v) => toBoolean(v, true)),
  originalApiKey: z.string().optional().catch(undefined),
  originalApiSecret: z.string().optional().catch(undefined),
});

/** The fields plus SPEC.md §5's rules (credentialsIssue) as Zod issues, for forms. */
export const SaveCredentialsSchema = SaveCredentialsFields
  .superRefine((v, ctx) => {
    const issue = credentialsIssue(v);
    if (issue) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
  });
export type SaveCredentials = z.output<typeof SaveCredentialsFields>;

export interface CredentialsIssue {
  title: string;
  message: string;
  path: string[];
}

/** SPEC.md §5's rules in their order: missing, nothing edited, masked values. */
export function credentialsIssue(v: { apiKey: string; apiSecret: string; originalApiKey?: string; originalApiSecret?: string }): CredentialsIssue | null {
  if (!v.apiKey || !v.apiSecret) {
    return { title: MESSAGES.missingCredentialsTitle, message: MESSAGES.missingCredentials, path: [v.apiKey ? "apiSecret" : "apiKey"] };
  }
  const untouched =
    v.originalApiKey !== undefined &&
    v.originalApiSecret !== undefined &&
    v.originalApiKey !== "" &&
    v.apiKey === v.originalApiKey.trim() &&
    v.apiSecret === v.originalApiSecret.trim();
  if (untouched) return { title: MESSAGES.noChangesTitle, message: MESSAGES.noChanges, path: [""] };
  if (isMasked(v.apiKey) || isMasked(v.apiSecret)) {
    return { title: MESSAGES.maskedTitle, message: MESSAGES.masked, path: [isMasked(v.apiKey) ? "apiKey" : "apiSecret"] };
  }
  if (v.apiKey.length > API_KEY_MAX) return { title: "Save Failed", message: `API Key must be at most ${API_KEY_MAX} characters`, path: ["apiKey"] };
  if (v.apiSecret.length > API_SECRET_MAX) return { title: "Save Failed", message: `API Secret must be at most ${API_SECRET_MAX} characters`, path: ["apiSecret"] };
  return null;
}

/** POST /api/credentials/save-settings: the sandbox switch alone. */
export const SaveSettingsSchema = z.object({
  sandbox: z.unknown().refine((v) => v !== undefined && v !== null && v !== "", "sandbox is required").transform((v) => toBoolean(v, true)),
});

/** What GET /api/credentials answers (SPEC.md §3 "Credentials summary"). */
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
