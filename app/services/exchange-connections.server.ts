// The operations behind the Exchanges screen (docs/spec/screens.md, api.md /api/exchanges*) and API
// Settings (/api/credentials*, /api/test/coinbase): one transaction per change, an activity
// log line and a system_status event with it, secrets encrypted on the way in and never on
// the way out (docs/decisions/010-exchange-connections.md).
import type { Kysely } from "kysely";
import { DecryptError, decryptSecret, encryptSecret } from "#app/core/crypto.ts";
import { assertNoOpenExposure, openExposure } from "./exposure.server.ts";
import { D } from "#app/core/decimal.ts";
import { REDACTED } from "#app/core/redact.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import {
  type AddExchange,
  type CredentialsSummary,
  EXCHANGE_LABELS,
  type ExchangeView,
  MESSAGES,
  type SaveCredentials,
  type UpdateExchange,
  credentialsIssue,
  maskApiKey,
} from "#app/core/schemas/exchange-connection.ts";
import { truncateKey } from "#app/core/format.ts";
import { recordActivity } from "#db/queries/activity-logs.ts";
import { appendEvent } from "#db/queries/events.ts";
import {
  type ExchangeConnectionPatch,
  type StoredExchangeConnection,
  deleteExchangeConnection,
  getExchangeConnection,
  getPrimaryConnection,
  insertExchangeConnection,
  listExchangeConnections,
  lockCredentials,
  recordConnectionTest,
  recordTotalUsdValue,
  updateExchangeConnection,
} from "#db/queries/exchanges.ts";
import type { DB } from "#db/schema.ts";
import {
  type CoinbaseCredentials,
  type CredentialsConfig,
  connectionCredentials,
  envCredentials,
} from "#exchange/credentials.ts";
import { getExchange, testCoinbaseConnection } from "#exchange/factory.ts";
import { recordAudit } from "#db/queries/audit.ts";
import {
  contractSizesSwitchPending,
  getCoinbaseContractSizesChoice,
  setCoinbaseContractSizes,
  simulatorUsesCoinbaseContracts,
} from "#exchange/trading-product.ts";
import { contractSizesSwitchedNotice } from "#app/core/exchange/contract-sizes.ts";
import type { Balance } from "#app/core/exchange/types.ts";
import { installServerKeyCheck } from "#app/core/schemas/exchange-connection.server.ts";

// The server's key load inside the shared schemas' shape check (coinbaseKeyIssue): every
// route that parses them imports this module.
installServerKeyCheck();

// ---------------------------------------------------------------------------------------
// Exchanges (docs/spec/screens.md Exchanges, api.md /api/exchanges*) and API Settings (/api/credentials*)

/** Tests keys against the exchange with one read-only call. */
export type ConnectionTester = (credentials: CoinbaseCredentials) => Promise<{ success: boolean; message: string }>;

/** The connector's test (exchange/factory.ts), recording the call for /api/health. */
export const coinbaseTester =
  (db: Kysely<DB>): ConnectionTester =>
  (credentials) =>
    testCoinbaseConnection(credentials, { db });

/** How long GET /api/exchanges waits for the live account's balances before showing the last known value. */
export const LIVE_BALANCE_WAIT_MS = 5_000;

const STABLE_USD = new Set(["USD", "USDC", "USDT"]);

/**
 * The simulator's paper account in USD: stable-coin balances (available + held margin)
 * plus the unrealized P&L of its open positions. Every sandbox connection trades on it
 * (docs/spec/exchange.md: sandbox orders are paper orders), so that is their Total USD Value.
 */
export async function paperAccountUsdValue(db: Kysely<DB>): Promise<string> {
  const simulator = new SimulatorAdapter(db);
  const [balances, positions] = await Promise.all([simulator.getBalances(), simulator.getPositions()]);
  let total = usdOf(balances);
  for (const position of positions) if (position.unrealizedPnl) total = total.plus(position.unrealizedPnl);
  return usd2(total);
}

/** A connection as the browser may see it: no secret, the key truncated. */
export function toExchangeView(
  connection: StoredExchangeConnection,
  extra: { isTrading: boolean; paperUsd: string | null },
): ExchangeView {
  const paper = connection.sandbox && extra.paperUsd !== null;
  return {
    id: connection.id,
    exchangeName: connection.exchangeName,
    accountName: connection.accountName,
    apiKey: truncateKey(connection.apiKey),
    hasPassphrase: connection.passphraseEnc !== null,
    sandbox: connection.sandbox,
    isEnabled: connection.isEnabled,
    connectionStatus: connection.connectionStatus,
    statusMessage: connection.statusMessage,
    totalUsdValue: paper ? extra.paperUsd : connection.totalUsdValue,
    totalUsdSource: paper ? "paper" : connection.totalUsdValue !== null ? "exchange" : null,
    isTrading: extra.isTrading,
    lastTestedAt: connection.lastTestedAt,
    createdAt: connection.createdAt,
    updatedAt: connection.updatedAt,
  };
}

/** Stable-coin balances (available + held) in USD, exact. */
function usdOf(balances: { currency: string; available: string; hold: string }[]) {
  let total = D(0);
  for (const balance of balances)
    if (STABLE_USD.has(balance.currency)) total = total.plus(balance.available).plus(balance.hold || "0");
  return total;
}

/** Money as the table shows it: two decimals, rounded down (never more than there is). */
const usd2 = (value: ReturnType<typeof D>) => value.round(2, 0).toFixed(2);

/**
 * The live (sandbox off) trading connection's value from the exchange it trades on
 * (getExchange follows the same credentials), remembered on the row; on a slow or failed
 * call the last remembered value stays.
 */
async function refreshLiveValue(
  db: Kysely<DB>,
  connection: StoredExchangeConnection,
): Promise<StoredExchangeConnection> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    // Only the adapter the current credentials chose (a switch takes up to a second or two).
    const resolved = await getExchange(db).resolve();
    if (resolved.mode !== "coinbase-live") return connection;
    const balances = await Promise.race([
      resolved.adapter.getBalances(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${LIVE_BALANCE_WAIT_MS / 1000} s`)),
          LIVE_BALANCE_WAIT_MS,
        );
      }),
    ]);
    const value = usd2(usdOf(balances));
    if (value !== connection.totalUsdValue) await recordTotalUsdValue(db, connection.id, value);
    return { ...connection, totalUsdValue: value };
  } catch (error) {
    console.warn(`balances of "${connection.accountName}" unavailable: ${(error as Error).message}`);
    return connection;
  } finally {
    clearTimeout(timer);
  }
}

async function viewsOf(db: Kysely<DB>, all: StoredExchangeConnection[]): Promise<ExchangeView[]> {
  const tradingId = all.find((c) => c.isEnabled)?.id ?? null;
  const connections = await Promise.all(
    all.map((c) => (c.id === tradingId && !c.sandbox ? refreshLiveValue(db, c) : c)),
  );
  let paperUsd: string | null = null;
  if (connections.some((c) => c.sandbox)) {
    try {
      paperUsd = await paperAccountUsdValue(db);
    } catch (error) {
      console.warn(`paper account value unavailable: ${(error as Error).message}`);
    }
  }
  return connections.map((c) => toExchangeView(c, { isTrading: c.id === tradingId, paperUsd }));
}

export async function listExchanges(db: Kysely<DB>): Promise<ExchangeView[]> {
  return viewsOf(db, await listExchangeConnections(db));
}

export async function getExchangeView(db: Kysely<DB>, id: string): Promise<ExchangeView | null> {
  const all = await listExchangeConnections(db);
  const views = await viewsOf(
    db,
    all.filter((c) => c.id === id || c.isEnabled),
  );
  return views.find((v) => v.id === id) ?? null;
}

const envLabel = (sandbox: boolean) => (sandbox ? "sandbox" : "production");

/** Activity log + live events for a credentials change, inside the caller's transaction. */
async function logChange(
  trx: Kysely<DB>,
  level: "info" | "success" | "warning",
  message: string,
  data: Record<string, unknown>,
) {
  await recordActivity(trx, { type: "system", level, message, data });
  await appendEvent(trx, "system_status", { component: "coinbase_api", reason: "credentials_changed" });
}

/**
 * POST /api/exchanges and the screen's add. `notice` is set when this save turned the
 * simulator's "Use Coinbase contract sizes" on (its default once a connection is saved,
 * decision 025): the first enabled connection while nobody chose the setting.
 */
export async function addExchangeConnection(
  db: Kysely<DB>,
  config: CredentialsConfig,
  input: AddExchange,
  by: string,
): Promise<ExchangeView & { notice?: string }> {
  let switched = false;
  const created = await db.transaction().execute(async (trx) => {
    await lockCredentials(trx);
    // An enabled connection may become the one the worker trades with (issue 11).
    if (input.isEnabled) await assertNoOpenExposure(trx);
    switched = input.isEnabled && (await contractSizesSwitchPending(trx));
    const connection = await insertExchangeConnection(trx, {
      exchangeName: input.exchangeName,
      accountName: input.accountName,
      apiKey: input.apiKey,
      apiSecretEnc: encryptSecret(input.apiSecret, config.appSecret),
      passphraseEnc: input.passphrase ? encryptSecret(input.passphrase, config.appSecret) : null,
      sandbox: input.sandbox,
      isEnabled: input.isEnabled,
    });
    await recordAudit(trx, {
      actor: by,
      action: "exchange.create",
      target: connection.id,
      after: {
        exchangeName: connection.exchangeName,
        accountName: connection.accountName,
        apiKey: input.apiKey,
        apiSecret: input.apiSecret,
        passphrase: input.passphrase ?? null,
        sandbox: connection.sandbox,
        isEnabled: connection.isEnabled,
      },
    });
    await logChange(
      trx,
      "success",
      `Exchange connected: ${EXCHANGE_LABELS[input.exchangeName]} account "${input.accountName}" (${envLabel(input.sandbox)}${input.isEnabled ? "" : ", disabled"}) by ${by}`,
      {
        exchangeId: connection.id,
        exchangeName: connection.exchangeName,
        accountName: connection.accountName,
        sandbox: connection.sandbox,
        isEnabled: connection.isEnabled,
      },
    );
    return connection;
  });
  const view = (await getExchangeView(db, created.id))!;
  return switched ? { ...view, notice: contractSizesSwitchedNotice() } : view;
}

export async function updateExchangeFlags(
  db: Kysely<DB>,
  id: string,
  patch: UpdateExchange,
  by: string,
): Promise<ExchangeView | null> {
  const updated = await db.transaction().execute(async (trx) => {
    await lockCredentials(trx);
    const before = await getExchangeConnection(trx, id);
    if (!before) return null;
    const changes: ExchangeConnectionPatch = {};
    if (patch.isEnabled !== undefined && patch.isEnabled !== before.isEnabled) changes.isEnabled = patch.isEnabled;
    if (patch.sandbox !== undefined && patch.sandbox !== before.sandbox) changes.sandbox = patch.sandbox;
    if (Object.keys(changes).length === 0) return before;
    // Enabling, disabling or switching the mode of a connection that trades (or may) moves
    // where orders go: refused while positions or orders are open on the current one.
    if (before.isEnabled || changes.isEnabled) await assertNoOpenExposure(trx);
    const after = await updateExchangeConnection(trx, id, changes);
    await recordAudit(trx, {
      actor: by,
      action: "exchange.update",
      target: id,
      before: { isEnabled: before.isEnabled, sandbox: before.sandbox },
      after: { isEnabled: before.isEnabled, sandbox: before.sandbox, ...changes },
    });
    const words: string[] = [];
    if (changes.isEnabled !== undefined) words.push(changes.isEnabled ? "enabled" : "disabled");
    if (changes.sandbox !== undefined)
      words.push(changes.sandbox ? "switched to sandbox" : "switched to production (live trading)");
    await logChange(
      trx,
      changes.sandbox === false ? "warning" : "info",
      `Exchange "${before.accountName}" ${words.join(" and ")} by ${by}`,
      {
        exchangeId: id,
        accountName: before.accountName,
        ...changes,
      },
    );
    return after;
  });
  return updated ? getExchangeView(db, id) : null;
}

export async function deleteExchange(db: Kysely<DB>, id: string, by: string): Promise<StoredExchangeConnection | null> {
  return db.transaction().execute(async (trx) => {
    await lockCredentials(trx);
    const existing = await getExchangeConnection(trx, id);
    if (!existing) return null;
    if (existing.isEnabled) await assertNoOpenExposure(trx);
    await deleteExchangeConnection(trx, id);
    await recordAudit(trx, {
      actor: by,
      action: "exchange.delete",
      target: id,
      before: {
        exchangeName: existing.exchangeName,
        accountName: existing.accountName,
        sandbox: existing.sandbox,
        isEnabled: existing.isEnabled,
      },
    });
    await logChange(trx, "warning", `Exchange "${existing.accountName}" deleted by ${by}`, {
      exchangeId: id,
      exchangeName: existing.exchangeName,
      accountName: existing.accountName,
    });
    return existing;
  });
}

/** Runs a test and never throws: a failure becomes { success: false, message }. */
async function runTest(
  tester: ConnectionTester,
  credentials: () => CoinbaseCredentials,
): Promise<{ success: boolean; message: string }> {
  try {
    const outcome = await tester(credentials());
    return {
      success: outcome.success === true,
      message:
        scrub(String(outcome.message ?? ""), credentials) ||
        (outcome.success ? "Connection successful" : "Connection failed"),
    };
  } catch (error) {
    if (error instanceof DecryptError) return { success: false, message: error.message };
    return {
      success: false,
      message: scrub(`Connection test failed: ${(error as Error).message ?? "unknown error"}`, credentials),
    };
  }
}

/** A message never repeats a secret, whatever the layer below put in it. */
function scrub(message: string, credentials: () => CoinbaseCredentials): string {
  let creds: CoinbaseCredentials;
  try {
    creds = credentials();
  } catch {
    return message;
  }
  let out = message;
  for (const secret of [creds.apiSecret, creds.passphrase]) {
    if (secret && secret.length >= 4) out = out.split(secret).join(REDACTED);
  }
  return out;
}

export interface TestOutcome {
  success: boolean;
  message: string;
  exchange: ExchangeView;
}

/** POST /api/exchanges/{id}/test: the exchange's answer becomes the connection's status. */
export async function testExchange(
  db: Kysely<DB>,
  config: CredentialsConfig,
  id: string,
  by: string,
  tester: ConnectionTester,
): Promise<TestOutcome | null> {
  const connection = await getExchangeConnection(db, id);
  if (!connection) return null;
  const outcome = await runTest(tester, () => connectionCredentials(connection, config));
  const recorded = await db.transaction().execute(async (trx) => {
    const after = await recordConnectionTest(trx, id, {
      status: outcome.success ? "connected" : "error",
      message: outcome.message,
    });
    if (!after) return null;
    await recordActivity(trx, {
      type: "system",
      level: outcome.success ? "success" : "warning",
      message: `Connection test of "${connection.accountName}" ${outcome.success ? "succeeded" : "failed"} (by ${by}): ${outcome.message}`,
      data: {
        exchangeId: id,
        accountName: connection.accountName,
        sandbox: connection.sandbox,
        success: outcome.success,
      },
    });
    return after;
  });
  if (!recorded) return null;
  return { ...outcome, exchange: (await getExchangeView(db, id))! };
}

export async function getCredentialsSummary(db: Kysely<DB>, config: CredentialsConfig): Promise<CredentialsSummary> {
  const primary = await getPrimaryConnection(db);
  if (primary) {
    return {
      apiKey: maskApiKey(primary.apiKey),
      hasSecret: primary.apiSecretEnc !== "",
      sandbox: primary.sandbox,
      source: "settings",
      connectionId: primary.id,
      connectionStatus: primary.connectionStatus,
      statusMessage: primary.statusMessage,
      lastTestedAt: primary.lastTestedAt,
    };
  }
  const env = envCredentials(config);
  return {
    apiKey: env ? maskApiKey(env.apiKey) : "",
    hasSecret: env !== null,
    sandbox: env ? env.sandbox : true,
    source: env ? "env" : "none",
    connectionId: null,
    connectionStatus: "disconnected",
    statusMessage: null,
    lastTestedAt: null,
  };
}

export type SaveOutcome =
  | { success: true; message: string }
  | { success: false; title: string; error: string; status: number };

/** The name of the connection API Settings creates when none exists. */
export const DEFAULT_ACCOUNT_NAME = "Default";

/**
 * POST /api/credentials/save: API Settings edits the trading credentials, i.e. the first
 * enabled connection (created as 'Default' when there is none). The rules of docs/spec/api.md#validation first
 * (missing, untouched, masked), then 'No changes to save' when key, secret and sandbox equal
 * what is stored. One transaction.
 */
export async function saveCredentials(
  db: Kysely<DB>,
  config: CredentialsConfig,
  input: SaveCredentials,
  by: string,
): Promise<SaveOutcome> {
  const issue = credentialsIssue(input);
  if (issue) return { success: false, title: issue.title, error: issue.message, status: 400 };
  try {
    return await db.transaction().execute(async (trx): Promise<SaveOutcome> => {
      await lockCredentials(trx);
      const primary = await getPrimaryConnection(trx, { forUpdate: true });
      // New keys or mode move where orders go: refused while anything is open (issue 11).
      const exposure = await openExposure(trx);
      // The first saved connection turns the simulator's contract sizes on unless chosen (decision 025).
      const switched = !primary && (await contractSizesSwitchPending(trx));
      if (primary) {
        let storedSecret: string | null = null;
        try {
          storedSecret = decryptSecret(primary.apiSecretEnc, config.appSecret);
        } catch {
          storedSecret = null; // unreadable (APP_SECRET changed): any save replaces it
        }
        if (primary.apiKey === input.apiKey && storedSecret === input.apiSecret && primary.sandbox === input.sandbox) {
          return { success: false, title: "Save Failed", error: MESSAGES.nothingToSave, status: 400 };
        }
        if (exposure) return { success: false, title: "Save Failed", error: exposure, status: 409 };
        await updateExchangeConnection(trx, primary.id, {
          apiKey: input.apiKey,
          apiSecretEnc: encryptSecret(input.apiSecret, config.appSecret),
          sandbox: input.sandbox,
        });
        await recordAudit(trx, {
          actor: by,
          action: "credentials.update",
          target: primary.id,
          before: { apiKey: primary.apiKey, apiSecret: storedSecret, sandbox: primary.sandbox },
          after: { apiKey: input.apiKey, apiSecret: input.apiSecret, sandbox: input.sandbox },
        });
        await logChange(
          trx,
          input.sandbox ? "success" : "warning",
          `API credentials of "${primary.accountName}" updated (${envLabel(input.sandbox)}) by ${by}`,
          {
            exchangeId: primary.id,
            accountName: primary.accountName,
            sandbox: input.sandbox,
          },
        );
      } else {
        if (exposure) return { success: false, title: "Save Failed", error: exposure, status: 409 };
        const created = await insertExchangeConnection(trx, {
          exchangeName: "COINBASE",
          accountName: DEFAULT_ACCOUNT_NAME,
          apiKey: input.apiKey,
          apiSecretEnc: encryptSecret(input.apiSecret, config.appSecret),
          passphraseEnc: null,
          sandbox: input.sandbox,
          isEnabled: true,
        });
        await recordAudit(trx, {
          actor: by,
          action: "credentials.create",
          target: created.id,
          after: { apiKey: input.apiKey, apiSecret: input.apiSecret, sandbox: input.sandbox },
        });
        await logChange(
          trx,
          input.sandbox ? "success" : "warning",
          `API credentials saved (${envLabel(input.sandbox)}) by ${by}`,
          {
            exchangeId: created.id,
            accountName: created.accountName,
            sandbox: input.sandbox,
          },
        );
      }
      const saved = input.sandbox
        ? "API credentials saved. Trading uses them in sandbox mode (paper orders)."
        : "API credentials saved. Sandbox is off: orders are sent to Coinbase for real.";
      return { success: true, message: switched ? `${saved} ${contractSizesSwitchedNotice()}` : saved };
    });
  } catch (error) {
    console.error(`saving API credentials failed: ${(error as Error).message}`);
    return {
      success: false,
      title: "Save Error",
      error: "The credentials could not be saved: please try again",
      status: 500,
    };
  }
}

/** POST /api/credentials/save-settings: the sandbox switch of the trading connection. One transaction. */
export async function saveCredentialSettings(
  db: Kysely<DB>,
  config: CredentialsConfig,
  sandbox: boolean,
  by: string,
): Promise<SaveOutcome> {
  try {
    return await db.transaction().execute(async (trx): Promise<SaveOutcome> => {
      await lockCredentials(trx);
      const primary = await getPrimaryConnection(trx, { forUpdate: true });
      if (!primary) {
        const env = envCredentials(config);
        if (env && env.sandbox === sandbox)
          return { success: false, title: "Save Failed", error: MESSAGES.noSettingsChange, status: 400 };
        return {
          success: false,
          title: "Save Failed",
          error: env
            ? "These credentials come from the environment: change COINBASE_SANDBOX and restart, or save an API key and secret here"
            : "No API credentials are saved yet: enter your API key and secret first",
          status: 400,
        };
      }
      if (primary.sandbox === sandbox)
        return { success: false, title: "Save Failed", error: MESSAGES.noSettingsChange, status: 400 };
      await updateExchangeConnection(trx, primary.id, { sandbox });
      await recordAudit(trx, {
        actor: by,
        action: "credentials.sandbox",
        target: primary.id,
        before: { sandbox: primary.sandbox },
        after: { sandbox },
      });
      await logChange(
        trx,
        sandbox ? "info" : "warning",
        `Sandbox mode of "${primary.accountName}" turned ${sandbox ? "on" : "off (live trading)"} by ${by}`,
        {
          exchangeId: primary.id,
          accountName: primary.accountName,
          sandbox,
        },
      );
      return {
        success: true,
        message: sandbox
          ? "Sandbox mode is on: orders are paper orders."
          : "Sandbox mode is off: orders are sent to Coinbase for real.",
      };
    });
  } catch (error) {
    console.error(`saving the sandbox setting failed: ${(error as Error).message}`);
    return {
      success: false,
      title: "Save Error",
      error: "The settings could not be saved: please try again",
      status: 500,
    };
  }
}

export const NO_CREDENTIALS_MESSAGE =
  "No Coinbase credentials configured: save an API key and secret in API Settings, or set COINBASE_API_KEY and COINBASE_API_SECRET";

/** GET /api/test/coinbase: tests the trading credentials; a stored connection keeps the outcome. */
export async function testTradingCredentials(
  db: Kysely<DB>,
  config: CredentialsConfig,
  by: string,
  tester: ConnectionTester,
): Promise<{ success: boolean; message: string; source: "settings" | "env" | "none" }> {
  const primary = await getPrimaryConnection(db);
  if (primary) {
    const outcome = await testExchange(db, config, primary.id, by, tester);
    if (outcome) return { success: outcome.success, message: outcome.message, source: "settings" };
  }
  const env = envCredentials(config);
  if (!env) return { success: false, message: NO_CREDENTIALS_MESSAGE, source: "none" };
  const outcome = await runTest(tester, () => env);
  await db.transaction().execute((trx) =>
    recordActivity(trx, {
      type: "system",
      level: outcome.success ? "success" : "warning",
      message: `Connection test of the environment's credentials ${outcome.success ? "succeeded" : "failed"} (by ${by}): ${outcome.message}`,
      data: { source: "env", sandbox: env.sandbox, success: outcome.success },
    }),
  );
  return { ...outcome, source: "env" };
}

/** The active exchange's balances (GET /api/balance, Manual Trading); throws when the exchange cannot be read. */
export async function activeBalances(
  db: Kysely<DB>,
): Promise<{ exchange: string; label: string; balances: Balance[] }> {
  const exchange = getExchange(db);
  return { exchange: exchange.name, label: exchange.label, balances: await exchange.getBalances() };
}

/**
 * The simulator's "Use Coinbase contract sizes" as the Exchanges and API Settings screens show it
 * (decision 025): whether it is on, whether anyone chose it, and whether saving the first enabled
 * Coinbase connection now would turn it on (the forms say so before saving, issue 22).
 */
export async function contractSizesState(
  db: Kysely<DB>,
): Promise<{ on: boolean; chosen: boolean; switchPending: boolean }> {
  const [on, choice, switchPending] = await Promise.all([
    simulatorUsesCoinbaseContracts(db, 0),
    getCoinbaseContractSizesChoice(db, 0),
    contractSizesSwitchPending(db),
  ]);
  return { on, chosen: choice !== null, switchPending };
}

/**
 * Exchanges screen, Simulator card: "Use Coinbase contract sizes" (decision 025). The setting,
 * its audit entry and its activity line are one transaction.
 */
export async function switchCoinbaseContractSizes(db: Kysely<DB>, value: boolean, by: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // The stored choice before (null: never chosen), so switching to what it already is writes no audit row.
    const before = await getCoinbaseContractSizesChoice(trx, 0);
    await setCoinbaseContractSizes(trx, value);
    await recordAudit(trx, {
      actor: by,
      action: "simulator.contract_sizes",
      target: "simulator_coinbase_contract_sizes",
      before: { value: before },
      after: { value },
    });
    await recordActivity(trx, {
      type: "system",
      level: "info",
      message: `Simulator: "Use Coinbase contract sizes" switched ${value ? "on" : "off"} by ${by}`,
      data: { setting: "simulator_coinbase_contract_sizes", value },
    });
  });
}
