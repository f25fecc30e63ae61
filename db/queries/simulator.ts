// The paper-trading simulator's own state (sim_orders, sim_positions, sim_funding) and its
// account (profiles with source "simulator", balances): every query the simulator
// (exchange/simulator/) runs. Rows come back as stored; the simulator normalises the
// decimals and applies its rules. Functions taking a transaction's locks say so: on MySQL they
// read FOR UPDATE, on SQLite (one writer at a time) lockSimBalance takes the write lock first.
import { type Insertable, type Selectable, type Updateable, sql } from "kysely";
import type {
  BalancesTable,
  ProfilesTable,
  SimFundingTable,
  SimOrderRow,
  SimOrdersTable,
  SimPositionRow,
  SimPositionsTable,
} from "../schema.ts";
import { type Db, isMysql } from "./util.ts";

export type SimFundingRow = Selectable<SimFundingTable>;
export type SimOrderInsert = Insertable<SimOrdersTable>;
export type SimPositionValues = Updateable<SimPositionsTable>;
export type SimBalanceRow = Selectable<BalancesTable>;

/** A duplicate key (MySQL 1062, SQLite UNIQUE constraint): e.g. a client order id stored by another process meanwhile. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { errno?: number; code?: string; message?: string };
  return e?.errno === 1062 || e?.code === "ER_DUP_ENTRY" || /UNIQUE constraint failed/i.test(e?.message ?? "");
}

// ---------------------------------------------------------------------------------------
// Account bootstrap

/** Inserts the paper profile unless one with its id or profile_id exists (INSERT IGNORE: race-safe). */
export async function insertSimProfileIgnore(db: Db, values: Insertable<ProfilesTable>): Promise<void> {
  await db.insertInto("profiles").ignore().values(values).execute();
}

/** profiles.id of the profile with this id (`by: "id"`) or this profile_id key (`by: "key"`); undefined when there is none. */
export async function getSimProfileId(db: Db, by: "id" | "key", value: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("profiles")
    .select("id")
    .where(by === "id" ? "id" : "profile_id", "=", value)
    .executeTakeFirst();
  return row?.id;
}

/** Gives the profile its starting balance in `currency` unless it has one (INSERT IGNORE). */
export async function insertSimBalanceIgnore(
  db: Db,
  profileId: string,
  currency: string,
  available: string,
  now: number,
): Promise<void> {
  await db
    .insertInto("balances")
    .ignore()
    .values({ profile_id: profileId, currency, available, hold: "0", updated_at: now })
    .execute();
}

// ---------------------------------------------------------------------------------------
// Balances

/**
 * Locks the account's balance row and reads it (the first lock of every trade): FOR UPDATE on
 * MySQL; on SQLite a no-op UPDATE first takes the database write lock, so another process
 * cannot change the row between this read and the transaction's write (a deferred BEGIN
 * would only read-lock). Undefined when the account has no balance in `currency`.
 */
export async function lockSimBalance(
  trx: Db,
  profileId: string,
  currency: string,
): Promise<{ available: string; hold: string } | undefined> {
  let query = trx
    .selectFrom("balances")
    .select(["available", "hold"])
    .where("profile_id", "=", profileId)
    .where("currency", "=", currency);
  if (isMysql(trx)) query = query.forUpdate();
  else {
    await trx
      .updateTable("balances")
      .set({ updated_at: sql<number>`updated_at` })
      .where("profile_id", "=", profileId)
      .where("currency", "=", currency)
      .execute();
  }
  return query.executeTakeFirst();
}

export async function updateSimBalance(
  trx: Db,
  profileId: string,
  currency: string,
  balance: { available: string; hold: string },
  now: number,
): Promise<void> {
  await trx
    .updateTable("balances")
    .set({ available: balance.available, hold: balance.hold, updated_at: now })
    .where("profile_id", "=", profileId)
    .where("currency", "=", currency)
    .execute();
}

/** The account's balances, by currency. */
export async function listSimBalances(db: Db, profileId: string): Promise<SimBalanceRow[]> {
  return db.selectFrom("balances").selectAll().where("profile_id", "=", profileId).orderBy("currency").execute();
}

/** The available balance in `currency` of each of these profiles (those that have one). */
export async function listSimAvailable(
  db: Db,
  currency: string,
  profileIds: string[],
): Promise<{ profile_id: string; available: string }[]> {
  if (profileIds.length === 0) return [];
  return db
    .selectFrom("balances")
    .select(["profile_id", "available"])
    .where("currency", "=", currency)
    .where("profile_id", "in", profileIds)
    .execute();
}

/** The available balance of one account in `currency`, undefined when it has none. */
export async function getSimAvailable(db: Db, profileId: string, currency: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("balances")
    .select("available")
    .where("profile_id", "=", profileId)
    .where("currency", "=", currency)
    .executeTakeFirst();
  return row?.available;
}

// ---------------------------------------------------------------------------------------
// Positions

/** The account's position row in `symbol` (FOR UPDATE on MySQL), undefined when it never had one. */
export async function lockSimPosition(trx: Db, profileId: string, symbol: string): Promise<SimPositionRow | undefined> {
  let query = trx
    .selectFrom("sim_positions")
    .selectAll()
    .where("profile_id", "=", profileId)
    .where("symbol", "=", symbol);
  if (isMysql(trx)) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Writes the account's position row in `symbol`: an update when it `exists`, else an insert. */
export async function saveSimPosition(
  trx: Db,
  profileId: string,
  symbol: string,
  values: SimPositionValues,
  exists: boolean,
): Promise<void> {
  if (exists) {
    await trx
      .updateTable("sim_positions")
      .set(values)
      .where("profile_id", "=", profileId)
      .where("symbol", "=", symbol)
      .execute();
  } else {
    await trx
      .insertInto("sim_positions")
      .values({ ...values, profile_id: profileId, symbol } as Insertable<SimPositionsTable>)
      .execute();
  }
}

/** All of the account's position rows (flat ones included), by symbol. */
export async function listSimPositions(db: Db, profileId: string): Promise<SimPositionRow[]> {
  return db.selectFrom("sim_positions").selectAll().where("profile_id", "=", profileId).orderBy("symbol").execute();
}

/** The account's non-flat positions in every symbol but `symbol`. */
export async function listOtherSimPositions(trx: Db, profileId: string, symbol: string): Promise<SimPositionRow[]> {
  return trx
    .selectFrom("sim_positions")
    .selectAll()
    .where("profile_id", "=", profileId)
    .where("symbol", "!=", symbol)
    .where("side", "!=", "flat")
    .execute();
}

/**
 * Every non-flat position row; with `symbols`, every non-flat position of the accounts
 * holding a non-flat position in one of them (a cross account moves with any of its symbols).
 */
export async function listNonFlatSimPositions(db: Db, symbols?: string[]): Promise<SimPositionRow[]> {
  let query = db.selectFrom("sim_positions").selectAll().where("side", "!=", "flat");
  if (symbols) {
    if (symbols.length === 0) return [];
    const holders = db
      .selectFrom("sim_positions")
      .select("profile_id")
      .where("side", "!=", "flat")
      .where("symbol", "in", symbols);
    query = query.where("profile_id", "in", holders);
  }
  return query.execute();
}

/** The account's non-flat positions by symbol, locked (FOR UPDATE on MySQL). */
export async function lockNonFlatSimPositions(trx: Db, profileId: string): Promise<SimPositionRow[]> {
  let query = trx
    .selectFrom("sim_positions")
    .selectAll()
    .where("profile_id", "=", profileId)
    .where("side", "!=", "flat")
    .orderBy("symbol");
  if (isMysql(trx)) query = query.forUpdate();
  return query.execute();
}

// ---------------------------------------------------------------------------------------
// Orders

export async function getSimOrder(db: Db, id: string): Promise<SimOrderRow | undefined> {
  return db.selectFrom("sim_orders").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function getSimOrderByClientId(db: Db, clientOrderId: string): Promise<SimOrderRow | undefined> {
  return db.selectFrom("sim_orders").selectAll().where("client_order_id", "=", clientOrderId).executeTakeFirst();
}

/** The profile an order belongs to (it never changes, so it may be read before the transaction), null when there is no such order. */
export async function getSimOrderOwner(db: Db, id: string): Promise<string | null> {
  const row = await db.selectFrom("sim_orders").select("profile_id").where("id", "=", id).executeTakeFirst();
  return row?.profile_id ?? null;
}

/** The order row, locked (FOR UPDATE on MySQL). */
export async function lockSimOrder(trx: Db, id: string): Promise<SimOrderRow | undefined> {
  let query = trx.selectFrom("sim_orders").selectAll().where("id", "=", id);
  if (isMysql(trx)) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function insertSimOrder(trx: Db, values: SimOrderInsert): Promise<void> {
  await trx.insertInto("sim_orders").values(values).execute();
}

export async function updateSimOrder(trx: Db, id: string, values: Updateable<SimOrdersTable>): Promise<void> {
  await trx.updateTable("sim_orders").set(values).where("id", "=", id).execute();
}

/** Open (resting) orders, oldest first: of one symbol, of one account, or both. */
export async function listOpenSimOrders(
  db: Db,
  filter: { symbol?: string; profileId?: string },
): Promise<SimOrderRow[]> {
  let query = db.selectFrom("sim_orders").selectAll().where("status", "=", "open");
  if (filter.profileId) query = query.where("profile_id", "=", filter.profileId);
  if (filter.symbol) query = query.where("symbol", "=", filter.symbol);
  return query.orderBy("created_at").orderBy("id").execute();
}

/** Symbol and quantity of every order filled (last changed) at or after `since`. */
export async function listSimFillsSince(db: Db, since: number): Promise<{ symbol: string; filled_quantity: string }[]> {
  return db
    .selectFrom("sim_orders")
    .select(["symbol", "filled_quantity"])
    .where("status", "=", "filled")
    .where("updated_at", ">=", since)
    .execute();
}

// ---------------------------------------------------------------------------------------
// Funding

/** The (profile, symbol) pairs open at `boundary` (opened_at <= it) without a sim_funding row for it. */
export async function listSimFundingDue(db: Db, boundary: number): Promise<{ profile_id: string; symbol: string }[]> {
  return db
    .selectFrom("sim_positions as p")
    .leftJoin("sim_funding as f", (join) =>
      join
        .onRef("f.profile_id", "=", "p.profile_id")
        .onRef("f.symbol", "=", "p.symbol")
        .on("f.interval_start", "=", boundary),
    )
    .select(["p.profile_id", "p.symbol"])
    .where("p.side", "!=", "flat")
    .where("p.opened_at", "<=", boundary)
    .where("f.id", "is", null)
    .execute();
}

/** The account's non-flat positions opened at or before `boundary`, by symbol. */
export async function listSimPositionsOpenAt(trx: Db, profileId: string, boundary: number): Promise<SimPositionRow[]> {
  return trx
    .selectFrom("sim_positions")
    .selectAll()
    .where("profile_id", "=", profileId)
    .where("side", "!=", "flat")
    .where("opened_at", "<=", boundary)
    .orderBy("symbol")
    .execute();
}

/** The symbols the account already paid or received funding on for the interval starting at `boundary`. */
export async function listSimFundedSymbols(trx: Db, profileId: string, boundary: number): Promise<string[]> {
  const rows = await trx
    .selectFrom("sim_funding")
    .select("symbol")
    .where("profile_id", "=", profileId)
    .where("interval_start", "=", boundary)
    .execute();
  return rows.map((row) => row.symbol);
}

export async function insertSimFunding(trx: Db, values: Insertable<SimFundingTable>): Promise<void> {
  await trx.insertInto("sim_funding").values(values).execute();
}
