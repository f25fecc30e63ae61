// The login throttle under attack (issue 10): attempts are reserved before the password is
// checked, so a burst of parallel guesses gets at most the allowance of checks; locks are
// per account AND source, so a stranger cannot lock the owner out; success clears.
// Sources are told apart by X-Forwarded-For behind a trusted proxy.
import { beforeAll, describe, expect, test } from "vitest";
import { THROTTLE, pairKey } from "#app/services/auth.server.ts";
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
    (await app.database.db.selectFrom("activity_logs").select(["message", "data"]).where("message", "=", "Failed login for owner").execute()).filter((r) =>
      String(r.data).includes(`"${ip}"`),
    ).length;

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
    for (let i = 0; i < THROTTLE.pair.free - 1; i++) expect((await login(`nope-${i}`, "198.51.100.30")).status).toBe(401);
    const row = () => app.database.db.selectFrom("login_throttles").selectAll().where("key", "=", pairKey("owner", "198.51.100.30")).executeTakeFirst();
    expect(Number((await row())!.failures)).toBe(THROTTLE.pair.free - 1);
    expect((await login("owner-pass-1", "198.51.100.30")).status).toBe(200);
    expect(await row()).toBeUndefined();
    // The allowance is whole again.
    for (let i = 0; i < THROTTLE.pair.free - 1; i++) expect((await login(`again-${i}`, "198.51.100.30")).status).toBe(401);
  });

  test("one source guessing many account names is locked by its address counter", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < THROTTLE.ip.free + 3; i++) statuses.push((await login("whatever1", "192.0.2.99", `name_${i}`)).status);
    expect(statuses.slice(0, THROTTLE.ip.free)).toEqual(Array(THROTTLE.ip.free).fill(401));
    expect(statuses.slice(THROTTLE.ip.free)).toEqual([429, 429, 429]);
    // Another source is not affected.
    expect((await login("owner-pass-1", "192.0.2.100")).status).toBe(200);
  });
});
