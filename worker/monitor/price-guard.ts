// The price guard (issue 15): after each tick, every symbol with an open position must have a
// price the rules may act on (app/core/price-source.ts: the active exchange's, fresh). When
// one goes stale, protection for it is paused (the monitor gets no price for it, so no rule
// order is sent on an old or foreign price): that is logged as a warning and pushed live
// (system_status + dashboard_update: the Positions screen shows "price stale", the health
// check warns). Its recovery is logged too. State per leader process: a new leader reports a
// symbol that is still stale once more, which is what an operator wants after a failover.
import type { Kysely } from "kysely";
import { staleHeldPrices } from "#exchange/simulator/price-feed.ts";
import { recordActivity } from "../../db/queries/activity-logs.ts";
import { appendEvents } from "../../db/queries/events.ts";
import type { DB } from "../../db/schema.ts";

export interface PriceGuard {
  /** Compares held symbols' prices with the rules' conditions; logs what changed. Returns the stale symbols. */
  check(db: Kysely<DB>, exchangeName: string, now?: number): Promise<string[]>;
}

export function createPriceGuard(options: { maxAgeMs?: number } = {}): PriceGuard {
  const stale = new Map<string, string>();
  return {
    async check(db, exchangeName, now = Date.now()) {
      const bad = new Map(
        (await staleHeldPrices(db, exchangeName, now, options.maxAgeMs)).map((s) => [s.symbol, s.reason]),
      );
      for (const [symbol, reason] of bad) {
        if (stale.has(symbol)) continue;
        stale.set(symbol, reason);
        await report(
          db,
          symbol,
          "warning",
          `Price for ${symbol} is stale: ${reason}. Its stop-loss, take-profit and trailing rules send nothing until a fresh price arrives`,
        );
      }
      for (const symbol of [...stale.keys()]) {
        if (bad.has(symbol)) continue;
        stale.delete(symbol);
        // Fresh again, or no longer held (nothing to say then).
        if (await isHeld(db, symbol))
          await report(db, symbol, "info", `Price for ${symbol} is fresh again: its protection rules act again`);
      }
      return [...stale.keys()];
    },
  };
}

async function report(db: Kysely<DB>, symbol: string, level: "warning" | "info", message: string) {
  await db.transaction().execute(async (trx) => {
    await recordActivity(trx, { type: "system", level, message, data: { symbol, component: "prices" } });
    await appendEvents(trx, [
      {
        type: "system_status",
        data: {
          component: "coinbase_api",
          reason: "price_stale",
          symbol,
          status: level === "warning" ? "warning" : "online",
          message,
        },
      },
      { type: "dashboard_update", data: { reason: "price", symbol } },
    ]);
  });
}

const isHeld = async (db: Kysely<DB>, symbol: string) =>
  Boolean(
    await db
      .selectFrom("positions")
      .select("id")
      .where("symbol", "=", symbol)
      .where("status", "=", "open")
      .executeTakeFirst(),
  );
