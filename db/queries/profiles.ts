// Paper profiles, their balances and the transfers between them (the simulator's side of
// docs/spec/screens.md's Profiles; exchange/simulator/profiles.ts holds the rules).
import { sql } from "kysely";
import { normalizeDecimal } from "../../app/core/decimal.ts";
import type { ProfileRow } from "../schema.ts";
import { type Db, isMysql, newId, nowMs, toBool } from "./util.ts";

export interface ProfileRecord {
  id: string;
  profileId: string;
  name: string;
  isDefault: boolean;
  active: boolean;
  tradingEnabled: boolean;
  hasMarginEnabled: boolean;
  source: string;
  createdAt: number;
}

export interface BalanceRecord {
  profileId: string;
  currency: string;
  available: string;
  hold: string;
}

export interface TransferRecord {
  id: string;
  fromProfileId: string;
  toProfileId: string;
  currency: string;
  amount: string;
  kind: "transfer" | "delete";
  requestedBy: string | null;
  createdAt: number;
}

export function profileRowToRecord(row: ProfileRow): ProfileRecord {
  return {
    id: row.id,
    profileId: row.profile_id,
    name: row.name,
    isDefault: toBool(row.is_default),
    active: toBool(row.active),
    tradingEnabled: toBool(row.trading_enabled),
    hasMarginEnabled: toBool(row.has_margin_enabled),
    source: row.source,
    createdAt: Number(row.created_at),
  };
}

/** Profiles of one source, the default first, then by creation. */
export async function listProfileRecords(
  db: Db,
  options: { source: string; includeInactive?: boolean },
): Promise<ProfileRecord[]> {
  let query = db.selectFrom("profiles").selectAll().where("source", "=", options.source);
  if (!options.includeInactive) query = query.where("active", "=", 1);
  const rows = await query.orderBy("is_default", "desc").orderBy("created_at").orderBy("id").execute();
  return rows.map(profileRowToRecord);
}

export async function getProfileRecord(db: Db, id: string): Promise<ProfileRecord | null> {
  const row = await db.selectFrom("profiles").selectAll().where("id", "=", id).executeTakeFirst();
  return row ? profileRowToRecord(row) : null;
}

/** Locks the profiles (in id order, so two transactions never wait on each other in a cycle) and reads them. */
export async function lockProfiles(db: Db, ids: string[]): Promise<Map<string, ProfileRecord>> {
  const sorted = [...new Set(ids)].sort();
  if (sorted.length === 0) return new Map();
  if (isMysql(db)) {
    const rows = await db
      .selectFrom("profiles")
      .selectAll()
      .where("id", "in", sorted)
      .orderBy("id")
      .forUpdate()
      .execute();
    return new Map(rows.map((row) => [row.id, profileRowToRecord(row)]));
  }
  // SQLite: a write first takes the database write lock before anything is read.
  await db.updateTable("profiles").set({ updated_at: sql<number>`updated_at` }).where("id", "in", sorted).execute();
  const rows = await db.selectFrom("profiles").selectAll().where("id", "in", sorted).execute();
  return new Map(rows.map((row) => [row.id, profileRowToRecord(row)]));
}

export async function insertProfile(
  db: Db,
  values: { name: string; source: string; id?: string },
): Promise<ProfileRecord> {
  const id = values.id ?? newId();
  const now = nowMs();
  await db
    .insertInto("profiles")
    .values({
      id,
      profile_id: id,
      name: values.name,
      is_default: 0,
      active: 1,
      trading_enabled: 1,
      has_margin_enabled: 1,
      source: values.source,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return (await getProfileRecord(db, id))!;
}

export async function deactivateProfile(db: Db, id: string): Promise<void> {
  await db
    .updateTable("profiles")
    .set({ active: 0, trading_enabled: 0, updated_at: nowMs() })
    .where("id", "=", id)
    .execute();
}

const toBalance = (row: { profile_id: string; currency: string; available: string; hold: string }): BalanceRecord => ({
  profileId: row.profile_id,
  currency: row.currency,
  available: normalizeDecimal(row.available) ?? "0",
  hold: normalizeDecimal(row.hold) ?? "0",
});

/** Balances of the profiles, by currency. */
export async function listBalances(
  db: Db,
  profileIds: string[],
  options: { forUpdate?: boolean } = {},
): Promise<BalanceRecord[]> {
  if (profileIds.length === 0) return [];
  let query = db
    .selectFrom("balances")
    .select(["profile_id", "currency", "available", "hold"])
    .where("profile_id", "in", profileIds)
    .orderBy("profile_id")
    .orderBy("currency");
  if (options.forUpdate && isMysql(db)) query = query.forUpdate();
  return (await query.execute()).map(toBalance);
}

/** Creates a zero balance row when the profile has none in this currency (race-safe). */
export async function ensureBalanceRow(db: Db, profileId: string, currency: string): Promise<void> {
  await db
    .insertInto("balances")
    .ignore()
    .values({ profile_id: profileId, currency, available: "0", hold: "0", updated_at: nowMs() })
    .execute();
}

export async function setAvailable(
  db: Db,
  profileId: string,
  currency: string,
  available: string,
  at = nowMs(),
): Promise<void> {
  await db
    .updateTable("balances")
    .set({ available, updated_at: at })
    .where("profile_id", "=", profileId)
    .where("currency", "=", currency)
    .execute();
}

export async function insertTransfer(
  db: Db,
  transfer: Omit<TransferRecord, "id" | "createdAt"> & { createdAt?: number },
): Promise<TransferRecord> {
  const record: TransferRecord = { id: newId(), createdAt: transfer.createdAt ?? nowMs(), ...transfer };
  await db
    .insertInto("profile_transfers")
    .values({
      id: record.id,
      from_profile_id: record.fromProfileId,
      to_profile_id: record.toProfileId,
      currency: record.currency,
      amount: record.amount,
      kind: record.kind,
      requested_by: record.requestedBy,
      created_at: record.createdAt,
    })
    .execute();
  return record;
}

/** Transfers into or out of the profiles (all profiles when none given), oldest first. */
export async function listTransfers(
  db: Db,
  options: { profileIds?: string[]; after?: number } = {},
): Promise<TransferRecord[]> {
  let query = db.selectFrom("profile_transfers").selectAll();
  const ids = options.profileIds;
  if (ids?.length)
    query = query.where((eb) => eb.or([eb("from_profile_id", "in", ids), eb("to_profile_id", "in", ids)]));
  if (options.after !== undefined) query = query.where("created_at", ">", options.after);
  const rows = await query.orderBy("created_at").orderBy("id").execute();
  return rows.map((row) => ({
    id: row.id,
    fromProfileId: row.from_profile_id,
    toProfileId: row.to_profile_id,
    currency: row.currency,
    amount: normalizeDecimal(row.amount) ?? "0",
    kind: row.kind as TransferRecord["kind"],
    requestedBy: row.requested_by,
    createdAt: Number(row.created_at),
  }));
}
