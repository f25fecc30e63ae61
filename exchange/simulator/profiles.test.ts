// Paper profiles on both dialects: the default profile is the simulator's account (10,000
// USDC), new profiles start empty, transfers move exact decimal amounts atomically, and every
// refusal leaves all balances untouched.
import { beforeAll, describe, expect, test } from "vitest";
import { testDialects } from "#tests/setup/db.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";
import { SimulatorAdapter } from "./adapter.ts";
import { setPrice } from "./price-feed.ts";
import { ProfileError, SimulatorProfiles, parseTransferAmount } from "./profiles.ts";

describe("parseTransferAmount", () => {
  test("accepts positive decimals with up to 8 places and normalises them", () => {
    expect(parseTransferAmount("0.10")).toBe("0.1");
    expect(parseTransferAmount(" 250 ")).toBe("250");
    expect(parseTransferAmount("0.00000001")).toBe("0.00000001");
  });
  test.each([
    ["0", "Amount must be greater than 0"],
    ["-5", "Amount must be greater than 0"],
    ["abc", "Amount must be a number"],
    ["", "Amount must be a number"],
    ["0.000000001", "Amount can have at most 8 decimal places"],
  ])("refuses %j: %s", (input, message) => {
    expect(() => parseTransferAmount(input)).toThrow(message);
  });
});

describe.each(testDialects())("paper profiles on %s", (dialect) => {
  const fresh = freshDatabase(dialect);
  let profiles: SimulatorProfiles;
  let adapter: SimulatorAdapter;
  const balanceOf = async (name: string, currency = "USDC") => {
    const list = await profiles.listProfiles();
    const profile = list.find((p) => p.name === name);
    return profile?.balances.find((b) => b.currency === currency)?.available ?? null;
  };
  const idOf = async (name: string) => (await profiles.listProfiles()).find((p) => p.name === name)!.id;

  beforeAll(async () => {
    adapter = new SimulatorAdapter(fresh.db);
    profiles = new SimulatorProfiles(fresh.db, { account: adapter, requestedBy: "tester" });
  });

  test("the simulator's paper account is the default profile; a new profile starts at 0 USDC", async () => {
    const created = await profiles.createProfile("  Scalping  ");
    expect(created).toMatchObject({
      name: "Scalping",
      isDefault: false,
      active: true,
      balances: [{ currency: "USDC", available: "0", hold: "0" }],
    });
    const list = await profiles.listProfiles();
    expect(list.map((p) => [p.name, p.isDefault])).toEqual([
      ["Paper trading", true],
      ["Scalping", false],
    ]);
    expect(list[0]!.id).toBe(await adapter.ensureAccount());
    expect(await balanceOf("Paper trading")).toBe("10000");
  });

  test("a transfer moves the exact amount both ways and is recorded", async () => {
    const main = await idOf("Paper trading");
    const scalping = await idOf("Scalping");
    await profiles.transferFunds({
      fromProfileId: main,
      toProfileId: scalping,
      currency: "usdc",
      amount: "1234.56789012",
    });
    expect(await balanceOf("Paper trading")).toBe("8765.43210988"); // 10000 - 1234.56789012
    expect(await balanceOf("Scalping")).toBe("1234.56789012");
    await profiles.transferFunds({
      fromProfileId: scalping,
      toProfileId: main,
      currency: "USDC",
      amount: "0.00000012",
    });
    expect(await balanceOf("Scalping")).toBe("1234.56789");
    expect(await balanceOf("Paper trading")).toBe("8765.43211");
    const rows = await fresh.db.selectFrom("profile_transfers").selectAll().orderBy("created_at").execute();
    expect(rows).toHaveLength(2);
    expect(rows.map((r) => [r.kind, r.requested_by])).toEqual([
      ["transfer", "tester"],
      ["transfer", "tester"],
    ]);
  });

  test("the simulator trades on the default profile after a transfer took funds from it", async () => {
    await setPrice(fresh.db, "ETH-PERP", "3000");
    const order = await adapter.placeOrder({
      clientOrderId: `p-${dialect}-1`,
      symbol: "ETH-PERP",
      side: "buy",
      type: "market",
      quantity: "1",
    });
    expect(order.status).toBe("filled");
    const [usdc] = await adapter.getBalances();
    // margin 3001.50 (3000 + 0.05 % slippage) moves to hold, fee 1.8009 is spent
    expect(usdc!.hold).toBe("3001.5");
    expect(usdc!.available).toBe("5762.13121"); // 8765.43211 - 3001.5 - 1.8009
  });

  test("refusals: same profile, unknown profile, too much, funds on hold; nothing changes", async () => {
    const main = await idOf("Paper trading");
    const scalping = await idOf("Scalping");
    const before = await profiles.listProfiles();
    const attempts: [() => Promise<unknown>, string, number][] = [
      [
        () => profiles.transferFunds({ fromProfileId: main, toProfileId: main, currency: "USDC", amount: "1" }),
        "Choose two different profiles",
        400,
      ],
      [
        () => profiles.transferFunds({ fromProfileId: main, toProfileId: "nope", currency: "USDC", amount: "1" }),
        "Unknown destination profile nope",
        404,
      ],
      [
        () =>
          profiles.transferFunds({
            fromProfileId: scalping,
            toProfileId: main,
            currency: "USDC",
            amount: "1234.56789001",
          }),
        "Insufficient funds: Scalping has 1234.56789 USDC available, the transfer needs 1234.56789001 USDC",
        409,
      ],
      // 5762.13 available: the 3001.5 held as margin cannot move
      [
        () => profiles.transferFunds({ fromProfileId: main, toProfileId: scalping, currency: "USDC", amount: "6000" }),
        "Insufficient funds",
        409,
      ],
      [
        () => profiles.transferFunds({ fromProfileId: scalping, toProfileId: main, currency: "BTC", amount: "1" }),
        "Scalping has 0 BTC available",
        409,
      ],
      [
        () => profiles.transferFunds({ fromProfileId: main, toProfileId: scalping, currency: "USDC", amount: "-1" }),
        "Amount must be greater than 0",
        400,
      ],
      [() => profiles.deleteProfile(main, scalping), "The default profile cannot be deleted", 409],
      [() => profiles.deleteProfile(scalping, scalping), "The destination must be another profile", 400],
      [() => profiles.createProfile("   "), "Profile name is required", 400],
    ];
    for (const [attempt, message, status] of attempts) {
      const error = await attempt().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error, message).toBeInstanceOf(ProfileError);
      expect((error as ProfileError).message).toContain(message);
      expect((error as ProfileError).status).toBe(status);
    }
    expect(await profiles.listProfiles()).toEqual(before);
  });

  test("concurrent transfers never overdraw: of 10 transfers of 200 from 1234.56789, exactly 6 succeed", async () => {
    const main = await idOf("Paper trading");
    const scalping = await idOf("Scalping");
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        profiles.transferFunds({ fromProfileId: scalping, toProfileId: main, currency: "USDC", amount: "200" }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(6);
    for (const r of results)
      if (r.status === "rejected") expect((r.reason as Error).message).toContain("Insufficient funds");
    expect(await balanceOf("Scalping")).toBe("34.56789");
    expect(await balanceOf("Paper trading")).toBe("6962.13121"); // 5762.13121 + 1200
  });

  test("delete moves every balance to the destination, then deactivates the profile", async () => {
    const main = await idOf("Paper trading");
    const scalping = await idOf("Scalping");
    await profiles.deleteProfile(scalping, main);
    const list = await profiles.listProfiles();
    expect(list.map((p) => p.name)).toEqual(["Paper trading"]);
    expect(await balanceOf("Paper trading")).toBe("6996.6991"); // 6962.13121 + 34.56789
    const row = await fresh.db.selectFrom("profiles").selectAll().where("id", "=", scalping).executeTakeFirstOrThrow();
    expect(Number(row.active)).toBe(0);
    const last = await fresh.db.selectFrom("profile_transfers").selectAll().where("kind", "=", "delete").execute();
    expect(last.map((t) => [t.from_profile_id, t.to_profile_id, Number(t.amount)])).toEqual([
      [scalping, main, 34.56789],
    ]);
    await expect(
      profiles.transferFunds({ fromProfileId: main, toProfileId: scalping, currency: "USDC", amount: "1" }),
    ).rejects.toThrow("The destination profile has been deleted");
  });
});
