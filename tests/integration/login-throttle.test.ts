// The login throttle under attack (issue 10): attempts are reserved before the password is
// checked, so a burst of parallel guesses gets at most the allowance of checks; locks are
// per account AND source, so a stranger cannot lock the owner out; success clears.
// Sources are told apart by X-Forwarded-For behind a trusted proxy.
import { beforeAll, describe, expect, test } from "vitest";
import { THROTTLE, accountKey, pairKey } from "#app/services/auth.server.ts";
import { freshApp, registerVia } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";

describe.each(testDialects())("login throttle on %s", (dialect) => {
  const app = freshApp(dialect, { TRUST_PROXY: "true" });
  beforeAll(async () => {
    await registerVia(app, "owner", "owner-pass-1");
  });

  const login = (password: string, ip: string, username = "owner") =>
    app.fetch("/api/login", { method: "POST", json: { username, password }, headers: { "X-Forwarded-For": ip } });
  const failedLines = async (ip: string) =>
    (
      await app.database.db
        .selectFrom("activity_logs")
        .select(["message", "data"])
        .where("message", "=", "Failed login for owner")
        .execute()
    ).filter((r) => String(r.data).includes(`"${ip}"`)).length;

  test("200 parallel wrong passwords from one source check at most the allowance; the rest are 429 and write nothing", async () => {
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => login(`wrong-${i}`, "203.0.113.7")));
    const statuses = answers.map((r) => r.status);
    const checked = statuses.filter((s) => s === 401).length;
    expect(checked).toBeGreaterThan(0);
    expect(checked).toBeLessThanOrEqual(THROTTLE.pair.free);
    expect(statuses.filter((s) => s === 429).length).toBe(200 - checked);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    // One "Failed login" line per checked password, none per refusal.
    expect(await failedLines("203.0.113.7")).toBe(checked);
    const locked = answers.find((r) => r.status === 429)!;
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  test("the stranger's lock does not lock the owner out: the right password from another source works", async () => {
    expect((await login("owner-pass-1", "203.0.113.7")).status).toBe(429);
    const owner = await login("owner-pass-1", "198.51.100.20");
    expect(owner.status).toBe(200);
  });

  test("a successful login clears its pair's failures", async () => {
    for (let i = 0; i < THROTTLE.pair.free - 1; i++)
      expect((await login(`nope-${i}`, "198.51.100.30")).status).toBe(401);
    const row = () =>
      app.database.db
        .selectFrom("login_throttles")
        .selectAll()
        .where("key", "=", pairKey("owner", "198.51.100.30"))
        .executeTakeFirst();
    expect(Number((await row())!.failures)).toBe(THROTTLE.pair.free - 1);
    expect((await login("owner-pass-1", "198.51.100.30")).status).toBe(200);
    expect(await row()).toBeUndefined();
    // The allowance is whole again.
    for (let i = 0; i < THROTTLE.pair.free - 1; i++)
      expect((await login(`again-${i}`, "198.51.100.30")).status).toBe(401);
  });

  test("one source guessing many account names is locked by its address counter", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < THROTTLE.ip.free + 3; i++)
      statuses.push((await login("whatever1", "192.0.2.99", `name_${i}`)).status);
    expect(statuses.slice(0, THROTTLE.ip.free)).toEqual(Array(THROTTLE.ip.free).fill(401));
    expect(statuses.slice(THROTTLE.ip.free)).toEqual([429, 429, 429]);
    // Another source is not affected.
    expect((await login("owner-pass-1", "192.0.2.100")).status).toBe(200);
  });
});

// Issue 23: rotating IPv6 addresses gave unlimited guesses (each address its own counter), and
// any number of addresses gave 5 guesses each. Sources are IPv6 /64s (IPv4-mapped as IPv4), and
// an account has a ceiling whatever the source (docs/decisions/040-login-throttle-v3.md).
describe.each(testDialects())("login throttle by /64 and per-account ceiling on %s", (dialect) => {
  const app = freshApp(dialect, { TRUST_PROXY: "true" });
  beforeAll(async () => {
    await registerVia(app, "ceiling", "ceiling-pass-1");
    await registerVia(app, "rotated", "rotated-pass-1");
  });

  const login = (username: string, password: string, ip: string) =>
    app.fetch("/api/login", { method: "POST", json: { username, password }, headers: { "X-Forwarded-For": ip } });
  const logLines = async (like: string) =>
    Number(
      (
        await app.database.db
          .selectFrom("activity_logs")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("message", "like", like)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const accountRow = (name: string) =>
    app.database.db
      .selectFrom("login_throttles")
      .selectAll()
      .where("key", "=", accountKey(name))
      .executeTakeFirstOrThrow();
  /** As if the account's current lock had run out. */
  const expireAccountLock = (name: string) =>
    app.database.db
      .updateTable("login_throttles")
      .set({ locked_until: Date.now() - 1 })
      .where("key", "=", accountKey(name))
      .execute();

  test("500 wrong passwords from 100 addresses of one /64: at most the pair's allowance is checked, the rest 429 with no log rows", async () => {
    const statuses: number[] = [];
    let retryAfter = 0;
    for (let batch = 0; batch < 5; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          login("rotated", `wrong-${batch}-${i}`, `2001:db8:77:1:${i.toString(16)}:${batch}:0:1`),
        ),
      );
      for (const answer of answers) {
        statuses.push(answer.status);
        if (answer.status === 429) retryAfter = Number(answer.headers.get("retry-after"));
      }
    }
    const checked = statuses.filter((s) => s === 401).length;
    expect(checked).toBeGreaterThan(0);
    expect(checked).toBeLessThanOrEqual(THROTTLE.pair.free);
    expect(statuses.filter((s) => s === 429)).toHaveLength(500 - checked);
    expect(retryAfter).toBeGreaterThan(0);
    // One argon2 check and one "Failed login" row per 401; the lock wrote one line; the 429s nothing.
    expect(await logLines("Failed login for rotated")).toBe(checked);
    expect(await logLines("Login for rotated %locked%")).toBe(1);
    // The same /64 with a new interface id is the same source; so is the IPv4 carried by an IPv4-mapped address.
    expect((await login("rotated", "rotated-pass-1", "2001:db8:77:1:ffff::9")).status).toBe(429);
    expect((await login("rotated", "rotated-pass-1", "2001:db8:77:2::9")).status).toBe(200);
    for (let i = 0; i < THROTTLE.pair.free; i++) await login("rotated", `mapped-${i}`, "::ffff:198.51.100.77");
    expect((await login("rotated", "rotated-pass-1", "198.51.100.77")).status).toBe(429);
  });

  test("the per-account ceiling: past 20 failures from any addresses, new addresses get 429 with a growing Retry-After; the owner's known address still signs in", async () => {
    // The owner signed in from home before the attack: a known source.
    expect((await login("ceiling", "ceiling-pass-1", "198.51.100.10")).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < THROTTLE.account.free + 10; i++)
      statuses.push((await login("ceiling", `guess-${i}`, `203.0.113.${i + 1}`)).status);
    expect(statuses.slice(0, THROTTLE.account.free)).toEqual(Array(THROTTLE.account.free).fill(401));
    expect(statuses.slice(THROTTLE.account.free)).toEqual(Array(10).fill(429));
    // Whatever the address: even the right password from a new place waits (no argon2, no row).
    const before = await logLines("%ceiling%");
    const fresh = await login("ceiling", "ceiling-pass-1", "192.0.2.200");
    expect(fresh.status).toBe(429);
    const first = Number(fresh.headers.get("retry-after"));
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(THROTTLE.account.baseMs / 1000);
    expect(await logLines("%ceiling%")).toBe(before);
    // The owner at home is not held by the ceiling.
    expect((await login("ceiling", "ceiling-pass-1", "198.51.100.10")).status).toBe(200);

    // The lock grows: after it runs out, one more guess is checked and the next wait is double.
    await expireAccountLock("ceiling");
    expect((await login("ceiling", "guess-a", "203.0.113.100")).status).toBe(401);
    const second = Number((await login("ceiling", "guess-b", "203.0.113.101")).headers.get("retry-after"));
    expect(second).toBeGreaterThan(THROTTLE.account.baseMs / 1000);
    expect(second).toBeLessThanOrEqual((2 * THROTTLE.account.baseMs) / 1000);
    // ... up to 5 minutes, never more.
    await app.database.db
      .updateTable("login_throttles")
      .set({ failures: 60, locked_until: Date.now() - 1 })
      .where("key", "=", accountKey("ceiling"))
      .execute();
    expect((await login("ceiling", "guess-c", "203.0.113.102")).status).toBe(401);
    const capped = await login("ceiling", "guess-d", "203.0.113.103");
    expect(capped.status).toBe(429);
    expect(Number(capped.headers.get("retry-after"))).toBeLessThanOrEqual(THROTTLE.account.maxLockMs / 1000);
    expect(Number(capped.headers.get("retry-after"))).toBeGreaterThan(THROTTLE.account.maxLockMs / 1000 - 5);
    expect(Number((await accountRow("ceiling")).failures)).toBe(61);
    // One lock line per lock started, none per refusal.
    expect(await logLines("Login for ceiling from new addresses slowed%")).toBe(3);
  });
});
