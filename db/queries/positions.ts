// Our net positions (docs/spec/api.md#shapes Position): at most one open position per symbol.
import { sql } from "kysely";
import { D, normalizeDecimal } from "../../app/core/decimal.ts";
import type { AdvancedControls } from "../../app/core/orders/controls.ts";
import type { RuleSnapshot } from "../../app/core/rules/engine.ts";
import type { PositionRow } from "../schema.ts";
import { type Db, isMysql, nowMs, parseJson, toBool, toIso } from "./util.ts";

export type { AdvancedControls };

export interface Position {
  id: string;
  symbol: string;
  side: "long" | "short";
  quantity: string;
  remainingQuantity: string;
  entryPrice: string;
  currentPrice: string | null;
  entryTradeId: string | null;
  maxDrawdown: string;
  portfolioPercent: string;
  status: "open" | "closed";
  breakEvenTriggered: boolean;
  trailingStopActive: boolean;
  trailingBestPrice: string | null;
  stopPrice: string | null;
  advancedControls: AdvancedControls | null;
  ruleState: Record<string, unknown>;
  /** Net of fees; includes the funding below (docs/pnl.md). */
  realizedPnl: string;
  fees: string;
  /** Funding paid (-) or received (+) while it was open (paper: worker/monitor/paper-margin.ts). */
  funding: string;
  leverage: number;
  marginType: string;
  source: string;
  signalId: string | null;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  /** The strategy of the trade that opened it (decision 027); null: default strategy or manual. */
  strategyId: string | null;
  /** The exchange that holds it: "simulator" or "coinbase" (docs/decisions/039-positions-stay-on-their-exchange.md). */
  exchange: string;
}

const PLAIN_DECIMAL = /^(-?)(0|[1-9]\d*)(?:\.(\d*[1-9])?0*)?$/;

/**
 * normalizeDecimal with a fast path for what the drivers return ("3400.000000000000000000"
 * from MySQL, "3400" from SQLite): the same text big.js would print, without parsing a Big.
 * The monitor reads every open position on every tick.
 */
export function fastNormalizeDecimal(value: string | number | null | undefined): string | null {
  if (typeof value === "string") {
    const match = PLAIN_DECIMAL.exec(value);
    if (match && !(match[1] && match[2] === "0" && !match[3]))
      return `${match[1]}${match[2]}${match[3] ? `.${match[3]}` : ""}`;
  }
  return normalizeDecimal(value);
}

export function positionRowToPosition(row: PositionRow): Position {
  return {
    ...rowToMonitored(row, parseJson),
    entryTradeId: row.entry_trade_id,
    status: row.status === "open" ? "open" : "closed",
    realizedPnl: fastNormalizeDecimal(row.realized_pnl) ?? "0",
    fees: fastNormalizeDecimal(row.fees) ?? "0",
    funding: fastNormalizeDecimal(row.funding) ?? "0",
    leverage: Number(row.leverage),
    marginType: row.margin_type,
    source: row.source,
    signalId: row.signal_id,
    createdAt: toIso(row.created_at)!,
    updatedAt: toIso(row.updated_at)!,
    closedAt: toIso(row.closed_at),
    strategyId: row.strategy_id ?? null,
    exchange: row.exchange ?? "simulator",
  };
}

export async function lockSymbol(db: Db, symbol: string): Promise<void> {
  const bump = () =>
    db
      .updateTable("position_locks")
      .set({ version: sql<number>`version + 1` })
      .where("symbol", "=", symbol)
      .executeTakeFirst();
  if (Number((await bump()).numUpdatedRows ?? 0) > 0) return;
  await db.insertInto("position_locks").ignore().values({ symbol, version: 0 }).execute();
  await bump();
}

/** The open position for a symbol; on MySQL locked for the caller's transaction. */
export async function getOpenPosition(
  db: Db,
  symbol: string,
  options: { forUpdate?: boolean } = {},
): Promise<Position | null> {
  let query = db
    .selectFrom("positions")
    .selectAll()
    .where("symbol", "=", symbol)
    .where("status", "=", "open")
    .orderBy("created_at", "desc");
  if (options.forUpdate && isMysql(db)) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? positionRowToPosition(row) : null;
}

export async function getPosition(db: Db, id: string): Promise<Position | null> {
  const row = await db.selectFrom("positions").selectAll().where("id", "=", id).executeTakeFirst();
  return row ? positionRowToPosition(row) : null;
}

/** What the rules monitor needs of an open position (a lean read: it runs on every tick). */
export type MonitoredPosition = Pick<
  Position,
  | "id"
  | "symbol"
  | "side"
  | "quantity"
  | "remainingQuantity"
  | "entryPrice"
  | "currentPrice"
  | "maxDrawdown"
  | "portfolioPercent"
  | "breakEvenTriggered"
  | "trailingStopActive"
  | "trailingBestPrice"
  | "stopPrice"
  | "advancedControls"
  | "ruleState"
>;

/** The columns behind MonitoredPosition. */
const MONITORED_COLUMNS = [
  "id",
  "symbol",
  "side",
  "quantity",
  "remaining_quantity",
  "entry_price",
  "current_price",
  "max_drawdown",
  "portfolio_percent",
  "break_even_triggered",
  "trailing_stop_active",
  "trailing_best_price",
  "stop_price",
  "advanced_controls",
  "rule_state",
] as const;

/** A row's monitored fields; `parse` reads the JSON columns (the monitor shares parsed objects). */
function rowToMonitored(
  row: Pick<PositionRow, (typeof MONITORED_COLUMNS)[number]>,
  parse: <T>(text: string | null, fallback: T) => T,
): MonitoredPosition {
  return {
    id: row.id,
    symbol: row.symbol,
    side: row.side === "short" ? "short" : "long",
    quantity: fastNormalizeDecimal(row.quantity)!,
    remainingQuantity: fastNormalizeDecimal(row.remaining_quantity)!,
    entryPrice: fastNormalizeDecimal(row.entry_price)!,
    currentPrice: fastNormalizeDecimal(row.current_price),
    maxDrawdown: fastNormalizeDecimal(row.max_drawdown) ?? "0",
    portfolioPercent: fastNormalizeDecimal(row.portfolio_percent) ?? "0",
    breakEvenTriggered: toBool(row.break_even_triggered),
    trailingStopActive: toBool(row.trailing_stop_active),
    trailingBestPrice: fastNormalizeDecimal(row.trailing_best_price),
    stopPrice: fastNormalizeDecimal(row.stop_price),
    advancedControls: parse<AdvancedControls | null>(row.advanced_controls, null),
    ruleState: parse<Record<string, unknown>>(row.rule_state, {}),
  };
}

// Every open position usually carries the same controls text: parse each text once. The
// parsed objects are shared, so the monitor only reads them.
const PARSED_JSON = new Map<string, unknown>();
function parseShared<T>(text: string | null, fallback: T): T {
  if (text == null || text === "") return fallback;
  let value = PARSED_JSON.get(text);
  if (value === undefined) {
    if (PARSED_JSON.size >= 10_000) PARSED_JSON.clear();
    value = parseJson<unknown>(text, fallback);
    PARSED_JSON.set(text, value);
  }
  return value as T;
}

/** Every open position, for the rules monitor: one query, the columns it needs. */
export async function listMonitoredPositions(db: Db): Promise<MonitoredPosition[]> {
  const rows = await db.selectFrom("positions").select(MONITORED_COLUMNS).where("status", "=", "open").execute();
  return rows.map((row) => rowToMonitored(row, parseShared));
}

export async function listOpenPositions(db: Db): Promise<Position[]> {
  const rows = await db
    .selectFrom("positions")
    .selectAll()
    .where("status", "=", "open")
    .orderBy("created_at", "desc")
    .execute();
  return rows.map(positionRowToPosition);
}

export interface NewPosition {
  id: string;
  symbol: string;
  side: "long" | "short";
  quantity: string;
  entryPrice: string;
  currentPrice: string | null;
  entryTradeId: string | null;
  advancedControls: AdvancedControls | null;
  leverage: number;
  marginType: string;
  source: string;
  signalId: string | null;
  fees: string;
  /** The stop-loss price in force (null: none). */
  stopPrice?: string | null;
  /** The exchange that filled the opening order (default: the opening trade's, else the simulator). */
  exchange?: string;
}

export async function insertPosition(db: Db, position: NewPosition): Promise<void> {
  const now = nowMs();
  await db
    .insertInto("positions")
    .values({
      id: position.id,
      symbol: position.symbol,
      side: position.side,
      quantity: position.quantity,
      remaining_quantity: position.quantity,
      entry_price: position.entryPrice,
      current_price: position.currentPrice,
      entry_trade_id: position.entryTradeId,
      status: "open",
      advanced_controls: position.advancedControls ? JSON.stringify(position.advancedControls) : null,
      leverage: position.leverage,
      margin_type: position.marginType,
      source: position.source,
      signal_id: position.signalId,
      fees: position.fees,
      stop_price: position.stopPrice ?? null,
      // The position belongs to the strategy of the trade that opened it (decision 027).
      strategy_id: position.entryTradeId
        ? sql<string | null>`(select t.strategy_id from trades t where t.id = ${position.entryTradeId})`
        : null,
      exchange:
        position.exchange ??
        (position.entryTradeId
          ? sql<string>`coalesce((select t.exchange from trades t where t.id = ${position.entryTradeId}), 'simulator')`
          : "simulator"),
      created_at: now,
      updated_at: now,
    })
    .execute();
}

export async function updatePosition(
  db: Db,
  id: string,
  changes: Partial<{
    quantity: string;
    remainingQuantity: string;
    entryPrice: string;
    currentPrice: string | null;
    status: "open" | "closed";
    realizedPnl: string;
    fees: string;
    maxDrawdown: string;
    portfolioPercent: string;
    closedAt: number | null;
    breakEvenTriggered: boolean;
    trailingStopActive: boolean;
    trailingBestPrice: string | null;
    stopPrice: string | null;
    advancedControls: AdvancedControls | null;
    ruleState: Record<string, unknown> | object;
  }>,
): Promise<void> {
  const set: Record<string, unknown> = { updated_at: nowMs() };
  if (changes.quantity !== undefined) set.quantity = changes.quantity;
  if (changes.remainingQuantity !== undefined) set.remaining_quantity = changes.remainingQuantity;
  if (changes.entryPrice !== undefined) set.entry_price = changes.entryPrice;
  if (changes.currentPrice !== undefined) set.current_price = changes.currentPrice;
  if (changes.status !== undefined) set.status = changes.status;
  if (changes.realizedPnl !== undefined) set.realized_pnl = changes.realizedPnl;
  if (changes.fees !== undefined) set.fees = changes.fees;
  if (changes.maxDrawdown !== undefined) set.max_drawdown = changes.maxDrawdown;
  if (changes.portfolioPercent !== undefined) set.portfolio_percent = changes.portfolioPercent;
  if (changes.closedAt !== undefined) set.closed_at = changes.closedAt;
  if (changes.breakEvenTriggered !== undefined) set.break_even_triggered = changes.breakEvenTriggered ? 1 : 0;
  if (changes.trailingStopActive !== undefined) set.trailing_stop_active = changes.trailingStopActive ? 1 : 0;
  if (changes.trailingBestPrice !== undefined) set.trailing_best_price = changes.trailingBestPrice;
  if (changes.stopPrice !== undefined) set.stop_price = changes.stopPrice;
  if (changes.advancedControls !== undefined)
    set.advanced_controls = changes.advancedControls ? JSON.stringify(changes.advancedControls) : null;
  if (changes.ruleState !== undefined) set.rule_state = JSON.stringify(changes.ruleState);
  await db.updateTable("positions").set(set).where("id", "=", id).execute();
}

/** A position by id; on MySQL locked for the caller's transaction (take the symbol lock first). */
export async function getPositionForUpdate(db: Db, id: string): Promise<Position | null> {
  let query = db.selectFrom("positions").selectAll().where("id", "=", id);
  if (isMysql(db)) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? positionRowToPosition(row) : null;
}

/** What reduce-only closes of this position still pending (written, not yet booked) will take. */
export async function pendingCloseQuantity(db: Db, positionId: string): Promise<string> {
  const rows = await db
    .selectFrom("trades")
    .select("quantity")
    .where("position_id", "=", positionId)
    .where("reduce_only", "=", 1)
    .where("status", "=", "pending")
    .execute();
  return rows.reduce((acc, r) => acc.plus(r.quantity), D(0)).toString();
}

/** The monitor's per-tick state of one position (what the price did to it). */
export interface RuleSnapshotRow extends RuleSnapshot {
  id: string;
}

/**
 * Writes many positions' tick state in one statement per chunk (UPDATE ... SET col = CASE id
 * WHEN ... END), open positions only. Columns nobody else writes concurrently, except stop
 * and trailing state, which the next tick derives again.
 */
export async function writeRuleSnapshots(db: Db, rows: RuleSnapshotRow[], chunkSize = 400): Promise<number> {
  let updated = 0;
  const now = nowMs();
  for (let start = 0; start < rows.length; start += chunkSize) {
    const chunk = rows.slice(start, start + chunkSize);
    const column = (name: string, value: (r: RuleSnapshotRow) => unknown) =>
      sql`${sql.ref(name)} = case ${sql.ref("id")} ${sql.join(
        chunk.map((r) => sql`when ${r.id} then ${value(r)}`),
        sql` `,
      )} else ${sql.ref(name)} end`;
    const assignments = [
      column("current_price", (r) => r.currentPrice),
      column("max_drawdown", (r) => r.maxDrawdown),
      column("trailing_stop_active", (r) => (r.trailingStopActive ? 1 : 0)),
      column("trailing_best_price", (r) => r.trailingBestPrice),
      column("stop_price", (r) => r.stopPrice),
      column("portfolio_percent", (r) => r.portfolioPercent ?? sql.ref("portfolio_percent")),
      sql`${sql.ref("updated_at")} = ${now}`,
    ];
    const result =
      await sql`update ${sql.table("positions")} set ${sql.join(assignments, sql`, `)} where ${sql.ref("status")} = 'open' and ${sql.ref("id")} in (${sql.join(chunk.map((r) => r.id))})`.execute(
        db,
      );
    updated += Number(result.numAffectedRows ?? 0);
  }
  return updated;
}

/** Current price of every open position of each symbol (one statement per symbol). */
export async function markOpenPositions(db: Db, prices: Map<string, string>): Promise<void> {
  const now = nowMs();
  for (const [symbol, price] of prices) {
    await db
      .updateTable("positions")
      .set({ current_price: price, updated_at: now })
      .where("symbol", "=", symbol)
      .where("status", "=", "open")
      .execute();
  }
}
