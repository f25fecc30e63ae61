// Which exchange the app trades on, decided from the credentials (core/exchange/credentials.ts)
// and re-decided while processes run (docs/decisions/009-coinbase-connector.md):
//   - no credentials                 -> the simulator (paper trading);
//   - credentials with sandbox ON    -> the simulator (paper trading at Coinbase's public
//                                       prices): Coinbase's Advanced Trade sandbox only returns
//                                       canned answers and never fills (docs/spec/exchange.md);
//   - credentials with sandbox OFF   -> CoinbaseAdapter: real orders on Coinbase.
// getExchange(db) returns one delegating adapter per database (reading saved credentials with
// the APP_SECRET of the app serving it: bindExchangeConfig) that checks, at most every
// CHECK_MS, whether the credentials (or the symbol map) changed, and switches without a
// restart. Profiles and reports use the Coinbase Exchange API only when the credentials carry
// a passphrase (getProfilesProvider / getRemoteReportsProvider, else null: the simulator's).
import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { ProfilesProvider, RemoteReportsProvider } from "#app/core/exchange/accounts.ts";
import { CoinbaseAdapter } from "#exchange/coinbase/adapter.ts";
import { AdvancedTradeClient } from "#exchange/coinbase/advanced-trade.ts";
import { type CoinbaseKeys, coinbaseHosts, getProductMap } from "#exchange/coinbase/config.ts";
import { CoinbaseExchangeClient } from "#exchange/coinbase/exchange-client.ts";
import type { CallResult } from "#exchange/coinbase/http.ts";
import { AuthError, InvalidOrderError } from "#app/core/exchange/errors.ts";
import { SIMULATOR_LABEL, SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import type {
  ConnectionTest,
  ExchangeAdapter,
  FindOrderOptions,
  PlaceOrderRequest,
  StopOrderRequest,
} from "#app/core/exchange/types.ts";
import { getSetting, setSetting } from "#db/queries/settings.ts";
import type { DB } from "#db/schema.ts";
import {
  type CoinbaseCredentials,
  type CredentialsConfig,
  credentialsVersion,
  getTradingCredentials,
} from "./credentials.ts";

type Db = Kysely<DB>;

export type ExchangeMode = "simulator" | "coinbase-sandbox" | "coinbase-live" | "unavailable";

export const MODE_LABELS: Record<ExchangeMode, string> = {
  simulator: SIMULATOR_LABEL,
  "coinbase-sandbox": "Coinbase sandbox: paper trading on the simulator at Coinbase prices",
  "coinbase-live": "Coinbase (live trading)",
  unavailable: "Coinbase credentials unusable",
};

/** How often a process looks for changed credentials (a one-row read). */
export const CHECK_MS = 1_500;

export function modeFor(credentials: Pick<CoinbaseCredentials, "sandbox"> | null): ExchangeMode {
  if (!credentials) return "simulator";
  return credentials.sandbox ? "coinbase-sandbox" : "coinbase-live";
}

// ---------------------------------------------------------------------------------------
// Last call to Coinbase (for /api/health): kept per process, stored in settings when it
// changes from working to failing (or back) and at most every few seconds otherwise, so
// the web process can report what the worker saw.

export const LAST_CALL_SETTING = "coinbase_last_call";
const PERSIST_EVERY_MS = 5_000;

export interface LastCall extends CallResult {
  service: string;
}

const lastPersist = new WeakMap<Db, { at: number; ok: boolean }>();

export function callRecorder(db: Db, service: string) {
  return (result: CallResult) => {
    const previous = lastPersist.get(db);
    if (previous && previous.ok === result.ok && result.at - previous.at < PERSIST_EVERY_MS) return;
    lastPersist.set(db, { at: result.at, ok: result.ok });
    const value: LastCall = { ...result, service };
    setSetting(db, LAST_CALL_SETTING, value).catch(() => undefined); // status only: never fails the call
  };
}

export async function getLastCoinbaseCall(db: Db): Promise<LastCall | null> {
  return getSetting<LastCall>(db, LAST_CALL_SETTING);
}

// ---------------------------------------------------------------------------------------
// Building the pieces

export interface ExchangeFactoryOptions {
  /** Tests: where credentials come from (default getTradingCredentials). */
  resolveCredentials?: (db: Db) => Promise<CoinbaseCredentials | null>;
  /** Tests: what signals a change (default credentialsVersion). */
  version?: (db: Db) => Promise<string>;
  /** Tests: client tuning (timeouts, retries) for the live adapter. */
  clientOptions?: Partial<ConstructorParameters<typeof AdvancedTradeClient>[0]>;
  adapterOptions?: { fillWaitMs?: number; fillPollMs?: number };
  simulator?: SimulatorAdapter;
  checkMs?: number;
  env?: Record<string, string | undefined>;
  /** The configuration stored secrets were encrypted under (default: this process's). */
  config?: CredentialsConfig;
  /** Re-check in the background (default true: the worker); web requests re-check on each call. */
  watch?: boolean;
}

function liveClient(db: Db | null, keys: CoinbaseKeys, options: ExchangeFactoryOptions = {}) {
  const hosts = coinbaseHosts(options.env);
  return new AdvancedTradeClient({
    keys,
    baseUrl: keys.sandbox ? hosts.advancedTradeSandbox : hosts.advancedTrade,
    publicBaseUrl: hosts.advancedTrade,
    onResult: db ? callRecorder(db, "Coinbase Advanced Trade") : undefined,
    ...options.clientOptions,
  });
}

/** An adapter that refuses everything with one clear reason (credentials unreadable). */
/** Why an order for a position held on `name` cannot be sent while `activeLabel` is the exchange in use. */
export function notConnectedReason(name: string, activeLabel: string): string {
  return `This position is on ${name}, which is not connected for trading now (${activeLabel} is): enable its credentials with sandbox off to close or protect it there, or resolve it from the drift alarm`;
}

class UnavailableAdapter implements ExchangeAdapter {
  readonly name = "coinbase";
  readonly label = MODE_LABELS.unavailable;
  constructor(private readonly reason: string) {}
  private fail(): never {
    throw new AuthError(this.reason);
  }
  placeOrder = async (_r: PlaceOrderRequest) => this.fail();
  findOrderByClientId = async (_id: string) => this.fail();
  getOrder = async (_id: string) => this.fail();
  cancelOrder = async (_id: string) => this.fail();
  getBalances = async () => this.fail();
  getPositions = async () => this.fail();
  getProducts = async () => this.fail();
  getProduct = async (_s: string) => this.fail();
  getTicker = async (_s: string) => this.fail();
  testConnection = async (): Promise<ConnectionTest> => ({ success: false, message: this.reason });
}

const credentialsOf = (db: Db, options: ExchangeFactoryOptions) =>
  options.resolveCredentials ? options.resolveCredentials(db) : getTradingCredentials(db, options.config);

interface Resolved {
  mode: ExchangeMode;
  adapter: ExchangeAdapter;
  key: string;
}

/**
 * The exchange adapter that follows the credentials: every call goes to the adapter the
 * current credentials choose, re-checked at most every `checkMs`.
 */
export class SwitchingExchange implements ExchangeAdapter {
  private resolved: Resolved | null = null;
  private pending: Promise<Resolved> | null = null;
  private checkedAt = 0;
  readonly simulator: SimulatorAdapter;

  constructor(
    private readonly db: Db,
    private readonly options: ExchangeFactoryOptions = {},
  ) {
    this.simulator = options.simulator ?? new SimulatorAdapter(db);
    // The worker's is kept fresh in the background too, so `name` / `label` (read without a
    // call, e.g. when a trade row is written) follow a credentials change within CHECK_MS.
    const every = options.checkMs ?? CHECK_MS;
    if (every > 0 && options.watch !== false) {
      this.timer = setInterval(() => void this.resolve().catch(() => undefined), every);
      (this.timer as { unref?: () => void }).unref?.();
    }
  }
  private timer: ReturnType<typeof setInterval> | undefined;

  /** Stops the background refresh (tests, shutdown). */
  stop() {
    clearInterval(this.timer);
  }

  get name(): string {
    return this.resolved?.adapter.name ?? this.simulator.name;
  }
  get label(): string {
    return this.resolved
      ? this.resolved.mode === "coinbase-sandbox"
        ? MODE_LABELS["coinbase-sandbox"]
        : this.resolved.adapter.label
      : this.simulator.label;
  }
  get mode(): ExchangeMode {
    return this.resolved?.mode ?? "simulator";
  }
  /** The simulator's fee rate while it trades (positions.server.ts estimates exit fees with it). */
  get feeRate(): string | undefined {
    return (
      (this.resolved?.adapter as { feeRate?: string } | undefined)?.feeRate ??
      (this.resolved ? undefined : this.simulator.feeRate)
    );
  }

  /** The adapter to use now (re-resolved when the credentials changed). */
  async current(): Promise<ExchangeAdapter> {
    return (await this.resolve()).adapter;
  }

  /**
   * The adapter of the exchange called `name`, whichever is active: positions stay on the
   * exchange that holds them (docs/decisions/039-positions-stay-on-their-exchange.md). The
   * simulator is always there; Coinbase is there while its credentials trade live. Otherwise
   * an adapter whose every call says why that exchange cannot be reached.
   */
  async forExchange(name: string): Promise<ExchangeAdapter> {
    if (name === this.simulator.name) return this.simulator;
    const active = await this.current();
    if (active.name === name) return active;
    return new UnavailableAdapter(notConnectedReason(name, this.label));
  }

  async resolve(): Promise<Resolved> {
    const now = Date.now();
    if (this.resolved && now - this.checkedAt < (this.options.checkMs ?? CHECK_MS)) return this.resolved;
    this.pending ??= this.refresh().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private async refresh(): Promise<Resolved> {
    const version = await (this.options.version ?? credentialsVersion)(this.db).catch(() => "unknown");
    const map = await getProductMap(this.db);
    const key = `${version}|${JSON.stringify(map)}`;
    this.checkedAt = Date.now();
    if (this.resolved && this.resolved.key === key && version !== "unknown") return this.resolved;
    let next: Resolved;
    try {
      const credentials = await credentialsOf(this.db, this.options);
      const mode = modeFor(credentials);
      next =
        mode === "coinbase-live"
          ? {
              mode,
              key,
              adapter: new CoinbaseAdapter({
                client: liveClient(this.db, credentials!, this.options),
                productMap: map,
                environment: "production",
                ...this.options.adapterOptions,
              }),
            }
          : { mode, key, adapter: this.simulator };
    } catch (error) {
      const reason = `Stored Coinbase credentials cannot be used (${(error as Error).message}): re-enter them in API Settings`;
      next = { mode: "unavailable", key, adapter: new UnavailableAdapter(reason) };
    }
    this.resolved = next;
    return next;
  }

  placeOrder(request: PlaceOrderRequest) {
    return this.current().then((a) => a.placeOrder(request));
  }
  findOrderByClientId(clientOrderId: string, options?: FindOrderOptions) {
    return this.current().then((a) => a.findOrderByClientId(clientOrderId, options));
  }
  getOrder(orderId: string) {
    return this.current().then((a) => a.getOrder(orderId));
  }
  cancelOrder(orderId: string) {
    return this.current().then((a) => a.cancelOrder(orderId));
  }
  getBalances() {
    return this.current().then((a) => a.getBalances());
  }
  getPositions() {
    return this.current().then((a) => a.getPositions());
  }
  getProducts() {
    return this.current().then((a) => a.getProducts());
  }
  getProduct(symbol: string) {
    return this.current().then((a) => a.getProduct(symbol));
  }
  getTicker(symbol: string) {
    return this.current().then((a) => a.getTicker(symbol));
  }
  /** The active exchange's resting stop orders (issue 15); refused where it keeps none. */
  async placeStopOrder(request: StopOrderRequest) {
    const adapter = await this.current();
    if (!adapter.placeStopOrder) throw new InvalidOrderError(`${adapter.label} keeps no resting stop orders`);
    return adapter.placeStopOrder(request);
  }
  /** Moves a resting stop in place where the active exchange can; refused (cancel and place instead) where not. */
  async editStopOrder(request: Omit<StopOrderRequest, "clientOrderId"> & { orderId: string }) {
    const adapter = await this.current();
    if (!adapter.editStopOrder) throw new InvalidOrderError(`${adapter.label} cannot edit resting stop orders`);
    return adapter.editStopOrder(request);
  }
  async testConnection(): Promise<ConnectionTest> {
    const resolved = await this.resolve();
    if (resolved.mode === "coinbase-sandbox") {
      const credentials = await credentialsOf(this.db, this.options).catch(() => null);
      if (credentials)
        return testCoinbaseConnection(credentials, {
          db: this.db,
          env: this.options.env,
          clientOptions: this.options.clientOptions,
        });
    }
    return resolved.adapter.testConnection();
  }
}

// The configuration of the app serving each database (bound by createApp, server.ts): kept on
// globalThis because the Remix build bundles its own copy of this module beside the one
// server.ts imports. The exchanges themselves stay per copy (each copy's error classes).
const appConfigs = ((globalThis as Record<symbol, unknown>)[Symbol.for("perpdesk.exchangeConfigs")] ??=
  new WeakMap()) as WeakMap<Db, CredentialsConfig>;
const perDb = new WeakMap<Db, Map<string, SwitchingExchange>>();

/**
 * Binds the app's configuration to its database: getExchange(db) then reads saved credentials
 * with the APP_SECRET of the app serving `db`, not with whatever the process's environment says
 * (the same in production: one app, one secret per process; tests run apps with their own).
 */
export function bindExchangeConfig(db: Db, config: CredentialsConfig): void {
  const { appSecret, COINBASE_API_KEY, COINBASE_API_SECRET, COINBASE_SANDBOX } = config;
  appConfigs.set(db, { appSecret, COINBASE_API_KEY, COINBASE_API_SECRET, COINBASE_SANDBOX });
}

/** One cache key per configuration (a digest: secrets are not kept as keys). */
const configKey = (config: CredentialsConfig | undefined) =>
  config === undefined
    ? "process"
    : createHash("sha256")
        .update(
          JSON.stringify([
            config.appSecret,
            config.COINBASE_API_KEY,
            config.COINBASE_API_SECRET,
            config.COINBASE_SANDBOX,
          ]),
        )
        .digest("hex");

/**
 * The exchange of this process for `db` (one per database and configuration, so its cache and
 * checks are shared). `config` defaults to the one bound to `db` by the app serving it
 * (bindExchangeConfig), else the process's.
 */
export function getExchange(db: Db, config: CredentialsConfig | undefined = appConfigs.get(db)): SwitchingExchange {
  let byConfig = perDb.get(db);
  if (!byConfig) {
    byConfig = new Map();
    perDb.set(db, byConfig);
  }
  const key = configKey(config);
  let exchange = byConfig.get(key);
  if (!exchange) {
    exchange = new SwitchingExchange(db, { config, watch: false });
    byConfig.set(key, exchange);
    exchange.resolve().catch(() => undefined); // decide early, so the first name/label is right
  }
  return exchange;
}

/** For the worker: its own instance around the simulator it already set up. */
export function createExchange(db: Db, options: ExchangeFactoryOptions = {}): SwitchingExchange {
  return new SwitchingExchange(db, options);
}

// ---------------------------------------------------------------------------------------
// Test Connection (API Settings, Exchanges): a read-only call, never an order.

export interface TestConnectionOptions {
  db?: Db;
  env?: Record<string, string | undefined>;
  clientOptions?: Partial<ConstructorParameters<typeof AdvancedTradeClient>[0]>;
}

/**
 * Checks credentials with one read-only call and says which environment answered:
 * - with a passphrase (a Coinbase Exchange API key): GET /profiles on the Exchange API,
 *   sandbox or production as the credentials say;
 * - else (a CDP key): GET /accounts on Advanced Trade. Its sandbox needs no key and answers
 *   anything, so the key is verified on production even in sandbox mode (read-only), and the
 *   message says that orders stay on paper.
 */
export async function testCoinbaseConnection(
  credentials: Pick<CoinbaseCredentials, "apiKey" | "apiSecret" | "passphrase" | "sandbox">,
  options: TestConnectionOptions = {},
): Promise<ConnectionTest> {
  const env = credentials.sandbox ? "sandbox" : "production";
  try {
    if (credentials.passphrase) {
      const client = exchangeApiClient(
        options.db ?? null,
        { ...credentials, passphrase: credentials.passphrase },
        {
          env: options.env,
          clientOptions: { maxAttempts: 1, ...options.clientOptions },
        },
      );
      return await client.testConnection();
    }
    const client = liveClient(
      options.db ?? null,
      { ...credentials, sandbox: false },
      { clientOptions: { maxAttempts: 1, ...options.clientOptions }, env: options.env },
    );
    const result = await new CoinbaseAdapter({ client, environment: "production" }).testConnection();
    if (!result.success || env === "production") return result;
    return {
      success: true,
      message: `${result.message}. Sandbox mode is on: orders are paper-traded by the simulator at Coinbase prices (Coinbase's sandbox never fills)`,
    };
  } catch (error) {
    return { success: false, message: `Coinbase connection test failed: ${(error as Error).message}` };
  }
}

// ---------------------------------------------------------------------------------------
// Profiles and reports (Coinbase Exchange API, only with a passphrase)

/** A Coinbase Exchange API client for passphrase-bearing credentials, on the host their sandbox flag names. */
function exchangeApiClient(
  db: Db | null,
  credentials: Pick<CoinbaseCredentials, "apiKey" | "apiSecret" | "sandbox"> & { passphrase: string },
  options: Pick<ExchangeFactoryOptions, "env" | "clientOptions">,
): CoinbaseExchangeClient {
  const hosts = coinbaseHosts(options.env);
  return new CoinbaseExchangeClient({
    apiKey: credentials.apiKey,
    apiSecret: credentials.apiSecret,
    passphrase: credentials.passphrase,
    sandbox: credentials.sandbox,
    baseUrl: credentials.sandbox ? hosts.exchangeSandbox : hosts.exchange,
    onResult: db ? callRecorder(db, "Coinbase Exchange") : undefined,
    ...(options.clientOptions as object),
  });
}

async function exchangeClient(db: Db, options: ExchangeFactoryOptions = {}): Promise<CoinbaseExchangeClient | null> {
  const credentials = await credentialsOf(db, options);
  if (!credentials?.passphrase) return null;
  return exchangeApiClient(db, { ...credentials, passphrase: credentials.passphrase }, options);
}

/** Coinbase Exchange profiles when a passphrase-bearing key is configured, else null (use the simulator's). */
export async function getProfilesProvider(
  db: Db,
  options: ExchangeFactoryOptions = {},
): Promise<ProfilesProvider | null> {
  return exchangeClient(db, options);
}

/** Coinbase Exchange reports when a passphrase-bearing key is configured, else null (build them locally). */
export async function getRemoteReportsProvider(
  db: Db,
  options: ExchangeFactoryOptions = {},
): Promise<RemoteReportsProvider | null> {
  return exchangeClient(db, options);
}
