// The scripted ETH-PERP sequence the P&L tests share (pnl-consistency, performance charts):
// five market signals through the real webhook → worker path at set prices, each waited for
// until booked. Known outcome: realized 96.59003, −110.01003, 140.265045 (total 126.845045).
import type { Kysely } from "kysely";
import { expect } from "vitest";
import type { ExecutedFill } from "#app/core/pnl/fifo.ts";
import { type TradeStatus, insertTrade, updateTrade } from "#db/queries/trades.ts";
import type { DB } from "#db/schema.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { type Runner, startRunner } from "#worker/runner.ts";
import { type TestApp, sendSignal, waitFor } from "./app.ts";

export const PNL_STEPS: [action: "buy" | "sell", quantity: string, price: string][] = [
  ["buy", "1", "3000"],
  ["buy", "1", "3100"],
  ["sell", "0.5", "3200"],
  ["sell", "3", "3000"],
  ["buy", "1.5", "2900"],
];
/** Σ of the sequence's realized P&L, net of fees. */
export const PNL_TOTAL = "126.845045";

/**
 * Starts a worker runner on the simulator and plays PNL_STEPS; `afterStep(i)` runs once step
 * i is booked (e.g. move the price and take a snapshot). Returns the runner (stop it after).
 */
export async function playScriptedTrades(
  app: TestApp,
  secret: string,
  idPrefix: string,
  afterStep?: (step: number) => Promise<void>,
): Promise<Runner> {
  const db = app.database.db;
  await new SimulatorAdapter(db).ensureAccount();
  const runner = startRunner({ db, exchange: new SimulatorAdapter(db), workerId: "w1", pollMs: 3 });
  for (const [i, [action, quantity, price]] of PNL_STEPS.entries()) {
    await setPrice(db, "ETH-PERP", price, "test");
    expect(
      (
        await sendSignal(app, secret, {
          action,
          symbol: "ETH-PERP",
          quantity,
          order_type: "market",
          id: `${idPrefix}-${i}`,
        })
      ).status,
    ).toBe(200);
    await waitFor(
      `step ${i + 1} booked`,
      async () => {
        const row = await db
          .selectFrom("trades")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("status", "=", "executed")
          .executeTakeFirst();
        return Number(row!.n) === i + 1;
      },
      15_000,
      10,
    );
    await afterStep?.(i);
  }
  return runner;
}

/**
 * A fill (the shape the P&L reads back) written as the worker writes a market trade from a signal
 * on the simulator: pending first, then booked `status` (executed unless said) for its whole quantity.
 */
export async function bookMarketTrade(
  db: Kysely<DB>,
  trade: Omit<ExecutedFill, "executedAt"> & { executedAt: number | null; status?: TradeStatus },
) {
  const { id, symbol, side, quantity, price, fee, executedAt } = trade;
  await insertTrade(db, {
    id,
    symbol,
    side,
    orderType: "market",
    quantity,
    price: null,
    source: "signal",
    clientOrderId: `c-${id}`,
    exchange: "simulator",
    leverage: trade.leverage ?? null,
  });
  await updateTrade(db, id, {
    status: trade.status ?? "executed",
    executedPrice: price,
    executedQuantity: quantity,
    fee,
    executedAt,
  });
}
