// The paper account: one simulator profile (`profiles`, source "simulator") with a USDC
// balance in `balances` (available = free collateral, hold = margin of open positions + what
// resting orders hold back), created on first use, race-safe (unique key + INSERT IGNORE,
// retried as an InnoDB deadlock victim);
// and its books under the account's lock. Every state change (order, balance, position) is
// one transaction that locks the balance row first (lockBalance: FOR UPDATE on MySQL; on
// SQLite a no-op UPDATE takes the write lock before anything is read), so all trades of one
// account are serialised in the same lock order and cannot deadlock each other.
import { randomUUID } from "node:crypto";
import { ExchangeError } from "#app/core/exchange/errors.ts";
import {
  getSimAvailable,
  getSimProfileId,
  insertSimBalanceIgnore,
  insertSimProfileIgnore,
  lockSimBalance,
  lockSimPosition,
  saveSimPosition,
  updateSimBalance,
} from "#db/queries/simulator.ts";
import { type Db, transactionWithLockRetry } from "#db/queries/util.ts";
import type { SimPositionRow } from "#db/schema.ts";
import type { PositionState } from "./matching.ts";
import { norm } from "./rows.ts";

/** profiles.profile_id of the default paper profile (unique: what makes creation race-safe). */
export const DEFAULT_PAPER_PROFILE_KEY = "simulator-default";

export interface PaperAccountOptions {
  /** profiles.id of the paper profile (created when missing); default: the default paper profile. */
  profileId?: string;
  /** The name such a profile is created with (default "Paper trading"). */
  profileName?: string;
  currency: string;
  /** What the new account's balance starts with. */
  startingBalance: string;
}

/**
 * The paper profile's id (profiles.id), creating the profile and its balance when missing.
 * Read first: once the account exists (every start but the very first) nothing is inserted,
 * so no duplicate-key lock is taken. Processes creating it together race on INSERT IGNORE
 * (unique key: one profile, one balance); on InnoDB that race can deadlock (two duplicate
 * inserts holding S locks on the key, both wanting its insert-intention lock: seen when the
 * key's record was delete-marked), so each insert is retried as a deadlock victim; it is
 * idempotent, and a rolled-back attempt left nothing.
 */
export async function createPaperAccount(db: Db, options: PaperAccountOptions): Promise<string> {
  const explicit = options.profileId;
  const find = () =>
    explicit ? getSimProfileId(db, "id", explicit) : getSimProfileId(db, "key", DEFAULT_PAPER_PROFILE_KEY);
  let profileId = await find();
  if (profileId === undefined) {
    await transactionWithLockRetry(db, (trx) => {
      const now = Date.now();
      return insertSimProfileIgnore(trx, {
        id: explicit ?? randomUUID(),
        profile_id: explicit ?? DEFAULT_PAPER_PROFILE_KEY,
        name: explicit ? (options.profileName ?? "Paper trading") : "Paper trading",
        is_default: explicit ? 0 : 1,
        active: 1,
        trading_enabled: 1,
        has_margin_enabled: 1,
        source: "simulator",
        created_at: now,
        updated_at: now,
      });
    });
    profileId = await find();
    if (profileId === undefined) throw new ExchangeError("The paper profile could not be created");
  }
  const account = profileId;
  if ((await getSimAvailable(db, account, options.currency)) === undefined) {
    await transactionWithLockRetry(db, (trx) =>
      insertSimBalanceIgnore(trx, account, options.currency, options.startingBalance, Date.now()),
    );
  }
  return account;
}

export interface LockedBalance {
  available: string;
  hold: string;
}

/** Locks the account's balance row (first lock of every trade: lockSimBalance) and reads it. */
export async function lockBalance(trx: Db, profileId: string, currency: string): Promise<LockedBalance> {
  const row = await lockSimBalance(trx, profileId, currency);
  if (!row) throw new ExchangeError(`The paper account has no ${currency} balance`);
  return { available: norm(row.available)!, hold: norm(row.hold)! };
}

/** Writes the balance read by lockBalance, changed (same transaction). */
export const writeBalance = updateSimBalance;

/** Locks the account's position row in a symbol (after its balance); undefined when it never had one. */
export const lockPosition = lockSimPosition;

/**
 * Writes the position; `previous` is the row before the fill (undefined: none). opened_at
 * (funding: a position is charged at a boundary only if it was open then) is set when the
 * position takes a side it did not have, cleared when it goes flat, kept otherwise.
 */
export async function writePosition(
  trx: Db,
  profileId: string,
  symbol: string,
  state: PositionState,
  previous: SimPositionRow | undefined,
  now: number,
) {
  const openedAt = state.side === "flat" ? null : state.side !== (previous?.side ?? "flat") ? now : undefined;
  const values = {
    ...(openedAt === undefined ? {} : { opened_at: openedAt }),
    side: state.side,
    quantity: state.quantity,
    entry_price: state.entryPrice,
    margin: state.margin,
    leverage: state.leverage,
    margin_type: state.marginType,
    realized_pnl: state.realizedPnl,
    updated_at: now,
  };
  await saveSimPosition(trx, profileId, symbol, values, previous !== undefined);
}
