// The product as the ACTIVE exchange trades it, for everything that sizes an order the
// exchange will take: the rules (take-profit shares, closes), the close-position task and
// signal sizing (docs/decisions/025-contracts-and-rounding.md).
//
// - Coinbase (live): its CDE futures trade in whole contracts. getProduct already gives
//   baseIncrement = contract_size (base_increment "1" contract) and baseMinSize = one
//   contract, in the base asset; kept per symbol for `cacheMs`. When Coinbase cannot be read,
//   the last known figures are used, else the static COINBASE_CONTRACT_SIZES (contract-sizes.ts; never
//   the simulator's fine increments: an order under one contract is refused by the adapter).
// - Simulator: its own static spec (app/core/products.ts), or, with the setting "Use Coinbase
//   contract sizes" (on by default once Coinbase credentials are saved), the static Coinbase
//   contract sizes, so paper trading rounds exactly as live will.
//
// contractSize is what one "contract" of the `contracts` signal amount type means: Coinbase's
// contract size, or null on the simulator without the setting (one contract = one base unit).
import type { Kysely } from "kysely";
import { getSettingCached, setSetting, settingsGeneration } from "#db/queries/settings.ts";
import type { DB } from "#db/schema.ts";
import { D } from "#app/core/decimal.ts";
import { resolveSymbol } from "#app/core/products.ts";
import type { ExchangeAdapter } from "#app/core/exchange/types.ts";
import { type TradingProduct, staticCoinbaseProduct, withContracts } from "#app/core/exchange/contract-sizes.ts";

type Db = Kysely<DB>;

export interface TradingProductResolver {
  /** The product of `symbol` as the active exchange trades it; null for an unknown symbol. */
  product(symbol: string): Promise<TradingProduct | null>;
  /** Forgets what is cached (all symbols, or one): the next call reads the exchange again. */
  forget(symbol?: string): void;
}

/** Settings key of the simulator's "Use Coinbase contract sizes" (true / false; absent: the default). */
export const COINBASE_CONTRACT_SIZES_SETTING = "simulator_coinbase_contract_sizes";

/** Whether Coinbase credentials are stored (an enabled exchange connection). */
async function hasSavedCredentials(db: Db): Promise<boolean> {
  const row = await db.selectFrom("exchanges").select("id").where("is_enabled", "=", 1).limit(1).executeTakeFirst();
  return Boolean(row);
}

/**
 * Saving the first enabled Coinbase connection now would turn "Use Coinbase contract sizes" on:
 * nobody chose the setting and no connection is saved yet (the forms say so before saving).
 */
export async function contractSizesSwitchPending(db: Db): Promise<boolean> {
  if ((await getCoinbaseContractSizesChoice(db, 0)) !== null) return false;
  return !(await hasSavedCredentials(db));
}

/** The stored choice, null when never set. */
export async function getCoinbaseContractSizesChoice(db: Db, ttlMs = 1000): Promise<boolean | null> {
  const value = await getSettingCached<unknown>(db, COINBASE_CONTRACT_SIZES_SETTING, ttlMs);
  return typeof value === "boolean" ? value : null;
}

export async function setCoinbaseContractSizes(db: Db, on: boolean): Promise<void> {
  await setSetting(db, COINBASE_CONTRACT_SIZES_SETTING, on);
}

/** "Use Coinbase contract sizes" on the simulator: the stored choice, else on when Coinbase credentials are saved. */
export async function simulatorUsesCoinbaseContracts(db: Db, ttlMs = 1000): Promise<boolean> {
  const choice = await getCoinbaseContractSizesChoice(db, ttlMs);
  if (choice !== null) return choice;
  return hasSavedCredentials(db).catch(() => false);
}

export interface TradingProductOptions {
  /** The active exchange (a SwitchingExchange follows the credentials). Default: the simulator. */
  exchange?: Pick<ExchangeAdapter, "name" | "getProduct"> | null;
  /** How long Coinbase's figures are kept (default 60 s). */
  cacheMs?: number;
  /** The simulator's setting (default: simulatorUsesCoinbaseContracts(db)). */
  coinbaseContractsOn?: () => Promise<boolean>;
  now?: () => number;
}

/** After a failed read of Coinbase's product, how long the fallback is used before asking again. */
const RETRY_MS = 10_000;

export function createTradingProductResolver(
  db: Db | null,
  options: TradingProductOptions = {},
): TradingProductResolver {
  const cacheMs = options.cacheMs ?? 60_000;
  const now = options.now ?? Date.now;
  const live = new Map<string, { product: TradingProduct; at: number }>();
  let setting: { value: boolean; at: number; generation: number } | null = null;

  // Read at most once a second (a change by another process is seen within ~2 s); a change
  // written by this process (settingsGeneration) is seen at once.
  const contractsInUse = async (): Promise<boolean> => {
    const generation = settingsGeneration();
    if (setting && setting.generation === generation && now() - setting.at < 1000) return setting.value;
    const value = options.coinbaseContractsOn
      ? await options.coinbaseContractsOn()
      : db
        ? await simulatorUsesCoinbaseContracts(db)
        : false;
    setting = { value, at: now(), generation };
    return value;
  };

  return {
    async product(symbol) {
      const spec = resolveSymbol(symbol);
      if (!spec) return null;
      const exchange = options.exchange;
      if (exchange && exchange.name === "coinbase") {
        const cached = live.get(spec.symbol);
        if (cached && now() - cached.at < cacheMs) return cached.product;
        try {
          const product = await exchange.getProduct(spec.symbol);
          const increment = D(product.baseIncrement);
          if (!increment.gt(0)) throw new Error(`no increment for ${spec.symbol}`);
          const traded = withContracts(spec, increment.toString(), "coinbase", product.baseMinSize);
          live.set(spec.symbol, { product: traded, at: now() });
          return traded;
        } catch {
          // Coinbase unreadable: the last figures it gave, else the known contract sizes; asked
          // again after RETRY_MS (not on every tick while it is down).
          const fallback = cached?.product ?? staticCoinbaseProduct(spec);
          live.set(spec.symbol, { product: fallback, at: now() - Math.max(0, cacheMs - RETRY_MS) });
          return fallback;
        }
      }
      return (await contractsInUse())
        ? staticCoinbaseProduct(spec)
        : { ...spec, contractSize: null, basis: "simulator" };
    },
    forget(symbol) {
      setting = null;
      if (symbol === undefined) live.clear();
      else {
        const spec = resolveSymbol(symbol);
        live.delete(spec?.symbol ?? symbol);
      }
    },
  };
}

const perExchange = new WeakMap<object, WeakMap<object, TradingProductResolver>>();

/** One resolver per (database, exchange) of this process, so its cache is shared by the tasks. */
export function tradingProductsFor(
  db: Db,
  exchange: Pick<ExchangeAdapter, "name" | "getProduct">,
): TradingProductResolver {
  let byExchange = perExchange.get(db);
  if (!byExchange) perExchange.set(db, (byExchange = new WeakMap()));
  let resolver = byExchange.get(exchange);
  if (!resolver) byExchange.set(exchange, (resolver = createTradingProductResolver(db, { exchange })));
  return resolver;
}
