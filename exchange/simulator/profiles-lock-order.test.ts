// Transfers, deletes and trades on the same paper account at once (docs/decisions/011-profiles-market-reports.md):
// a transfer or a delete locks the balance rows, then the profile rows, the order a trade
// takes them in (its balance, then its profile through the order's foreign key), so on
// MariaDB they wait for each other and never deadlock. The deadlock retry is turned off in
// this file (transactionWithLockRetry runs once), so a deadlock would fail the test instead
// of being re-run; and the books must add up after every round.
import { beforeAll, describe, expect, test, vi } from "vitest";
import { D } from "#app/core/decimal.ts";
import { testDialects } from "#tests/setup/db.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";
import { SimulatorAdapter } from "./adapter.ts";
import { setPrice } from "./price-feed.ts";
import { SimulatorProfiles } from "./profiles.ts";

const retry = vi.hoisted(() => ({ calls: 0 }));
vi.mock("#db/queries/util.ts", async (importOriginal) => {
  const original = await importOriginal<typeof import("#db/queries/util.ts")>();
  return {
    ...original,
    transactionWithLockRetry: ((db, work) => {
      retry.calls++;
      return original.transactionWithLockRetry(db, work, 1);
    }) satisfies typeof original.transactionWithLockRetry,
  };
});

const ROUNDS = 6;

describe.each(testDialects())("transfers, deletes and trades in parallel on %s", (dialect) => {
  const fresh = freshDatabase(dialect);
  let adapter: SimulatorAdapter;
  let profiles: SimulatorProfiles;
  let main: string;
  let side: string;

  beforeAll(async () => {
    adapter = new SimulatorAdapter(fresh.db);
    profiles = new SimulatorProfiles(fresh.db, { account: adapter, requestedBy: "tester" });
    main = await adapter.ensureAccount();
    side = (await profiles.createProfile("Side")).id;
    await profiles.transferFunds({ fromProfileId: main, toProfileId: side, currency: "USDC", amount: "2000" });
    await setPrice(fresh.db, "ETH-PERP", "3000");
  });

  const usdc = async (profileId: string) => {
    const row = await fresh.db
      .selectFrom("balances")
      .select(["available", "hold"])
      .where("profile_id", "=", profileId)
      .where("currency", "=", "USDC")
      .executeTakeFirstOrThrow();
    return { available: D(row.available), hold: D(row.hold) };
  };

  /** What the ledgers say a profile's USDC (available + hold) must be: transfers in and out, fills' P&L and fees. */
  const expectedTotal = async (profileId: string, start: string) => {
    let total = D(start);
    const transfers = await fresh.db.selectFrom("profile_transfers").selectAll().execute();
    for (const t of transfers) {
      if (t.to_profile_id === profileId) total = total.plus(t.amount);
      if (t.from_profile_id === profileId) total = total.minus(t.amount);
    }
    const fills = await fresh.db
      .selectFrom("sim_orders")
      .select(["fee", "realized_pnl"])
      .where("profile_id", "=", profileId)
      .where("status", "=", "filled")
      .execute();
    for (const f of fills) total = total.plus(f.realized_pnl ?? "0").minus(f.fee ?? "0");
    return total;
  };

  test(`${ROUNDS} rounds: every transfer, delete and trade succeeds once, and the books add up`, async () => {
    const callsBefore = retry.calls;
    for (let round = 0; round < ROUNDS; round++) {
      const doomed = (await profiles.createProfile(`Round ${round}`)).id;
      await profiles.transferFunds({ fromProfileId: main, toProfileId: doomed, currency: "USDC", amount: "50" });
      const work: Promise<unknown>[] = [];
      for (let i = 0; i < 3; i++) {
        work.push(
          profiles.transferFunds({ fromProfileId: main, toProfileId: side, currency: "USDC", amount: `1.${i}1` }),
          profiles.transferFunds({ fromProfileId: side, toProfileId: main, currency: "USDC", amount: `2.${i}3` }),
          adapter.placeOrder({
            clientOrderId: `r${round}-b${i}`,
            symbol: "ETH-PERP",
            side: "buy",
            type: "market",
            quantity: "0.1",
          }),
          adapter.placeOrder({
            clientOrderId: `r${round}-s${i}`,
            symbol: "ETH-PERP",
            side: "sell",
            type: "market",
            quantity: "0.1",
          }),
        );
      }
      work.push(profiles.deleteProfile(doomed, main));
      const results = await Promise.allSettled(work);
      const failures = results.flatMap((r) => (r.status === "rejected" ? [String(r.reason)] : []));
      expect(failures, `round ${round}`).toEqual([]);

      const mainNow = await usdc(main);
      expect(mainNow.available.plus(mainNow.hold).toString(), `round ${round}: main`).toBe(
        (await expectedTotal(main, "10000")).toString(),
      );
      const sideNow = await usdc(side);
      expect(sideNow.available.plus(sideNow.hold).toString(), `round ${round}: side`).toBe(
        (await expectedTotal(side, "0")).toString(),
      );
      expect((await usdc(doomed)).available.toString()).toBe("0");
      // The account's hold is exactly the margin of its position (no resting orders here).
      const position = await fresh.db
        .selectFrom("sim_positions")
        .select("margin")
        .where("profile_id", "=", main)
        .where("symbol", "=", "ETH-PERP")
        .executeTakeFirstOrThrow();
      expect(mainNow.hold.toString(), `round ${round}: hold`).toBe(D(position.margin).toString());
    }
    // Every change went through the (mocked) single-attempt transaction.
    expect(retry.calls - callsBefore).toBeGreaterThanOrEqual(ROUNDS * 15);

    const orders = await fresh.db.selectFrom("sim_orders").select(["status"]).execute();
    expect(orders.map((o) => o.status)).toEqual(Array(ROUNDS * 6).fill("filled"));
    const transfers = await fresh.db.selectFrom("profile_transfers").select(["kind"]).execute();
    expect(transfers.filter((t) => t.kind === "transfer")).toHaveLength(1 + ROUNDS * 7);
    expect(transfers.filter((t) => t.kind === "delete")).toHaveLength(ROUNDS);
    // Side: 2000, plus 6 rounds of (1.01 + 1.11 + 1.21) received, less 6 of (2.03 + 2.13 + 2.23) sent.
    expect((await usdc(side)).available.toString()).toBe("1981.64");
    const active = await profiles.listProfiles();
    expect(active.map((p) => p.name)).toEqual(["Paper trading", "Side"]);
  });
});
