// Funding on paper positions (docs/decisions/024-paper-margin.md): at each interval boundary
// every position open then pays (long, positive rate) or receives notional at the mark x rate,
// once (sim_funding is unique by profile, symbol and interval).
import { randomUUID } from "node:crypto";
import type { Transaction } from "kysely";
import { D, parseDecimal } from "#app/core/decimal.ts";
import {
  type SimFundingRow,
  insertSimFunding,
  listSimFundedSymbols,
  listSimFundingDue,
  listSimPositionsOpenAt,
} from "#db/queries/simulator.ts";
import { type Db, transactionWithLockRetry } from "#db/queries/util.ts";
import type { DB } from "#db/schema.ts";
import { lockBalance, writeBalance } from "./account.ts";
import { q } from "./matching.ts";
import { getPrices } from "./price-feed.ts";
import { norm, openRows, positionRowToState } from "./rows.ts";

type Trx = Transaction<DB>;

export interface FundingOptions {
  /** Rate per interval (SIM_FUNDING_RATE); longs pay shorts when positive. "0" does nothing. */
  rate: string;
  /** Interval length (SIM_FUNDING_INTERVAL_SECONDS x 1000); boundaries are multiples of it on the epoch. */
  intervalMs: number;
  now?: number;
  /** Default "USDC". */
  currency?: string;
}

export interface FundingPayment {
  id: string;
  profileId: string;
  symbol: string;
  intervalStart: number;
  side: "long" | "short";
  quantity: string;
  markPrice: string;
  rate: string;
  /** Signed, on the balance: negative = the position paid. */
  amount: string;
  createdAt: number;
}

/** The funding boundary at or before `now`. */
export const fundingBoundary = (now: number, intervalMs: number) => Math.floor(now / intervalMs) * intervalMs;

/**
 * Settles the latest funding boundary: every open paper position that was open at it
 * (opened_at <= boundary) and has no sim_funding row for it pays (long, positive rate) or
 * receives notional at the mark x rate, on its account's available balance. One transaction
 * per account under its balance lock; the unique (profile, symbol, interval) key and the
 * re-check under the lock make each interval's payment once, across workers and restarts.
 * Boundaries missed while no price leader ran are not charged afterwards.
 */
export async function applyFunding(db: Db, options: FundingOptions): Promise<FundingPayment[]> {
  const rate = parseDecimal(options.rate);
  if (rate === null) throw new Error(`applyFunding: rate must be a decimal, got ${options.rate}`);
  if (D(rate).eq(0) || !(options.intervalMs > 0)) return [];
  const boundary = fundingBoundary(options.now ?? Date.now(), options.intervalMs);
  const currency = options.currency ?? "USDC";
  const due = await listSimFundingDue(db, boundary);
  const out: FundingPayment[] = [];
  for (const profileId of new Set(due.map((d) => d.profile_id))) {
    out.push(...(await transactionWithLockRetry(db, (trx) => fundAccount(trx, profileId, boundary, rate, currency))));
  }
  return out;
}

async function fundAccount(
  trx: Trx,
  profileId: string,
  boundary: number,
  rate: string,
  currency: string,
): Promise<FundingPayment[]> {
  const balance = await lockBalance(trx, profileId, currency);
  const rows = openRows(await listSimPositionsOpenAt(trx, profileId, boundary));
  const done = new Set(await listSimFundedSymbols(trx, profileId, boundary));
  const prices = await getPrices(trx);
  const now = Date.now();
  let available = D(balance.available);
  const out: FundingPayment[] = [];
  for (const row of rows) {
    const mark = prices.get(row.symbol)?.price;
    if (done.has(row.symbol) || !mark) continue;
    const state = positionRowToState(row)!;
    const payment = D(q(D(state.quantity).times(mark).times(rate)));
    const amount = (state.side === "long" ? payment.neg() : payment).toString();
    const record: FundingPayment = {
      id: randomUUID(),
      profileId,
      symbol: row.symbol,
      intervalStart: boundary,
      side: state.side as "long" | "short",
      quantity: state.quantity,
      markPrice: mark,
      rate,
      amount,
      createdAt: now,
    };
    await insertSimFunding(trx, {
      id: record.id,
      profile_id: profileId,
      symbol: row.symbol,
      interval_start: boundary,
      side: record.side,
      quantity: record.quantity,
      mark_price: mark,
      rate,
      amount,
      created_at: now,
    });
    available = available.plus(amount);
    out.push(record);
  }
  if (out.length > 0)
    await writeBalance(trx, profileId, currency, { available: available.toString(), hold: balance.hold }, now);
  return out;
}

export function fundingRowToPayment(row: SimFundingRow): FundingPayment {
  return {
    id: row.id,
    profileId: row.profile_id,
    symbol: row.symbol,
    intervalStart: Number(row.interval_start),
    side: row.side as "long" | "short",
    quantity: norm(row.quantity)!,
    markPrice: norm(row.mark_price)!,
    rate: norm(row.rate)!,
    amount: norm(row.amount)!,
    createdAt: Number(row.created_at),
  };
}
