// Strategies in the worker (docs/decisions/027-strategies.md): the protection a new position
// gets, and the one-owner-per-symbol rule with the strategy's limits, decided under the
// symbol's lock when the signal's trade is written.
import { D } from "../app/core/decimal.ts";
import { type AdvancedControls, type OrderSource, controlsFor } from "../app/core/orders/controls.ts";
import { capToMaxPosition, strategyConfig } from "../app/core/orders/strategy.ts";
import type { ProductSpec } from "../app/core/products.ts";
import type { TradingConfig } from "../app/core/schemas/trading-config.ts";
import type { Position } from "../db/queries/positions.ts";
import { type StoredStrategy, strategyRowToStrategy } from "../db/queries/strategies.ts";
import type { Trade } from "../db/queries/trades.ts";
import type { Db } from "../db/queries/util.ts";

/**
 * advancedControls for the position a trade opens: a strategy's signal gets the strategy's
 * rule overrides over Trading Rules; anything else what controlsFor gives its source.
 */
export async function controlsForTrade(
  db: Db,
  config: TradingConfig,
  trade: Pick<Trade, "id" | "source">,
): Promise<AdvancedControls | null> {
  if (trade.source === "signal") {
    const row = await db
      .selectFrom("trades")
      .innerJoin("strategies", "strategies.id", "trades.strategy_id")
      .selectAll("strategies")
      .where("trades.id", "=", trade.id)
      .executeTakeFirst();
    if (row) return controlsFor(strategyConfig(config, strategyRowToStrategy(row)), "signal");
  }
  return controlsFor(config, trade.source as OrderSource);
}

/** Who owns a position, as the refusal names it. */
export async function ownerLabel(db: Db, position: Pick<Position, "strategyId" | "source">): Promise<string> {
  if (!position.strategyId) return position.source === "signal" ? "the default strategy" : `a ${position.source} order`;
  const row = await db.selectFrom("strategies").select("name").where("id", "=", position.strategyId).executeTakeFirst();
  return row ? `strategy ${row.name}` : "a deleted strategy";
}

export type EntryCheck = { ok: true; quantity: string; note: string | null } | { ok: false; reason: string };

/**
 * The conflict rule and the strategy's limits for an order of a signal, called under the
 * symbol's lock with the open position and the symbol's orders in flight:
 * - one owner per symbol: a strategy's signal may act only on a symbol that is flat or whose
 *   position (and orders in flight that may open one) are its own; the default strategy's
 *   signals (global secret) may reduce or close any position but not add to a strategy's;
 *   manual orders never pass here (always allowed);
 * - max open positions: a strategy at its limit opens no new position;
 * - max position size: an order that grows (or flips) the position is cut to what fits.
 */
export async function checkStrategyEntry(
  db: Db,
  input: {
    strategy: StoredStrategy | null;
    symbol: string;
    side: "buy" | "sell";
    quantity: string;
    open: Position | null;
    pending: { side: string; quantity: string; strategyId: string | null; reduceOnly: boolean }[];
    product: Pick<ProductSpec, "symbol" | "baseIncrement" | "baseMinSize">;
  },
): Promise<EntryCheck> {
  const { strategy, open } = input;
  const reduces =
    open !== null && (open.side === "long") !== (input.side === "buy") && D(input.quantity).lte(open.remainingQuantity);
  const mine = strategy?.id ?? null;
  if (!strategy) {
    // The default strategy: never adds to (or flips) a named strategy's position.
    if (open?.strategyId && !reduces)
      return { ok: false, reason: `${input.symbol} has an open position of ${await ownerLabel(db, open)}` };
    return { ok: true, quantity: input.quantity, note: null };
  }
  if (open && open.strategyId !== mine)
    return { ok: false, reason: `${input.symbol} has an open position of ${await ownerLabel(db, open)}` };
  const foreign = input.pending.find((p) => !p.reduceOnly && p.strategyId !== mine);
  if (foreign) {
    const name = foreign.strategyId
      ? (await db.selectFrom("strategies").select("name").where("id", "=", foreign.strategyId).executeTakeFirst())?.name
      : null;
    return {
      ok: false,
      reason: `${input.symbol} has an order in flight of ${name ? `strategy ${name}` : foreign.strategyId ? "a deleted strategy" : "another source"}`,
    };
  }
  if (reduces) return { ok: true, quantity: input.quantity, note: null };
  if (!open && strategy.maxOpenPositions !== null) {
    const row = await db
      .selectFrom("positions")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("strategy_id", "=", strategy.id)
      .where("status", "=", "open")
      .executeTakeFirst();
    const count = Number(row?.n ?? 0);
    if (count >= strategy.maxOpenPositions) {
      return {
        ok: false,
        reason: `Strategy ${strategy.name} already has ${count} open position${count === 1 ? "" : "s"} (max ${strategy.maxOpenPositions})`,
      };
    }
  }
  let current = open ? (open.side === "long" ? D(open.remainingQuantity) : D(open.remainingQuantity).neg()) : D(0);
  for (const p of input.pending)
    if (p.strategyId === mine) current = p.side === "buy" ? current.plus(p.quantity) : current.minus(p.quantity);
  const capped = capToMaxPosition({
    current: current.toString(),
    side: input.side,
    quantity: input.quantity,
    max: strategy.maxPositionSize,
    product: input.product,
  });
  if (capped.quantity === null) return { ok: false, reason: (capped as { reason: string }).reason };
  return {
    ok: true,
    quantity: capped.quantity,
    note: capped.capped
      ? `Order cut from ${input.quantity} to ${capped.quantity}: strategy ${strategy.name}'s max position size is ${strategy.maxPositionSize}`
      : null,
  };
}
