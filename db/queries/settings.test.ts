import { describe, expect, test, vi } from "vitest";
import { deleteSetting, ensureSetting, getSetting, setSetting } from "#db/queries/settings.ts";
import { testDialects } from "#tests/setup/db.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";

describe.each(testDialects())("settings repository on %s", (dialect) => {
  const fresh = freshDatabase(dialect);

  const rowsFor = (key: string) => fresh.db.selectFrom("settings").selectAll().where("key", "=", key).execute();

  test("getSetting of a missing key is null", async () => {
    expect(await getSetting(fresh.db, "missing")).toBeNull();
  });

  test("setSetting stores a value, and a second set overwrites it in the same row", async () => {
    const before = Date.now();
    await setSetting(fresh.db, "trading", { enabled: true });
    expect(await getSetting(fresh.db, "trading")).toEqual({ enabled: true });
    const [first] = await rowsFor("trading");
    expect(Number(first!.updated_at)).toBeGreaterThanOrEqual(before);

    await setSetting(fresh.db, "trading", { enabled: false, note: "paused" });
    expect(await getSetting(fresh.db, "trading")).toEqual({ enabled: false, note: "paused" });
    const rows = await rowsFor("trading");
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0]!.value)).toEqual({ enabled: false, note: "paused" });
    expect(Number(rows[0]!.updated_at)).toBeGreaterThanOrEqual(Number(first!.updated_at));
  });

  test("setSetting upserts inside a transaction too", async () => {
    await fresh.db.transaction().execute(async (trx) => {
      await setSetting(trx, "in-trx", 1);
      await setSetting(trx, "in-trx", 2);
    });
    expect(await getSetting(fresh.db, "in-trx")).toBe(2);
    expect(await rowsFor("in-trx")).toHaveLength(1);
  });

  test("scalar values round-trip with their JSON types", async () => {
    const cases: [string, unknown][] = [
      ["string", "whsec_abc"],
      ["number", 12.5],
      ["zero", 0],
      ["false", false],
      ["empty-string", ""],
      ["array", [1, 2, 3]],
    ];
    for (const [key, value] of cases) await setSetting(fresh.db, `scalar:${key}`, value);
    for (const [key, value] of cases) expect(await getSetting(fresh.db, `scalar:${key}`), key).toEqual(value);
  });

  test("nested objects round-trip through JSON exactly", async () => {
    const value = {
      takeProfit: [
        { level: 1, percent: 0.5, enabled: true },
        { level: 2, percent: 0.5, enabled: false, extra: { trail: { distance: "0.25", steps: [1, 2] } } },
      ],
      stopLoss: null,
      amount: "123456789012345678.123456789012345678",
      label: '€ 漢字 🚀 "quoted" \\ back',
      deep: { a: { b: { c: { d: { e: ["f"] } } } } },
    };
    await setSetting(fresh.db, "trading_rules", value);
    expect(await getSetting(fresh.db, "trading_rules")).toEqual(value);
  });

  test("large values fit (beyond 64 KiB)", async () => {
    const big = { blob: "x".repeat(200_000) };
    await setSetting(fresh.db, "large", big);
    expect(await getSetting(fresh.db, "large")).toEqual(big);
  });

  test("keys are case-sensitive on both dialects", async () => {
    await setSetting(fresh.db, "Case", "upper");
    await setSetting(fresh.db, "case", "lower");
    expect(await getSetting(fresh.db, "Case")).toBe("upper");
    expect(await getSetting(fresh.db, "case")).toBe("lower");
  });

  test("a stored value that is not JSON reads as null", async () => {
    await fresh.db
      .insertInto("settings")
      .values({ key: "corrupt", value: "{not json", updated_at: Date.now() })
      .execute();
    expect(await getSetting(fresh.db, "corrupt")).toBeNull();
  });

  test("ensureSetting stores the made value once and returns the stored value afterwards", async () => {
    const make = vi.fn(() => ({ secret: "first" }));
    expect(await ensureSetting(fresh.db, "webhook", make)).toEqual({ secret: "first" });
    expect(make).toHaveBeenCalledTimes(1);

    const again = vi.fn(() => ({ secret: "second" }));
    expect(await ensureSetting(fresh.db, "webhook", again)).toEqual({ secret: "first" });
    expect(again).not.toHaveBeenCalled();
    expect(await rowsFor("webhook")).toHaveLength(1);
  });

  test("ensureSetting does not overwrite a value stored with setSetting", async () => {
    await setSetting(fresh.db, "existing", { v: 1 });
    expect(await ensureSetting(fresh.db, "existing", () => ({ v: 2 }))).toEqual({ v: 1 });
    expect(await getSetting(fresh.db, "existing")).toEqual({ v: 1 });
  });

  test("concurrent ensureSetting calls agree on one stored value", async () => {
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) => ensureSetting(fresh.db, "race", () => ({ made: i }))),
    );
    const stored = await getSetting<{ made: number }>(fresh.db, "race");
    expect(stored).not.toBeNull();
    for (const result of results) expect(result).toEqual(stored);
    expect(await rowsFor("race")).toHaveLength(1);
  });

  test("deleteSetting removes the key only; deleting a missing key is harmless", async () => {
    await setSetting(fresh.db, "to-delete", 1);
    await setSetting(fresh.db, "to-keep", 2);
    await deleteSetting(fresh.db, "to-delete");
    expect(await getSetting(fresh.db, "to-delete")).toBeNull();
    expect(await rowsFor("to-delete")).toEqual([]);
    expect(await getSetting(fresh.db, "to-keep")).toBe(2);
    await expect(deleteSetting(fresh.db, "never-set")).resolves.toBeUndefined();

    // a deleted key can be ensured again
    expect(await ensureSetting(fresh.db, "to-delete", () => "again")).toBe("again");
  });
});
