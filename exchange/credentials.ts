// The exchange credentials the app trades with (docs/decisions/010-exchange-connections.md);
// the API Settings / Exchanges operations on them are in exchange-connections.server.ts.
//
// Where credentials come from, first match wins:
//   1. the first enabled exchange connection (oldest first), saved from API Settings or the
//      Exchanges screen; its secret and passphrase are stored AES-256-GCM encrypted with a
//      key derived from APP_SECRET (app/core/crypto.ts) and decrypted only here;
//   2. COINBASE_API_KEY + COINBASE_API_SECRET (+ COINBASE_SANDBOX) from the environment;
//   3. none: the worker trades on the simulator.
// Secrets never leave this module in an answer, a log line or an error message.
import type { Kysely } from "kysely";
import { decryptSecret } from "#app/core/crypto.ts";
import { type AppConfig, loadConfig } from "#app/core/env.ts";
import { type StoredExchangeConnection, getCredentialsVersion, getPrimaryConnection } from "#db/queries/exchanges.ts";
import type { DB } from "#db/schema.ts";

export type CoinbaseCredentials = {
  apiKey: string;
  apiSecret: string;
  passphrase: string | null;
  sandbox: boolean;
  source: "settings" | "env";
  connectionId: number | null;
  /** The stored connection's id (a UUID string) when source is "settings", else null. */
  connectionRef?: string | null;
};

/** The part of the configuration credentials depend on (defaults to the process's). */
export type CredentialsConfig = Pick<
  AppConfig,
  "appSecret" | "COINBASE_API_KEY" | "COINBASE_API_SECRET" | "COINBASE_SANDBOX"
>;

/**
 * The credentials the worker trades with, or null (simulator). Saved ones (decrypted) win
 * over the environment. Throws DecryptError (app/core/crypto.ts, no secret in its message)
 * when a stored secret was encrypted under another APP_SECRET: a human must re-enter it.
 *
 * Connection ids are UUID strings (docs/architecture.md), so the stored connection is named
 * by `connectionRef`; `connectionId` (numeric in the agreed contract) stays null.
 */
export async function getTradingCredentials(
  db: Kysely<DB>,
  config: CredentialsConfig = loadConfig(),
): Promise<CoinbaseCredentials | null> {
  const primary = await getPrimaryConnection(db);
  if (primary) return connectionCredentials(primary, config);
  return envCredentials(config);
}

/** A stored connection's credentials, decrypted (throws DecryptError when APP_SECRET changed). */
export function connectionCredentials(
  connection: StoredExchangeConnection,
  config: CredentialsConfig,
): CoinbaseCredentials {
  return {
    apiKey: connection.apiKey,
    apiSecret: decryptSecret(connection.apiSecretEnc, config.appSecret),
    passphrase: connection.passphraseEnc ? decryptSecret(connection.passphraseEnc, config.appSecret) : null,
    sandbox: connection.sandbox,
    source: "settings",
    connectionId: null,
    connectionRef: connection.id,
  };
}

/** COINBASE_API_KEY / COINBASE_API_SECRET / COINBASE_SANDBOX, when both key and secret are set. */
export function envCredentials(config: CredentialsConfig = loadConfig()): CoinbaseCredentials | null {
  const apiKey = config.COINBASE_API_KEY?.trim();
  const apiSecret = config.COINBASE_API_SECRET;
  if (!apiKey || !apiSecret?.trim()) return null;
  return {
    apiKey,
    // PEM keys pasted into one-line env files usually carry literal "\n".
    apiSecret: apiSecret.includes("\\n") ? apiSecret.replace(/\\n/g, "\n") : apiSecret,
    passphrase: null,
    sandbox: config.COINBASE_SANDBOX,
    source: "env",
    connectionId: null,
    connectionRef: null,
  };
}

/**
 * Cheap (one primary-key read): a string that changes whenever stored credentials change
 * (a connection added, deleted, enabled/disabled, its keys or sandbox changed). The
 * environment cannot change while a process runs, so it does not take part.
 */
export async function credentialsVersion(db: Kysely<DB>): Promise<string> {
  return getCredentialsVersion(db);
}
