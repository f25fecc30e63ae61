// The paper account's ledger: every change of a profile's total balance (available + hold),
// from the simulator's filled orders (fee, realised P&L), its funding payments (decision 024)
// and the transfers between profiles.
// Balances at an earlier time are worked out backwards from today's balance, so the figures
// always agree with the balance the account holds now (nothing is assumed about how it began).
import { D } from "#app/core/decimal.ts";
import { listBalances, listTransfers } from "#db/queries/profiles.ts";
import { listSimFills } from "#db/queries/reports.ts";
import type { Db } from "#db/queries/util.ts";

export interface LedgerEntry {
  at: number;
  profileId: string;
  currency: string;
  type: "fee" | "realized_pnl" | "funding" | "transfer_in" | "transfer_out";
  amount: string; // signed
  /** The profile's balance in this currency right after the entry. */
  balance: string;
  reference: string;
  details: string;
}

/** Every ledger entry of the profiles, oldest first, each with the balance after it. */
export async function buildLedger(db: Db, profileIds: string[], simulatorCurrency = "USDC"): Promise<LedgerEntry[]> {
  if (profileIds.length === 0) return [];
  const [balances, fills, transfers, funding] = await Promise.all([
    listBalances(db, profileIds),
    listSimFills(db, profileIds),
    listTransfers(db, { profileIds }),
    db.selectFrom("sim_funding").selectAll().where("profile_id", "in", profileIds).orderBy("created_at").execute(),
  ]);
  const raw: Omit<LedgerEntry, "balance">[] = [];
  for (const f of fills) {
    const what = `${f.side.toUpperCase()} ${f.quantity} ${f.symbol} @ ${f.price}`;
    if (!D(f.realizedPnl).eq(0)) {
      raw.push({
        at: f.filledAt,
        profileId: f.profileId,
        currency: simulatorCurrency,
        type: "realized_pnl",
        amount: f.realizedPnl,
        reference: f.orderId,
        details: what,
      });
    }
    if (!D(f.fee).eq(0)) {
      raw.push({
        at: f.filledAt,
        profileId: f.profileId,
        currency: simulatorCurrency,
        type: "fee",
        amount: D(f.fee).neg().toString(),
        reference: f.orderId,
        details: what,
      });
    }
  }
  for (const f of funding) {
    const what = `Funding ${D(f.amount).lt(0) ? "paid" : "received"}: ${f.side} ${D(f.quantity)} ${f.symbol} @ ${D(f.mark_price)} x ${D(f.rate)}`;
    raw.push({
      at: Number(f.created_at),
      profileId: f.profile_id,
      currency: simulatorCurrency,
      type: "funding",
      amount: D(f.amount).toString(),
      reference: f.id,
      details: what,
    });
  }
  for (const t of transfers) {
    const note = t.kind === "delete" ? " (profile deleted)" : "";
    if (profileIds.includes(t.fromProfileId)) {
      raw.push({
        at: t.createdAt,
        profileId: t.fromProfileId,
        currency: t.currency,
        type: "transfer_out",
        amount: D(t.amount).neg().toString(),
        reference: t.id,
        details: `to ${t.toProfileId}${note}`,
      });
    }
    if (profileIds.includes(t.toProfileId)) {
      raw.push({
        at: t.createdAt,
        profileId: t.toProfileId,
        currency: t.currency,
        type: "transfer_in",
        amount: t.amount,
        reference: t.id,
        details: `from ${t.fromProfileId}${note}`,
      });
    }
  }
  // Stable: one fill's P&L then its fee, fills before transfers of the same millisecond.
  raw.sort((a, b) => a.at - b.at);
  // Walk backwards from today's totals.
  const running = new Map<string, ReturnType<typeof D>>();
  for (const b of balances) running.set(`${b.profileId}|${b.currency}`, D(b.available).plus(b.hold));
  const out: LedgerEntry[] = new Array(raw.length);
  for (let i = raw.length - 1; i >= 0; i--) {
    const entry = raw[i]!;
    const key = `${entry.profileId}|${entry.currency}`;
    const after = running.get(key) ?? D(0);
    out[i] = { ...entry, balance: after.toString() };
    running.set(key, after.minus(entry.amount));
  }
  return out;
}

/** Each profile's balance per currency at `at` (ms): today's total minus what changed since. */
export async function balancesAt(
  db: Db,
  profileIds: string[],
  at: number,
): Promise<{ profileId: string; currency: string; balance: string }[]> {
  const [balances, ledger] = await Promise.all([listBalances(db, profileIds), buildLedger(db, profileIds)]);
  const totals = new Map<string, ReturnType<typeof D>>();
  for (const b of balances) totals.set(`${b.profileId}|${b.currency}`, D(b.available).plus(b.hold));
  for (const entry of ledger) {
    if (entry.at <= at) continue;
    const key = `${entry.profileId}|${entry.currency}`;
    totals.set(key, (totals.get(key) ?? D(0)).minus(entry.amount));
  }
  return [...totals.entries()]
    .map(([key, value]) => {
      const [profileId, currency] = key.split("|") as [string, string];
      return { profileId, currency, balance: value.toString() };
    })
    .sort(
      (a, b) =>
        profileIds.indexOf(a.profileId) - profileIds.indexOf(b.profileId) || a.currency.localeCompare(b.currency),
    );
}
