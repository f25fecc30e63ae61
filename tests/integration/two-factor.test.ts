// TOTP two-factor authentication (issue 10) on both databases, through the pages' form
// posts (as without JavaScript) and the JSON API: enrolment with the QR code, ten hashed
// recovery codes shown once, the second login step, one use per code, the throttle on
// codes, turning it off, the admin's reset, and "require 2FA for all".
import { generateTOTP } from "@epic-web/totp";
import { beforeAll, describe, expect, test } from "vitest";
import { TWO_FACTOR_REQUIRED } from "#app/services/sessions.server.ts";
import { WRONG_CODE } from "#app/services/two-factor.server.ts";
import { OWN_TWO_FACTOR } from "#app/services/users.server.ts";
import { cookieFrom, freshApp, registerVia } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { totpAt } from "#tests/setup/totp.ts";

test("the test's own RFC 6238 code agrees with @epic-web/totp's", async () => {
  const { otp, secret } = await generateTOTP({ algorithm: "SHA-1", digits: 6, period: 30 });
  expect(totpAt(secret)).toBe(otp);
});

const html = (response: Response) => response.text();
const secretIn = (page: string) =>
  /data-testid="two-factor-secret"[^>]*>([A-Z2-7 ]+)</.exec(page)?.[1]?.replace(/ /g, "");
const recoveryCodesIn = (page: string) =>
  [...page.matchAll(/data-testid="recovery-code"[^>]*>([a-z0-9]{5}-[a-z0-9]{5})</g)].map((m) => m[1]!);

describe.each(testDialects())("two-factor authentication on %s", (dialect) => {
  const app = freshApp(dialect);
  let admin: string;
  let trader: { cookie: string; id: string };
  let secret = "";
  let recovery: string[] = [];
  beforeAll(async () => {
    admin = (await registerVia(app, "owner2fa")).cookie;
    const registered = await registerVia(app, "trader2fa", "secret123", "trader");
    trader = { cookie: registered.cookie, id: registered.user.id };
  });

  const userRow = () =>
    app.database.db.selectFrom("users").selectAll().where("id", "=", trader.id).executeTakeFirstOrThrow();
  /** As if the next 30 s step had come: the last accepted step is forgotten. */
  const nextStep = () =>
    app.database.db.updateTable("users").set({ totp_last_step: null }).where("id", "=", trader.id).execute();
  const clearCodeThrottle = () =>
    app.database.db.deleteFrom("login_throttles").where("key", "=", `2fa:${trader.id}`).execute();
  const account = (form: Record<string, string>, cookie = trader.cookie) =>
    app.fetch("/account", { method: "POST", cookie, form });
  const loginPage = (password = "secret123") =>
    app.fetch("/login", { method: "POST", form: { username: "trader2fa", password, redirectTo: "/positions" } });

  test("enrol: start shows a QR code and the key; a wrong code keeps it off; the right one turns it on with ten recovery codes shown once", async () => {
    const start = await account({ intent: "start" });
    expect(start.status).toBe(302);
    const page = await html(await app.fetch("/account", { cookie: trader.cookie }));
    expect(page).toContain('data-testid="two-factor-qr"');
    expect(page).toMatch(/src="data:image\/svg\+xml;base64,[A-Za-z0-9+/=]{200,}"/);
    secret = secretIn(page)!;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/); // 160 bits
    expect((await userRow()).totp_pending_enc).toMatch(/^v1\./);
    expect((await userRow()).totp_pending_enc).not.toContain(secret);

    const wrong = await account({ intent: "confirm", code: totpAt(secret, Math.floor(Date.now() / 30_000) + 5) });
    expect(wrong.status).toBe(401);
    expect(await html(wrong)).toContain(WRONG_CODE);
    expect((await userRow()).totp_secret_enc).toBeNull();

    const right = await account({ intent: "confirm", code: totpAt(secret) });
    expect(right.status).toBe(200);
    const shown = await html(right);
    recovery = recoveryCodesIn(shown);
    expect(recovery).toHaveLength(10);
    expect(new Set(recovery).size).toBe(10);
    const row = await userRow();
    expect(row.totp_secret_enc).toMatch(/^v1\./);
    expect(row.totp_pending_enc).toBeNull();
    const stored = await app.database.db
      .selectFrom("recovery_codes")
      .selectAll()
      .where("user_id", "=", trader.id)
      .execute();
    expect(stored).toHaveLength(10);
    for (const r of stored) {
      expect(r.code_hash).toMatch(/^[0-9a-f]{64}$/);
      for (const code of recovery) expect(r.code_hash).not.toContain(code.replace("-", ""));
    }
    // Shown once: the page afterwards says how many are left, not which.
    const later = await html(await app.fetch("/account", { cookie: trader.cookie }));
    expect(recoveryCodesIn(later)).toEqual([]);
    expect(later).toMatch(/data-testid="recovery-left"[^>]*>10</);
    const users = (await (await app.fetch("/api/users", { cookie: admin })).json()) as {
      username: string;
      twoFactorEnabled: boolean;
    }[];
    expect(users.find((u) => u.username === "trader2fa")?.twoFactorEnabled).toBe(true);
  });

  test("login page: the right password leads to /two-factor without a session; the right code starts it and goes where asked", async () => {
    await nextStep();
    const first = await loginPage();
    expect(first.status).toBe(302);
    expect(first.headers.get("location")).toBe("/two-factor");
    expect(cookieFrom(first)).toBeUndefined();
    const pending = cookieFrom(first, "tv_2fa")!;
    expect(pending).toBeDefined();
    expect((await app.fetch("/two-factor", { cookie: pending })).status).toBe(200);
    expect((await app.fetch("/two-factor")).headers.get("location")).toBe("/login");

    const wrong = await app.fetch("/two-factor", {
      method: "POST",
      cookie: pending,
      form: { code: "000000" === totpAt(secret) ? "111111" : "000000" },
    });
    expect(wrong.status).toBe(401);
    expect(cookieFrom(wrong)).toBeUndefined();

    const code = totpAt(secret);
    const right = await app.fetch("/two-factor", {
      method: "POST",
      cookie: pending,
      form: { code: `${code.slice(0, 3)} ${code.slice(3)}` },
    });
    expect(right.status).toBe(302);
    expect(right.headers.get("location")).toBe("/positions");
    const session = cookieFrom(right)!;
    expect(session).toBeDefined();
    expect(((await (await app.fetch("/api/user", { cookie: session })).json()) as { username: string }).username).toBe(
      "trader2fa",
    );

    // The same code again (seen over a shoulder, replayed): refused.
    const again = cookieFrom(await loginPage(), "tv_2fa")!;
    const replay = await app.fetch("/two-factor", { method: "POST", cookie: again, form: { code } });
    expect(replay.status).toBe(401);
    expect(cookieFrom(replay)).toBeUndefined();
    const logs = await app.database.db
      .selectFrom("activity_logs")
      .select("message")
      .where("message", "like", "%trader2fa logged in (two-factor)%")
      .execute();
    expect(logs).toHaveLength(1);
  });

  test("a forged or foreign pending cookie gets nothing", async () => {
    const forged = "tv_2fa=eyJ1IjoieCJ9.bad";
    expect((await app.fetch("/two-factor", { cookie: forged })).headers.get("location")).toBe("/login");
    const post = await app.fetch("/two-factor", { method: "POST", cookie: forged, form: { code: totpAt(secret) } });
    expect(post.status).toBe(302);
    expect(post.headers.get("location")).toBe("/login");
    expect(cookieFrom(post)).toBeUndefined();
  });

  test("/api/login: without a code 401 {twoFactorRequired}; a recovery code works once; a malformed code is 400", async () => {
    await clearCodeThrottle();
    const login = (extra: Record<string, unknown> = {}) =>
      app.fetch("/api/login", { method: "POST", json: { username: "trader2fa", password: "secret123", ...extra } });
    const bare = await login();
    expect(bare.status).toBe(401);
    expect(await bare.json()).toEqual({ error: "Two-factor code required", twoFactorRequired: true });
    expect(cookieFrom(bare)).toBeUndefined();

    const malformed = await login({ code: "12" });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ field: "code" });

    const wrongPassword = await app.fetch("/api/login", {
      method: "POST",
      json: { username: "trader2fa", password: "nope123", code: totpAt(secret) },
    });
    expect(wrongPassword.status).toBe(401);
    expect(await wrongPassword.json()).not.toHaveProperty("twoFactorRequired");

    const withRecovery = await login({ code: recovery[0]!.toUpperCase() });
    expect(withRecovery.status).toBe(200);
    expect(cookieFrom(withRecovery)).toBeDefined();
    const reused = await login({ code: recovery[0] });
    expect(reused.status).toBe(401);
    const page = await html(await app.fetch("/account", { cookie: trader.cookie }));
    expect(page).toMatch(/data-testid="recovery-left"[^>]*>9</);
  });

  test("codes are throttled per account: after 5 wrong ones even the right code waits (429, Retry-After), and nothing logs in", async () => {
    await clearCodeThrottle();
    await nextStep();
    const login = (code: string) =>
      app.fetch("/api/login", { method: "POST", json: { username: "trader2fa", password: "secret123", code } });
    const bad = totpAt(secret, Math.floor(Date.now() / 30_000) + 7);
    const answers = await Promise.all(Array.from({ length: 12 }, () => login(bad)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(7);
    const locked = await login(totpAt(secret));
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(cookieFrom(locked)).toBeUndefined();
    await clearCodeThrottle();
  });

  test("new recovery codes need a current code and replace the old ones; turning off needs one too", async () => {
    await clearCodeThrottle();
    await nextStep();
    expect((await account({ intent: "renew", code: "000000" === totpAt(secret) ? "111111" : "000000" })).status).toBe(
      401,
    );
    await nextStep();
    const renewed = await account({ intent: "renew", code: totpAt(secret) });
    expect(renewed.status).toBe(200);
    const fresh = recoveryCodesIn(await html(renewed));
    expect(fresh).toHaveLength(10);
    const old = await app.fetch("/api/login", {
      method: "POST",
      json: { username: "trader2fa", password: "secret123", code: recovery[1] },
    });
    expect(old.status).toBe(401);
    recovery = fresh;

    const off = await account({ intent: "disable", code: recovery[0]! });
    expect(off.status).toBe(302);
    const row = await userRow();
    expect(row.totp_secret_enc).toBeNull();
    expect(
      await app.database.db.selectFrom("recovery_codes").selectAll().where("user_id", "=", trader.id).execute(),
    ).toEqual([]);
    const plain = await app.fetch("/api/login", {
      method: "POST",
      json: { username: "trader2fa", password: "secret123" },
    });
    expect(plain.status).toBe(200);
  });

  test("an admin resets a user's 2FA (PATCH twoFactor:false, and the Users screen's button); nobody else can", async () => {
    await account({ intent: "start" });
    const enrolSecret = secretIn(await html(await app.fetch("/account", { cookie: trader.cookie })))!;
    await nextStep();
    expect((await account({ intent: "confirm", code: totpAt(enrolSecret) })).status).toBe(200);
    expect((await userRow()).totp_secret_enc).not.toBeNull();

    const byTrader = await app.fetch(`/api/users/${trader.id}`, {
      method: "PATCH",
      cookie: trader.cookie,
      json: { twoFactor: false },
    });
    expect(byTrader.status).toBe(403);
    const on = await app.fetch(`/api/users/${trader.id}`, {
      method: "PATCH",
      cookie: admin,
      json: { twoFactor: true },
    });
    expect(on.status).toBe(400);
    const reset = await app.fetch(`/api/users/${trader.id}`, {
      method: "PATCH",
      cookie: admin,
      json: { twoFactor: false },
    });
    expect(reset.status).toBe(200);
    expect(await reset.json()).toMatchObject({ username: "trader2fa", twoFactorEnabled: false });
    expect((await userRow()).totp_secret_enc).toBeNull();

    // The screen's form does the same.
    await account({ intent: "start" });
    const s2 = secretIn(await html(await app.fetch("/account", { cookie: trader.cookie })))!;
    await nextStep();
    await account({ intent: "confirm", code: totpAt(s2) });
    const viaScreen = await app.fetch("/users", {
      method: "POST",
      cookie: admin,
      form: { intent: "update", id: trader.id, twoFactor: "false" },
    });
    expect(viaScreen.status).toBe(302);
    expect((await userRow()).totp_secret_enc).toBeNull();
  });

  test("an admin requires 2FA for all: an account without it reaches only the Account screen until it sets it up", async () => {
    const on = await app.fetch("/api/security-settings", {
      method: "POST",
      cookie: admin,
      json: { requireTwoFactor: true },
    });
    expect([200, 204]).toContain(on.status);
    try {
      const page = await app.fetch("/positions", { cookie: trader.cookie });
      expect(page.status).toBe(302);
      expect(page.headers.get("location")).toBe("/account");
      const api = await app.fetch("/api/positions", { cookie: trader.cookie });
      expect(api.status).toBe(403);
      expect(await api.json()).toEqual({ error: TWO_FACTOR_REQUIRED });
      const accountPage = await html(await app.fetch("/account", { cookie: trader.cookie }));
      expect(accountPage).toContain('data-testid="two-factor-required"');

      await account({ intent: "start" });
      const s3 = secretIn(await html(await app.fetch("/account", { cookie: trader.cookie })))!;
      await nextStep();
      expect((await account({ intent: "confirm", code: totpAt(s3) })).status).toBe(200);
      expect((await app.fetch("/api/positions", { cookie: trader.cookie })).status).toBe(200);
    } finally {
      await app.fetch("/api/security-settings", { method: "POST", cookie: admin, json: { requireTwoFactor: false } });
    }
  });
});

// Issue 23: an admin turned off their own 2FA with PATCH /api/users/<own id> {"twoFactor":false},
// no code. One's own 2FA goes off on the Account screen with a current code; an admin still
// resets someone else's.
describe.each(testDialects())("an admin's own two-factor authentication on %s", (dialect) => {
  const app = freshApp(dialect);
  let owner: { cookie: string; id: string };
  let other: { cookie: string; id: string };
  const enrol = async (cookie: string) => {
    await app.fetch("/account", { method: "POST", cookie, form: { intent: "start" } });
    const secret = secretIn(await html(await app.fetch("/account", { cookie })))!;
    expect(
      (await app.fetch("/account", { method: "POST", cookie, form: { intent: "confirm", code: totpAt(secret) } }))
        .status,
    ).toBe(200);
  };
  const enabled = async (id: string) =>
    (await app.database.db.selectFrom("users").select("totp_secret_enc").where("id", "=", id).executeTakeFirstOrThrow())
      .totp_secret_enc !== null;
  beforeAll(async () => {
    const a = await registerVia(app, "self_owner");
    owner = { cookie: a.cookie, id: a.user.id };
    const b = await registerVia(app, "self_other", "secret123", "admin");
    other = { cookie: b.cookie, id: b.user.id };
    await enrol(owner.cookie);
    await enrol(other.cookie);
  });

  test("PATCH /api/users/<own id> {twoFactor:false} is refused (403) and 2FA stays on; so is the Users screen's form", async () => {
    const api = await app.fetch(`/api/users/${owner.id}`, {
      method: "PATCH",
      cookie: owner.cookie,
      json: { twoFactor: false },
    });
    expect(api.status).toBe(403);
    expect(await api.json()).toEqual({ error: OWN_TWO_FACTOR });
    expect(await enabled(owner.id)).toBe(true);
    await app.fetch("/users", {
      method: "POST",
      cookie: owner.cookie,
      form: { intent: "update", id: owner.id, twoFactor: "false" },
    });
    expect(await enabled(owner.id)).toBe(true);
    // The Users screen offers no reset on one's own row.
    const page = await html(await app.fetch("/users", { cookie: owner.cookie }));
    expect(page).not.toContain('data-testid="reset-2fa-self_owner"');
    expect(page).toContain('data-testid="reset-2fa-self_other"');
  });

  test("another admin still resets it", async () => {
    const reset = await app.fetch(`/api/users/${owner.id}`, {
      method: "PATCH",
      cookie: other.cookie,
      json: { twoFactor: false },
    });
    expect(reset.status).toBe(200);
    expect(await enabled(owner.id)).toBe(false);
  });
});
