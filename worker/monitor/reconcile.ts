// The exchange reconciled (issue 11): every RECONCILE_MS (and when the worker starts) the
// price leader compares the active exchange's positions with the app's open positions
// (app/core/reconcile/compare.ts): the positions that exchange holds (a paper position opened
// before Coinbase was connected stays on the simulator, decision 039). A difference seen on two passes in a row (one pass may
// fall between a fill and its booking) becomes a drift alarm: a `drifts` row, a warning in
// the activity log and a live trade_update, shown on Positions and the dashboard until the
// books agree again (cleared) or a person resolves it (adopt or close: worker/tasks/
// resolve-drift.ts). Symbols with an order in flight (a pending trade, or a trade written
// while the pass ran) are not judged in that pass.
//
// Resting orders: the app's own orders are followed by the order-status loop
// (order-sync.ts: filled or cancelled outside the app is booked as such). Balances are the
// exchange's own figure (the app keeps no second balance), so they are read, not compared.
import type { Kysely } from "kysely";
import { type BookSide, type DriftFinding, compareBooks, describeDrift } from "../../app/core/reconcile/compare.ts";
import type { ExchangeAdapter } from "../../app/core/exchange/types.ts";
import { isFuturesSymbol } from "../../app/core/products.ts";
import { recordActivity } from "../../db/queries/activity-logs.ts";
import { closeDrift, insertDrift, listOpenDrifts, updateDriftFinding } from "../../db/queries/drifts.ts";
import { appendEvent } from "../../db/queries/events.ts";
import { listOpenPositions } from "../../db/queries/positions.ts";
import type { DB } from "../../db/schema.ts";
import { activeAdapter } from "./exchange-stops.ts";
import { isPriceLeader } from "./price-loop.ts";

export const RECONCILE_MS = 30_000;
/** Passes in a row a difference must be seen on before it is an alarm. */
export const RECONCILE_CONFIRMATIONS = 2;

interface AppBook {
  positions: BookSide[];
  busy: Set<string>;
}

async function readAppBook(db: Kysely<DB>, since: number, exchangeName: string): Promise<AppBook> {
  const [positions, inFlight] = await Promise.all([
    listOpenPositions(db),
    db
      .selectFrom("trades")
      .select("symbol")
      .distinct()
      .where((eb) => eb.or([eb("status", "=", "pending"), eb("updated_at", ">=", since)]))
      .execute(),
  ]);
  return {
    // Only what the futures exchange holds (the list shows the same: SPEC's -PERP / -FUTURE symbols).
    // ... and only the positions that exchange holds (decision 039: a paper position stays on the simulator).
    positions: positions
      .filter((p) => isFuturesSymbol(p.symbol) && p.exchange === exchangeName)
      .map((p) => ({ symbol: p.symbol, side: p.side, quantity: p.remainingQuantity, markPrice: p.currentPrice })),
    busy: new Set(inFlight.map((r) => r.symbol)),
  };
}

const sameFinding = (a: DriftFinding, b: DriftFinding) =>
  a.kind === b.kind &&
  a.appSide === b.appSide &&
  a.appQuantity === b.appQuantity &&
  a.exchangeSide === b.exchangeSide &&
  a.exchangeQuantity === b.exchangeQuantity;

export interface ReconcileResult {
  findings: DriftFinding[];
  opened: number;
  cleared: number;
}

/**
 * One pass. `streak` carries, per symbol, how many passes in a row found a difference
 * (kept by the loop between passes); `confirmations` is how many make an alarm.
 */
export async function reconcileOnce(
  db: Kysely<DB>,
  exchange: ExchangeAdapter,
  options: { streak?: Map<string, number>; confirmations?: number; now?: () => number } = {},
): Promise<ReconcileResult> {
  const now = options.now ?? Date.now;
  const streak = options.streak ?? new Map<string, number>();
  const confirmations = options.confirmations ?? RECONCILE_CONFIRMATIONS;
  const started = now();
  const adapter = await activeAdapter(exchange);
  const before = await readAppBook(db, started, adapter.name);
  const onExchange = (await adapter.getPositions()).map((p) => ({
    symbol: p.symbol,
    side: p.side,
    quantity: p.quantity,
    entryPrice: p.entryPrice,
    markPrice: p.markPrice,
  }));
  const after = await readAppBook(db, started, adapter.name);
  const skip = new Set([...before.busy, ...after.busy]);
  for (const p of before.positions) {
    const later = after.positions.find((q) => q.symbol === p.symbol);
    if (!later || later.quantity !== p.quantity || later.side !== p.side) skip.add(p.symbol);
  }
  for (const p of after.positions) if (!before.positions.some((q) => q.symbol === p.symbol)) skip.add(p.symbol);

  const findings = compareBooks(onExchange, after.positions, skip);
  const found = new Set(findings.map((f) => f.symbol));
  for (const symbol of [...streak.keys()]) if (!found.has(symbol) && !skip.has(symbol)) streak.delete(symbol);
  for (const f of findings) streak.set(f.symbol, (streak.get(f.symbol) ?? 0) + 1);

  const open = await listOpenDrifts(db, exchange.name);
  let opened = 0;
  let cleared = 0;
  for (const finding of findings) {
    if ((streak.get(finding.symbol) ?? 0) < confirmations) continue;
    const existing = open.find((d) => d.symbol === finding.symbol);
    if (existing && sameFinding(existing, finding)) continue;
    await db.transaction().execute(async (trx) => {
      const id = existing ? existing.id : await insertDrift(trx, exchange.name, finding);
      if (existing) await updateDriftFinding(trx, existing.id, finding);
      await recordActivity(trx, {
        type: "system",
        level: "warning",
        message: `Drift on ${exchange.name}: ${describeDrift(finding)}`,
        data: { driftId: id, ...finding },
      });
      await appendEvent(trx, "trade_update", { drift: id, symbol: finding.symbol, status: "drift" });
    });
    opened++;
  }
  for (const drift of open) {
    if (found.has(drift.symbol) || skip.has(drift.symbol)) continue;
    await db.transaction().execute(async (trx) => {
      if (!(await closeDrift(trx, drift.id, "cleared", "The exchange and the app agree again", null))) return;
      await recordActivity(trx, {
        type: "system",
        level: "info",
        message: `Drift on ${exchange.name} cleared: ${drift.symbol} agrees with the exchange again`,
        data: { driftId: drift.id },
      });
      await appendEvent(trx, "trade_update", { drift: drift.id, symbol: drift.symbol, status: "cleared" });
    });
    cleared++;
  }
  return { findings, opened, cleared };
}

/** Runs reconcileOnce at start and every `intervalMs` on the price leader; returns stop(). */
export function startReconcile(options: {
  db: Kysely<DB>;
  exchange: ExchangeAdapter;
  workerId: string;
  intervalMs?: number;
}) {
  const { db, exchange, workerId } = options;
  const interval = options.intervalMs ?? RECONCILE_MS;
  const streak = new Map<string, number>();
  let running = true;
  let lastError = "";
  let exchangeName = exchange.name;
  const loop = (async () => {
    while (running) {
      try {
        if (exchange.name !== exchangeName) {
          streak.clear(); // another exchange: start counting again
          exchangeName = exchange.name;
        }
        if (await isPriceLeader(db, workerId)) await reconcileOnce(db, exchange, { streak });
        lastError = "";
      } catch (error) {
        const message = (error as Error).message;
        if (message !== lastError) {
          lastError = message;
          await recordActivity(db, {
            type: "system",
            level: "warning",
            message: `Reconciliation with ${exchange.name} failed: ${message}`,
          }).catch(() => undefined);
        }
      }
      for (let waited = 0; running && waited < interval; waited += 250)
        await Bun.sleep(Math.min(250, interval - waited));
    }
  })();
  return async () => {
    running = false;
    await loop;
  };
}
