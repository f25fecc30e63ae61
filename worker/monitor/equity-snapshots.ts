// Equity snapshots (issue 13, docs/decisions/031-performance-charts.md): the price leader (the
// live worker with the smallest id, as for prices: price-loop.ts isPriceLeader) records the
// account once per 5-minute bucket and after every fill (a change of the executed fills,
// checked every few seconds): realized P&L to date (the ledger's total as the worker booked
// it: Σ trades' realized P&L + funding), the unrealized P&L of the open positions at the
// latest prices (app/core/pnl/unrealized.ts, as the portfolio summary computes it), the
// collateral on the active exchange and the equity. The Performance charts take the
// unrealized part from here.
import type { Kysely } from "kysely";
import { D } from "../../app/core/decimal.ts";
import { getPrices } from "#exchange/simulator/price-feed.ts";
import { type ExchangeAdapter, marginBalance } from "../../app/core/exchange/types.ts";
import { unrealizedTotal } from "../../app/core/pnl/unrealized.ts";
import {
  type NewEquitySnapshot,
  bookedRealizedPnl,
  insertEquitySnapshot,
  latestEquitySnapshotAt,
} from "../../db/queries/equity-snapshots.ts";
import { listOpenPositions } from "../../db/queries/positions.ts";
import { executedFillsFingerprint } from "../../db/queries/statistics.ts";
import type { DB } from "../../db/schema.ts";
import { isPriceLeader } from "./price-loop.ts";

/** One snapshot per bucket of this length at least. */
export const SNAPSHOT_INTERVAL_MS = 5 * 60_000;
/** How often the leader looks for new fills (a close is in the curve within this). */
export const SNAPSHOT_CHECK_MS = 5_000;

type Balances = Pick<ExchangeAdapter, "getBalances">;

/** The account now; when the exchange does not answer, the P&L figures alone (balance and equity null). */
export async function takeEquitySnapshot(
  db: Kysely<DB>,
  exchange: Balances,
  reason: string,
  now = Date.now(),
): Promise<NewEquitySnapshot> {
  const [realized, positions, prices, balance] = await Promise.all([
    bookedRealizedPnl(db),
    listOpenPositions(db),
    getPrices(db),
    exchange.getBalances().then(
      (balances) => marginBalance(balances),
      () => null,
    ),
  ]);
  const unrealized = unrealizedTotal(positions, prices);
  const collateral = balance ? D(balance.available).plus(balance.hold) : null;
  return {
    at: now,
    reason,
    realizedPnl: realized,
    unrealizedPnl: unrealized,
    balance: collateral?.toString() ?? null,
    equity: collateral?.plus(unrealized).toString() ?? null,
    currency: balance?.currency ?? null,
    openPositions: positions.length,
  };
}

/** Takes and stores one snapshot (one insert). */
export async function recordEquitySnapshot(
  db: Kysely<DB>,
  exchange: Balances,
  reason: string,
  now = Date.now(),
): Promise<NewEquitySnapshot> {
  const snapshot = await takeEquitySnapshot(db, exchange, reason, now);
  await insertEquitySnapshot(db, snapshot);
  return snapshot;
}

/**
 * One check: records a snapshot when the current bucket has none yet ("interval") or the
 * executed fills changed since `seen` ("fill"). Returns what it recorded (or null) and the
 * fills' state to compare with next time.
 */
export async function checkEquitySnapshot(
  db: Kysely<DB>,
  exchange: Balances,
  seen: string | null,
  now = Date.now(),
  intervalMs = SNAPSHOT_INTERVAL_MS,
): Promise<{ recorded: NewEquitySnapshot | null; seen: string }> {
  const [fingerprint, last] = await Promise.all([executedFillsFingerprint(db), latestEquitySnapshotAt(db)]);
  const state = `${fingerprint.count}|${fingerprint.maxUpdatedAt}|${fingerprint.sumA}`;
  const due = last === null || Math.floor(last / intervalMs) !== Math.floor(now / intervalMs);
  const filled = seen !== null && seen !== state;
  if (!due && !filled) return { recorded: null, seen: state };
  return { recorded: await recordEquitySnapshot(db, exchange, filled ? "fill" : "interval", now), seen: state };
}

/** The leader's loop; other workers stand by. Returns the stop function. */
export function startEquitySnapshots(options: {
  db: Kysely<DB>;
  workerId: string;
  exchange: Balances;
  checkMs?: number;
  intervalMs?: number;
}) {
  const { db, workerId, exchange } = options;
  let running = true;
  let seen: string | null = null;
  let wake: (() => void) | null = null;
  const loop = (async () => {
    while (running) {
      try {
        if (await isPriceLeader(db, workerId))
          seen = (await checkEquitySnapshot(db, exchange, seen, Date.now(), options.intervalMs)).seen;
        else seen = null;
      } catch (error) {
        console.error(`[worker] equity snapshot failed: ${(error as Error).message}`);
      }
      if (!running) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.checkMs ?? SNAPSHOT_CHECK_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();
  return async () => {
    running = false;
    wake?.();
    await loop;
  };
}
