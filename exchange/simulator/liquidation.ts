// Liquidation of paper positions (docs/decisions/024-paper-margin.md): liquidateAccounts (run
// on every price tick by worker/monitor/paper-margin.ts) closes a position whose mark reached
// its liquidation price (app/core/orders/liquidation.ts: maintenance margin per product;
// isolated on its own margin, cross on the account) at that price, as a filled market order
// with client order id liq-<uuid> and the taker fee.
import { randomUUID } from "node:crypto";
import type { Transaction } from "kysely";
import { D } from "#app/core/decimal.ts";
import type { ExchangeOrder, MarginType, OrderSide } from "#app/core/exchange/types.ts";
import { accountLiquidationPrices, isLiquidated } from "#app/core/orders/liquidation.ts";
import {
  insertSimOrder,
  listNonFlatSimPositions,
  listSimAvailable,
  lockNonFlatSimPositions,
} from "#db/queries/simulator.ts";
import { type Db, transactionWithLockRetry } from "#db/queries/util.ts";
import type { DB, SimPositionRow } from "#db/schema.ts";
import { lockBalance, writeBalance, writePosition } from "./account.ts";
import { SIM_TAKER_FEE_RATE } from "./margin.ts";
import { applyFill } from "./matching.ts";
import { getPrices } from "./price-feed.ts";
import { accountPositionOf, norm, openRows, positionRowToState, rateOption, readOrder } from "./rows.ts";

type Trx = Transaction<DB>;

export interface LiquidationOptions {
  /** Taker fee rate the liquidation pays. Default SIM_TAKER_FEE_RATE. */
  feeRate?: string;
  /** Default "USDC". */
  currency?: string;
  /** Only these symbols' marks moved (a tick); default every open position is looked at. */
  symbols?: string[];
}

export interface Liquidation {
  profileId: string;
  /** The filled liq-<uuid> order that closed the position. */
  order: ExchangeOrder;
  side: "long" | "short";
  marginType: MarginType;
  leverage: number;
  entryPrice: string;
  /** The mark that reached the liquidation price. */
  markPrice: string;
  /** The price it closed at: its liquidation price (a cross account's other positions: their mark). */
  liquidationPrice: string;
  realizedPnl: string;
}

/**
 * Closes every open paper position whose mark (market_prices) reached its liquidation price
 * (app/core/orders/liquidation.ts, the figure getPositions shows): an isolated one alone, at
 * that price; a cross one takes the account's other cross positions with it (the account's
 * equity is down to its maintenance margin), the crossed one at its liquidation price, the
 * others at their mark. Each close is a filled market order `liq-<uuid>` paying the taker
 * fee, booked like any fill on the balance (margin released, P&L and fee settled). One
 * transaction per account, under its balance lock; nothing is written when nothing crossed.
 */
export async function liquidateAccounts(db: Db, options: LiquidationOptions = {}): Promise<Liquidation[]> {
  const feeRate = rateOption(options.feeRate, SIM_TAKER_FEE_RATE, "fee rate");
  const currency = options.currency ?? "USDC";
  if (options.symbols?.length === 0) return [];
  // A cross account can be liquidated by any of its symbols' moves: every position of an
  // account holding one of these symbols is read.
  const rows = openRows(await listNonFlatSimPositions(db, options.symbols));
  if (rows.length === 0) return [];
  const prices = await getPrices(db);
  const byProfile = new Map<string, SimPositionRow[]>();
  for (const row of rows) byProfile.set(row.profile_id, [...(byProfile.get(row.profile_id) ?? []), row]);
  const balances = await listSimAvailable(db, currency, [...byProfile.keys()]);
  const out: Liquidation[] = [];
  for (const [profileId, positions] of byProfile) {
    const available = balances.find((b) => b.profile_id === profileId)?.available;
    // A read without locks first: most ticks liquidate nothing and must write nothing.
    if (available === undefined || crossedSymbols(positions, prices, norm(available)!).size === 0) continue;
    out.push(...(await transactionWithLockRetry(db, (trx) => liquidateAccount(trx, profileId, feeRate, currency))));
  }
  return out;
}

type Prices = Awaited<ReturnType<typeof getPrices>>;

/** The symbols whose mark reached their liquidation price (with that price). */
function crossedSymbols(
  rows: SimPositionRow[],
  prices: Prices,
  available: string,
): Map<string, { mark: string; liquidation: string }> {
  const accountRows = rows.map((row) => accountPositionOf(row, prices.get(row.symbol)?.price ?? null));
  const liquidation = accountLiquidationPrices(accountRows, available);
  const crossed = new Map<string, { mark: string; liquidation: string }>();
  for (const p of accountRows) {
    const price = liquidation.get(p.symbol) ?? null;
    if (p.mark !== null && price !== null && isLiquidated(p.side, price, p.mark))
      crossed.set(p.symbol, { mark: p.mark, liquidation: price });
  }
  return crossed;
}

async function liquidateAccount(
  trx: Trx,
  profileId: string,
  feeRate: string,
  currency: string,
): Promise<Liquidation[]> {
  const balance = await lockBalance(trx, profileId, currency);
  const rows = openRows(await lockNonFlatSimPositions(trx, profileId));
  const prices = await getPrices(trx);
  const crossed = crossedSymbols(rows, prices, balance.available); // again, under the lock
  if (crossed.size === 0) return [];
  const crossAccount = rows.some((row) => row.margin_type !== "isolated" && crossed.has(row.symbol));
  const closing = rows.filter((row) => crossed.has(row.symbol) || (crossAccount && row.margin_type !== "isolated"));
  let available = D(balance.available);
  let hold = D(balance.hold);
  const now = Date.now();
  const out: Liquidation[] = [];
  for (const row of closing) {
    const state = positionRowToState(row)!;
    const hit = crossed.get(row.symbol);
    const mark = hit?.mark ?? prices.get(row.symbol)?.price ?? state.entryPrice;
    const price = hit?.liquidation ?? mark;
    const side: OrderSide = state.side === "long" ? "sell" : "buy";
    const fill = applyFill(state, {
      side,
      quantity: state.quantity,
      price,
      feeRate,
      leverage: state.leverage,
      marginType: state.marginType,
    });
    available = available.plus(fill.availableDelta);
    hold = hold.plus(fill.holdDelta);
    await writePosition(trx, profileId, row.symbol, fill.position, row, now);
    const id = randomUUID();
    await insertSimOrder(trx, {
      id,
      client_order_id: `liq-${randomUUID()}`,
      profile_id: profileId,
      symbol: row.symbol,
      side,
      order_type: "market",
      quantity: state.quantity,
      price: null,
      leverage: state.leverage,
      margin_type: state.marginType,
      reduce_only: 1,
      status: "filled",
      filled_quantity: state.quantity,
      average_price: price,
      fee: fill.fee,
      realized_pnl: fill.realizedPnl,
      created_at: now,
      updated_at: now,
    });
    out.push({
      profileId,
      order: await readOrder(trx, id),
      side: state.side as "long" | "short",
      marginType: state.marginType,
      leverage: state.leverage,
      entryPrice: state.entryPrice,
      markPrice: mark,
      liquidationPrice: price,
      realizedPnl: fill.realizedPnl,
    });
  }
  await writeBalance(trx, profileId, currency, { available: available.toString(), hold: hold.toString() }, now);
  return out;
}
