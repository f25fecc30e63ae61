// Profiles (docs/spec/screens.md Profiles, api.md): the Coinbase Exchange API's profiles when a key with a
// passphrase is configured (getProfilesProvider), else the simulator's paper profiles. Every
// change is logged; refusals come back with a status and a message the toast can show.
import type { Kysely } from "kysely";
import type { ExchangeProfile, ProfilesProvider } from "#app/core/exchange/accounts.ts";
import { AuthError, ExchangeError, TemporaryError } from "#app/core/exchange/errors.ts";
import { ProfileError, SimulatorProfiles } from "#exchange/simulator/profiles.ts";
import { recordActivity } from "#db/queries/activity-logs.ts";
import type { DB } from "#db/schema.ts";
import { getProfilesProvider } from "#exchange/factory.ts";

type Db = Kysely<DB>;

/** docs/spec/api.md#shapes Profile: the provider's profile (with the balances the cards show) plus the fields api.md#shapes adds. */
export interface ProfileView extends ExchangeProfile {
  profileId: string;
  tradingEnabled: boolean;
  hasMarginEnabled: boolean;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; status: number; error: string };

export async function profilesProvider(db: Db, requestedBy: string | null = null): Promise<ProfilesProvider> {
  const remote = await getProfilesProvider(db).catch(() => null);
  return remote ?? new SimulatorProfiles(db, { requestedBy });
}

export function toProfileView(p: ExchangeProfile, provider: string): ProfileView {
  return {
    id: p.id,
    profileId: p.id,
    name: p.name,
    isDefault: p.isDefault,
    active: p.active,
    createdAt: p.createdAt,
    balances: p.balances,
    // The paper profiles trade with margin; Coinbase Exchange profiles are spot accounts.
    tradingEnabled: p.active,
    hasMarginEnabled: provider === "simulator",
  };
}

function refusal(error: unknown, fallback: string): { ok: false; status: number; error: string } {
  if (error instanceof ProfileError) return { ok: false, status: error.status, error: error.message };
  if (error instanceof AuthError)
    return { ok: false, status: 502, error: `Coinbase refused the credentials: ${error.message}` };
  if (error instanceof TemporaryError)
    return { ok: false, status: 503, error: `Coinbase is unavailable: ${error.message}` };
  if (error instanceof ExchangeError) return { ok: false, status: 502, error: error.message };
  console.warn(`[profiles] ${fallback}: ${(error as Error)?.message ?? error}`);
  return { ok: false, status: 500, error: fallback };
}

export async function listProfileViews(db: Db): Promise<{ provider: string; profiles: ProfileView[] }> {
  const provider = await profilesProvider(db);
  const profiles = await provider.listProfiles();
  return {
    provider: provider.name,
    profiles: profiles.filter((p) => p.active).map((p) => toProfileView(p, provider.name)),
  };
}

export async function createProfile(db: Db, name: string, username: string): Promise<Outcome<ProfileView>> {
  try {
    const provider = await profilesProvider(db, username);
    const profile = await provider.createProfile(name);
    await recordActivity(db, {
      type: "system",
      level: "success",
      message: `Profile ${profile.name} created by ${username}`,
      data: { profileId: profile.id, provider: provider.name },
    });
    return { ok: true, value: toProfileView(profile, provider.name) };
  } catch (error) {
    return refusal(error, "Failed to create profile");
  }
}

async function nameOf(provider: ProfilesProvider, id: string): Promise<string> {
  const profiles = await provider.listProfiles().catch(() => []);
  return profiles.find((p) => p.id === id)?.name ?? id;
}

export async function transferFunds(
  db: Db,
  request: { fromProfileId: string; toProfileId: string; currency: string; amount: string },
  username: string,
): Promise<Outcome<{ message: string }>> {
  try {
    const provider = await profilesProvider(db, username);
    const currency = request.currency.trim().toUpperCase();
    await provider.transferFunds({ ...request, currency });
    const [from, to] = await Promise.all([
      nameOf(provider, request.fromProfileId),
      nameOf(provider, request.toProfileId),
    ]);
    const message = `Transferred ${request.amount} ${currency} from ${from} to ${to}`;
    await recordActivity(db, {
      type: "system",
      level: "success",
      message: `${message} (${username})`,
      data: { ...request, currency, provider: provider.name },
    });
    return { ok: true, value: { message } };
  } catch (error) {
    return refusal(error, "Failed to complete transfer");
  }
}

export async function deleteProfile(
  db: Db,
  profileId: string,
  toProfileId: string,
  username: string,
): Promise<Outcome<{ message: string }>> {
  try {
    const provider = await profilesProvider(db, username);
    const [name, to] = await Promise.all([nameOf(provider, profileId), nameOf(provider, toProfileId)]);
    await provider.deleteProfile(profileId, toProfileId);
    const message = `Profile ${name} deleted; its funds moved to ${to}`;
    await recordActivity(db, {
      type: "system",
      level: "success",
      message: `${message} (${username})`,
      data: { profileId, toProfileId, provider: provider.name },
    });
    return { ok: true, value: { message } };
  } catch (error) {
    return refusal(error, "Failed to delete profile");
  }
}
