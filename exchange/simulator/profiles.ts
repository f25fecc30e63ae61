// The simulator's paper profiles (docs/spec/screens.md, docs/spec/exchange.md, docs/decisions/011-profiles-market-reports.md): the paper
// account the simulator trades on is the default profile; new profiles start empty and hold
// the balances transfers move. Rules:
// - transfer: distinct, active profiles; a positive amount with at most 8 decimals; the
//   source's available balance must cover it (funds held by open positions or resting
//   orders cannot move);
// - delete: not the default profile, a distinct active destination; every balance moves to
//   the destination, nothing may be on hold, then the profile is deactivated;
// - each change is one transaction that takes its locks in the order trades take them: the
//   balance rows first (of both profiles, in key order), then the profile rows (in id order),
//   then the checks. A trade locks its balance row, then its profile's key through the order's
//   foreign key, so a transfer or a delete and a trade wait for each other on the balance and
//   never in a cycle; concurrent transfers serialise the same way and never leave money
//   half-moved. A destination's missing balance row is created after the checks, under the
//   profile's lock, so a refusal leaves none behind. Each change still runs in
//   transactionWithLockRetry (it has no effect outside its transaction): on InnoDB, creating
//   that missing row can meet another transaction's lock on the same key.
import type { Kysely } from "kysely";
import { D, parseDecimal } from "#app/core/decimal.ts";
import {
  deactivateProfile,
  ensureBalanceRow,
  getProfileRecord,
  insertProfile,
  insertTransfer,
  listBalances,
  listProfileRecords,
  lockProfiles,
  setAvailable,
} from "#db/queries/profiles.ts";
import { transactionWithLockRetry } from "#db/queries/util.ts";
import type { DB } from "#db/schema.ts";
import type { ExchangeProfile, ProfilesProvider, TransferRequest } from "#app/core/exchange/accounts.ts";
import { SIMULATOR_NAME, SimulatorAdapter } from "./adapter.ts";

type Db = Kysely<DB>;

export const MAX_PROFILE_NAME = 100;
export const TRANSFER_DECIMALS = 8;

/** A refusal with the HTTP status that fits it (400 bad input, 404 unknown profile, 409 state). */
export class ProfileError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 404 | 409 = 400,
  ) {
    super(message);
    this.name = "ProfileError";
  }
}

/** Validates a transfer amount: a positive decimal with at most 8 decimals. */
export function parseTransferAmount(amount: unknown): string {
  const parsed = parseDecimal(amount);
  if (parsed === null) throw new ProfileError("Amount must be a number");
  if (!D(parsed).gt(0)) throw new ProfileError("Amount must be greater than 0");
  const decimals = parsed.includes(".") ? parsed.split(".")[1]!.length : 0;
  if (decimals > TRANSFER_DECIMALS)
    throw new ProfileError(`Amount can have at most ${TRANSFER_DECIMALS} decimal places`);
  return parsed;
}

export function normalizeCurrency(currency: unknown): string {
  const text = typeof currency === "string" ? currency.trim().toUpperCase() : "";
  if (!/^[A-Z0-9]{2,16}$/.test(text)) throw new ProfileError("Currency must be a currency code such as USDC");
  return text;
}

export class SimulatorProfiles implements ProfilesProvider {
  readonly name = SIMULATOR_NAME;
  private readonly account: SimulatorAdapter;

  constructor(
    private readonly db: Db,
    options: { account?: SimulatorAdapter; requestedBy?: string | null } = {},
  ) {
    this.account = options.account ?? new SimulatorAdapter(db);
    this.requestedBy = options.requestedBy ?? null;
  }

  private readonly requestedBy: string | null;

  async listProfiles(): Promise<ExchangeProfile[]> {
    await this.account.ensureAccount();
    const profiles = await listProfileRecords(this.db, { source: SIMULATOR_NAME });
    const balances = await listBalances(
      this.db,
      profiles.map((p) => p.id),
    );
    return profiles.map((p) => ({
      id: p.id,
      name: p.name,
      isDefault: p.isDefault,
      active: p.active,
      createdAt: new Date(p.createdAt).toISOString(),
      balances: balances
        .filter((b) => b.profileId === p.id)
        .map(({ currency, available, hold }) => ({ currency, available, hold })),
    }));
  }

  async createProfile(name: string): Promise<ExchangeProfile> {
    const trimmed = typeof name === "string" ? name.trim() : "";
    if (!trimmed) throw new ProfileError("Profile name is required");
    if (trimmed.length > MAX_PROFILE_NAME)
      throw new ProfileError(`Profile name must be at most ${MAX_PROFILE_NAME} characters`);
    await this.account.ensureAccount();
    const created = await transactionWithLockRetry(this.db, async (trx) => {
      const profile = await insertProfile(trx, { name: trimmed, source: SIMULATOR_NAME });
      await ensureBalanceRow(trx, profile.id, this.account.currency);
      return profile;
    });
    return {
      id: created.id,
      name: created.name,
      isDefault: false,
      active: true,
      createdAt: new Date(created.createdAt).toISOString(),
      balances: [{ currency: this.account.currency, available: "0", hold: "0" }],
    };
  }

  async transferFunds(request: TransferRequest): Promise<void> {
    const { fromProfileId, toProfileId } = request;
    if (!fromProfileId) throw new ProfileError("From profile is required");
    if (!toProfileId) throw new ProfileError("To profile is required");
    if (fromProfileId === toProfileId) throw new ProfileError("Choose two different profiles");
    const currency = normalizeCurrency(request.currency);
    const amount = parseTransferAmount(request.amount);
    await this.account.ensureAccount();

    await transactionWithLockRetry(this.db, async (trx) => {
      // Balances, then profiles: the order a trade takes them in (see the header).
      const balances = await listBalances(trx, [fromProfileId, toProfileId], { forUpdate: true });
      const locked = await lockProfiles(trx, [fromProfileId, toProfileId]);
      const from = this.requireActive(locked.get(fromProfileId), fromProfileId, "source");
      this.requireActive(locked.get(toProfileId), toProfileId, "destination");
      const source = balances.find((b) => b.profileId === fromProfileId && b.currency === currency);
      const target = balances.find((b) => b.profileId === toProfileId && b.currency === currency);
      const available = source?.available ?? "0";
      if (D(available).lt(amount)) {
        throw new ProfileError(
          `Insufficient funds: ${from.name} has ${available} ${currency} available, the transfer needs ${amount} ${currency}`,
          409,
        );
      }
      if (!target) await ensureBalanceRow(trx, toProfileId, currency);
      const now = Date.now();
      await setAvailable(trx, fromProfileId, currency, D(available).minus(amount).toString(), now);
      await setAvailable(
        trx,
        toProfileId,
        currency,
        D(target?.available ?? "0")
          .plus(amount)
          .toString(),
        now,
      );
      await insertTransfer(trx, {
        fromProfileId,
        toProfileId,
        currency,
        amount,
        kind: "transfer",
        requestedBy: this.requestedBy,
        createdAt: now,
      });
    });
  }

  async deleteProfile(profileId: string, toProfileId: string): Promise<void> {
    if (!profileId) throw new ProfileError("Profile is required");
    if (!toProfileId) throw new ProfileError("A destination profile is required");
    if (profileId === toProfileId) throw new ProfileError("The destination must be another profile");
    await this.account.ensureAccount();

    await transactionWithLockRetry(this.db, async (trx) => {
      // Balances, then profiles: the order a trade takes them in (see the header).
      const balances = await listBalances(trx, [profileId, toProfileId], { forUpdate: true });
      const locked = await lockProfiles(trx, [profileId, toProfileId]);
      const profile = this.requireActive(locked.get(profileId), profileId, "profile");
      this.requireActive(locked.get(toProfileId), toProfileId, "destination");
      if (profile.isDefault) throw new ProfileError("The default profile cannot be deleted", 409);
      const now = Date.now();
      for (const balance of balances.filter((b) => b.profileId === profileId)) {
        if (D(balance.hold).gt(0)) {
          throw new ProfileError(
            `${profile.name} has ${balance.hold} ${balance.currency} on hold: close its positions and orders first`,
            409,
          );
        }
        if (!D(balance.available).gt(0)) continue;
        const target = balances.find((b) => b.profileId === toProfileId && b.currency === balance.currency);
        if (!target) await ensureBalanceRow(trx, toProfileId, balance.currency);
        await setAvailable(
          trx,
          toProfileId,
          balance.currency,
          D(target?.available ?? "0")
            .plus(balance.available)
            .toString(),
          now,
        );
        await setAvailable(trx, profileId, balance.currency, "0", now);
        await insertTransfer(trx, {
          fromProfileId: profileId,
          toProfileId,
          currency: balance.currency,
          amount: balance.available,
          kind: "delete",
          requestedBy: this.requestedBy,
          createdAt: now,
        });
      }
      await deactivateProfile(trx, profileId);
    });
  }

  private requireActive<T extends { active: boolean; source: string } | undefined>(
    profile: T,
    id: string,
    what: string,
  ): NonNullable<T> {
    if (!profile || profile.source !== SIMULATOR_NAME) throw new ProfileError(`Unknown ${what} profile ${id}`, 404);
    if (!profile.active) throw new ProfileError(`The ${what} profile has been deleted`, 409);
    return profile as NonNullable<T>;
  }

  /** One profile by id (null when unknown), for callers that need its name. */
  getProfile(id: string) {
    return getProfileRecord(this.db, id);
  }
}
