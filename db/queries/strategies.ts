// Strategies (docs/decisions/027-strategies.md): rows ↔ the Strategy contract, and the
// filters "trades / positions / signals of a strategy" the screens and APIs share.
import { type ExpressionBuilder, sql } from "kysely";
import { normalizeDecimal } from "../../app/core/decimal.ts";
import {
  DEFAULT_STRATEGY_ID,
  type Strategy,
  type StrategyInput,
  StrategyRulesSchema,
} from "../../app/core/schemas/strategy.ts";
import { SIGNAL_AMOUNT_TYPES } from "../../app/core/schemas/trading-config.ts";
import type { DB, StrategiesTable } from "../schema.ts";
import type { Selectable } from "kysely";
import { settingsGeneration } from "./settings.ts";
import { type Db, isMysql, nowMs, parseJson, sha256Hex, toBool, toIso } from "./util.ts";

export type StrategyRow = Selectable<StrategiesTable>;

export interface StoredStrategy extends Strategy {
  secretEnc: string;
  secretHash: string;
}

export function strategyRowToStrategy(row: StrategyRow): StoredStrategy {
  const rules = StrategyRulesSchema.safeParse(parseJson<unknown>(row.rules, {}));
  const type = SIGNAL_AMOUNT_TYPES.find((t) => t === row.amount_type) ?? "multiplier";
  return {
    id: row.id,
    name: row.name,
    enabled: toBool(row.enabled),
    allowedSymbols: parseJson<string[]>(row.allowed_symbols, []),
    amountType: type,
    amountValue: normalizeDecimal(row.amount_value) ?? "1",
    maxPositionSize: normalizeDecimal(row.max_position_size),
    maxOpenPositions: row.max_open_positions == null ? null : Number(row.max_open_positions),
    leverage: Number(row.leverage ?? 1),
    rules: rules.success ? rules.data : {},
    createdAt: toIso(row.created_at)!,
    updatedAt: toIso(row.updated_at)!,
    secretRotatedAt: toIso(row.secret_rotated_at)!,
    secretEnc: row.secret_enc,
    secretHash: row.secret_hash,
  };
}

function inputValues(input: StrategyInput) {
  return {
    name: input.name,
    name_key: input.name.toLowerCase(),
    enabled: input.enabled ? 1 : 0,
    allowed_symbols: JSON.stringify(input.allowedSymbols),
    amount_type: input.amountType,
    amount_value: input.amountValue,
    max_position_size: input.maxPositionSize,
    max_open_positions: input.maxOpenPositions,
    leverage: input.leverage,
    rules: JSON.stringify(input.rules ?? {}),
  };
}

export async function listStrategies(db: Db): Promise<StoredStrategy[]> {
  const rows = await db.selectFrom("strategies").selectAll().orderBy("name_key").execute();
  return rows.map(strategyRowToStrategy);
}

export async function getStrategy(db: Db, id: string): Promise<StoredStrategy | null> {
  const row = await db.selectFrom("strategies").selectAll().where("id", "=", id).executeTakeFirst();
  return row ? strategyRowToStrategy(row) : null;
}

export async function getStrategyByNameKey(db: Db, name: string): Promise<StoredStrategy | null> {
  const row = await db
    .selectFrom("strategies")
    .selectAll()
    .where("name_key", "=", name.toLowerCase())
    .executeTakeFirst();
  return row ? strategyRowToStrategy(row) : null;
}

export async function insertStrategy(
  db: Db,
  id: string,
  input: StrategyInput,
  secret: { enc: string; hash: string },
): Promise<void> {
  const now = nowMs();
  await db
    .insertInto("strategies")
    .values({
      id,
      ...inputValues(input),
      secret_enc: secret.enc,
      secret_hash: secret.hash,
      secret_rotated_at: now,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

export async function updateStrategy(db: Db, id: string, input: StrategyInput): Promise<void> {
  await db
    .updateTable("strategies")
    .set({ ...inputValues(input), updated_at: nowMs() })
    .where("id", "=", id)
    .execute();
}

export async function setStrategySecret(db: Db, id: string, secret: { enc: string; hash: string }): Promise<void> {
  const now = nowMs();
  await db
    .updateTable("strategies")
    .set({ secret_enc: secret.enc, secret_hash: secret.hash, secret_rotated_at: now, updated_at: now })
    .where("id", "=", id)
    .execute();
}

export async function deleteStrategy(db: Db, id: string): Promise<void> {
  await db.deleteFrom("strategies").where("id", "=", id).execute();
}

export async function countOpenPositionsOfStrategy(db: Db, id: string): Promise<number> {
  const row = await db
    .selectFrom("positions")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("strategy_id", "=", id)
    .where("status", "=", "open")
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

// ---------------------------------------------------------------------------------------
// Filters by strategy (query parameter `strategy`: a strategy id, or "default" for the
// signals sent with the global secret). A trade belongs to a strategy when it carries its
// id, or when it changed a position of the strategy (take-profit, stop-loss and manual
// closes of the strategy's position count toward it).
// ---------------------------------------------------------------------------------------

export function tradeOfStrategy(eb: ExpressionBuilder<DB, "trades">, strategy: string) {
  if (strategy === DEFAULT_STRATEGY_ID) {
    // A default-strategy signal's trade that reduced a named strategy's position counts for that strategy.
    const defaultPositions = eb
      .selectFrom("positions as sp")
      .select("sp.id")
      .where("sp.strategy_id", "is", null)
      .where("sp.source", "=", "signal");
    const ownedPositions = eb.selectFrom("positions as op").select("op.id").where("op.strategy_id", "is not", null);
    return eb.and([
      eb("trades.strategy_id", "is", null),
      eb.or([eb("trades.position_id", "is", null), eb("trades.position_id", "not in", ownedPositions)]),
      eb.or([eb("trades.source", "=", "signal"), eb("trades.position_id", "in", defaultPositions)]),
    ]);
  }
  const positions = eb.selectFrom("positions as sp").select("sp.id").where("sp.strategy_id", "=", strategy);
  return eb.or([eb("trades.strategy_id", "=", strategy), eb("trades.position_id", "in", positions)]);
}

export function positionOfStrategy(eb: ExpressionBuilder<DB, "positions">, strategy: string) {
  if (strategy === DEFAULT_STRATEGY_ID)
    return eb.and([eb("positions.strategy_id", "is", null), eb("positions.source", "=", "signal")]);
  return eb("positions.strategy_id", "=", strategy);
}

export function signalOfStrategy(eb: ExpressionBuilder<DB, "signals">, strategy: string) {
  if (strategy === DEFAULT_STRATEGY_ID) return eb("signals.strategy_id", "is", null);
  return eb("signals.strategy_id", "=", strategy);
}

// ---------------------------------------------------------------------------------------
// The webhook's lookup: the strategy whose secret an alert presents, through a per-process
// cache of every strategy by secret hash (at most 1 s old; any strategy change in this
// process clears it at once through the settings cache's generation, shared by the web
// process's two module copies). The worker never uses it: it reads the strategy afresh.
// ---------------------------------------------------------------------------------------
const secretCaches = new WeakMap<object, { at: number; generation: number; byHash: Map<string, StoredStrategy> }>();

export async function strategyForSecretCached(db: Db, presented: string, ttlMs = 1000): Promise<StoredStrategy | null> {
  const hash = sha256Hex(presented);
  const now = Date.now();
  let hit = secretCaches.get(db);
  if (!hit || hit.generation !== settingsGeneration() || now - hit.at >= ttlMs) {
    const generation = settingsGeneration();
    const all = await listStrategies(db);
    hit = { at: now, generation, byHash: new Map(all.map((s) => [s.secretHash, s])) };
    if (generation === settingsGeneration()) secretCaches.set(db, hit);
  }
  return hit.byHash.get(hash) ?? null;
}

/** The same rule as positionOfStrategy, for a position already read (no filter: true). */
export function positionInStrategy(
  position: { strategyId: string | null; source: string },
  strategy: string | null | undefined,
): boolean {
  if (!strategy) return true;
  if (strategy === DEFAULT_STRATEGY_ID) return position.strategyId === null && position.source === "signal";
  return position.strategyId === strategy;
}

/**
 * Activity-log lines of a strategy: they name it (strategyId), or its signal or trade; its
 * heartbeat lines (strategyKey: expected, missed, back) and its positions' rule events
 * (positionId: take-profit, break-even, trailing, stop, Close), issue 25. Every such line
 * already carries the key it is found by, so rows written before are found too (no backfill).
 */
export function logOfStrategy(eb: ExpressionBuilder<DB, "activity_logs">, db: Db, strategy: string) {
  const field = (name: string) =>
    isMysql(db)
      ? sql<string>`json_value(${sql.ref("activity_logs.data")}, ${`$.${name}`})`
      : sql<string>`json_extract(${sql.ref("activity_logs.data")}, ${`$.${name}`})`;
  const signals = eb
    .selectFrom("signals")
    .select("signals.id")
    .where((s) => signalOfStrategy(s as unknown as ExpressionBuilder<DB, "signals">, strategy));
  const trades = eb
    .selectFrom("trades")
    .select("trades.id")
    .where((t) => tradeOfStrategy(t as unknown as ExpressionBuilder<DB, "trades">, strategy));
  const positions = eb
    .selectFrom("positions")
    .select("positions.id")
    .where((p) => positionOfStrategy(p as unknown as ExpressionBuilder<DB, "positions">, strategy));
  const named = strategy === DEFAULT_STRATEGY_ID ? null : eb(field("strategyId"), "=", strategy);
  return eb.or([
    ...(named ? [named] : []),
    eb(field("strategyKey"), "=", strategy),
    eb(field("signalId"), "in", signals),
    eb(field("tradeId"), "in", trades),
    eb(field("positionId"), "in", positions),
  ]);
}

/**
 * The strategy owning each executed trade's lots (decision 027): the trade's own strategy,
 * else the strategy of the position it opened or changed, else "default" for a signal's
 * trade (the global secret); null for manual and reconciliation trades (no strategy owns
 * them). A realized match counts for the owner of its opening trade (entryTradeId).
 */
export async function listLotOwners(db: Db): Promise<Map<string, string | null>> {
  const rows = await db
    .selectFrom("trades")
    .leftJoin("positions", "positions.id", "trades.position_id")
    .select([
      "trades.id as id",
      "trades.strategy_id as tradeStrategy",
      "trades.source as source",
      "positions.strategy_id as positionStrategy",
      "positions.source as positionSource",
    ])
    .where("trades.status", "in", ["executed", "completed"])
    .execute();
  return new Map(
    rows.map((o) => [
      o.id,
      o.tradeStrategy ??
        o.positionStrategy ??
        (o.source === "signal" || o.positionSource === "signal" ? DEFAULT_STRATEGY_ID : null),
    ]),
  );
}
