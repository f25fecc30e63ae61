// Exchange connections (docs/spec/api.md#shapes "Exchange connection"): the accounts the app may trade
// with. Secrets are stored encrypted by the caller (exchange/credentials.ts);
// this layer never sees a plaintext secret. Every write also renews the credentials
// version (a settings row) in the same transaction, so a worker can ask "did the stored
// credentials change?" with one primary-key read.
import { normalizeDecimal } from "../../app/core/decimal.ts";
import type { ExchangeRow } from "../schema.ts";
import { getSetting, setSetting } from "./settings.ts";
import { type Db, fromBool, isMysql, newId, nowMs, toBool, toIso } from "./util.ts";

export const CONNECTION_STATUSES = ["connected", "error", "disconnected"] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

/** A stored connection, secrets still encrypted. Never send this to a browser as is. */
export interface StoredExchangeConnection {
  id: string;
  exchangeName: string;
  accountName: string;
  apiKey: string;
  apiSecretEnc: string;
  passphraseEnc: string | null;
  sandbox: boolean;
  isEnabled: boolean;
  connectionStatus: ConnectionStatus;
  statusMessage: string | null;
  totalUsdValue: string | null;
  lastTestedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export const CREDENTIALS_VERSION_KEY = "exchange_credentials_version";

function toStatus(value: string): ConnectionStatus {
  return value === "connected" || value === "error" ? value : "disconnected";
}

export function exchangeRowToConnection(row: ExchangeRow): StoredExchangeConnection {
  return {
    id: row.id,
    exchangeName: row.exchange_name,
    accountName: row.account_name,
    apiKey: row.api_key,
    apiSecretEnc: row.api_secret_enc,
    passphraseEnc: row.passphrase_enc,
    sandbox: toBool(row.sandbox),
    isEnabled: toBool(row.is_enabled),
    connectionStatus: toStatus(row.connection_status),
    statusMessage: row.status_message,
    totalUsdValue: row.total_usd_value == null ? null : normalizeDecimal(row.total_usd_value),
    lastTestedAt: toIso(row.last_tested_at),
    createdAt: toIso(row.created_at)!,
    updatedAt: toIso(row.updated_at)!,
  };
}

/** All connections, oldest first (the order "first enabled" refers to). */
export async function listExchangeConnections(db: Db): Promise<StoredExchangeConnection[]> {
  const rows = await db.selectFrom("exchanges").selectAll().orderBy("created_at").orderBy("id").execute();
  return rows.map(exchangeRowToConnection);
}

export async function getExchangeConnection(db: Db, id: string): Promise<StoredExchangeConnection | null> {
  const row = await db.selectFrom("exchanges").selectAll().where("id", "=", id).executeTakeFirst();
  return row ? exchangeRowToConnection(row) : null;
}

/**
 * The trading connection: the first enabled one, oldest first. `forUpdate` locks it (MySQL;
 * SQLite's write transaction already serialises writers) for a read-modify-write.
 */
export async function getPrimaryConnection(
  db: Db,
  options: { forUpdate?: boolean } = {},
): Promise<StoredExchangeConnection | null> {
  let query = db
    .selectFrom("exchanges")
    .selectAll()
    .where("is_enabled", "=", 1)
    .orderBy("created_at")
    .orderBy("id")
    .limit(1);
  if (options.forUpdate && isMysql(db)) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? exchangeRowToConnection(row) : null;
}

/** What a caller chooses for a new connection (status, value and times start empty). */
export type NewExchangeConnection = Pick<
  StoredExchangeConnection,
  "exchangeName" | "accountName" | "apiKey" | "apiSecretEnc" | "passphraseEnc" | "sandbox" | "isEnabled"
>;

export async function insertExchangeConnection(
  db: Db,
  input: NewExchangeConnection,
): Promise<StoredExchangeConnection> {
  const id = newId();
  const now = nowMs();
  // Two inserts in the same millisecond must still have a stable "oldest first" order: ids
  // break the tie, and a later insert never gets an earlier created_at than the newest row.
  const newest = await db
    .selectFrom("exchanges")
    .select((eb) => eb.fn.max("created_at").as("at"))
    .executeTakeFirst();
  const createdAt = Math.max(now, Number(newest?.at ?? 0) + 1);
  await db
    .insertInto("exchanges")
    .values({
      id,
      exchange_name: input.exchangeName,
      account_name: input.accountName,
      api_key: input.apiKey,
      api_secret_enc: input.apiSecretEnc,
      passphrase_enc: input.passphraseEnc,
      sandbox: fromBool(input.sandbox),
      is_enabled: fromBool(input.isEnabled),
      connection_status: "disconnected",
      status_message: null,
      total_usd_value: null,
      last_tested_at: null,
      created_at: createdAt,
      updated_at: now,
    })
    .execute();
  await renewCredentialsVersion(db);
  return (await getExchangeConnection(db, id))!;
}

export type ExchangeConnectionPatch = Partial<Omit<NewExchangeConnection, "exchangeName">>;

/** Changes what the worker trades with (keys, sandbox, enabled): renews the version. */
export async function updateExchangeConnection(
  db: Db,
  id: string,
  patch: ExchangeConnectionPatch,
): Promise<StoredExchangeConnection | null> {
  const values: Record<string, unknown> = { updated_at: nowMs() };
  if (patch.accountName !== undefined) values.account_name = patch.accountName;
  if (patch.apiKey !== undefined) values.api_key = patch.apiKey;
  if (patch.apiSecretEnc !== undefined) values.api_secret_enc = patch.apiSecretEnc;
  if (patch.passphraseEnc !== undefined) values.passphrase_enc = patch.passphraseEnc;
  if (patch.sandbox !== undefined) values.sandbox = fromBool(patch.sandbox);
  if (patch.isEnabled !== undefined) values.is_enabled = fromBool(patch.isEnabled);
  // New keys or another environment: the last test no longer says anything about them.
  if (patch.apiKey !== undefined || patch.apiSecretEnc !== undefined || patch.sandbox !== undefined) {
    values.connection_status = "disconnected";
    values.status_message = null;
    values.total_usd_value = null;
  }
  const result = await db.updateTable("exchanges").set(values).where("id", "=", id).executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return null;
  await renewCredentialsVersion(db);
  return getExchangeConnection(db, id);
}

/** The outcome of a connection test (does not change the credentials version). */
export async function recordConnectionTest(
  db: Db,
  id: string,
  outcome: { status: ConnectionStatus; message: string; totalUsdValue?: string | null },
): Promise<StoredExchangeConnection | null> {
  const now = nowMs();
  const values: Record<string, unknown> = {
    connection_status: outcome.status,
    status_message: outcome.message,
    last_tested_at: now,
  };
  if (outcome.totalUsdValue !== undefined) values.total_usd_value = outcome.totalUsdValue;
  const result = await db.updateTable("exchanges").set(values).where("id", "=", id).executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return null;
  return getExchangeConnection(db, id);
}

/** Remembers the last Total USD Value read for a connection. */
export async function recordTotalUsdValue(db: Db, id: string, totalUsdValue: string | null): Promise<void> {
  await db.updateTable("exchanges").set({ total_usd_value: totalUsdValue }).where("id", "=", id).execute();
}

export async function deleteExchangeConnection(db: Db, id: string): Promise<boolean> {
  const result = await db.deleteFrom("exchanges").where("id", "=", id).executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) return false;
  await renewCredentialsVersion(db);
  return true;
}

/** A token that changes whenever stored credentials change ("none" before the first change). */
export async function getCredentialsVersion(db: Db): Promise<string> {
  return (await getSetting<string>(db, CREDENTIALS_VERSION_KEY)) ?? "none";
}

/**
 * Serialises credential changes: the version row, locked FOR UPDATE on MySQL (SQLite's
 * write transactions already run one at a time). Call first inside the transaction, so two
 * saves never both create the 'Default' connection.
 */
export async function lockCredentials(trx: Db): Promise<void> {
  if (!isMysql(trx)) return;
  const lock = () =>
    trx.selectFrom("settings").select("key").where("key", "=", CREDENTIALS_VERSION_KEY).forUpdate().executeTakeFirst();
  // The migration seeds the row. Inserting it here is the fallback for a database migrated
  // before that: never the common path, since INSERT IGNORE of an existing key takes a
  // shared lock that concurrent upgrades to FOR UPDATE would deadlock on.
  if (await lock()) return;
  await trx
    .insertInto("settings")
    .ignore()
    .values({ key: CREDENTIALS_VERSION_KEY, value: JSON.stringify("none"), updated_at: nowMs() })
    .execute();
  await lock();
}

export async function renewCredentialsVersion(db: Db): Promise<string> {
  const version = newId();
  await setSetting(db, CREDENTIALS_VERSION_KEY, version);
  return version;
}
