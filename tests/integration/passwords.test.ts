// Passwords after registration (issue 23, decision 041), on both databases, through the pages'
// plain form posts (as without JavaScript): a user changes their own password on Account (the
// current one required, the registration's rules, throttled against guessing, every OTHER
// session ended, audited); an admin makes a one-time reset link on Users (only its SHA-256
// stored, 1 h, single use, admin only, not for oneself) that sets a new password without a
// sign-in and ends every session of the account. No password or token reaches the trail or
// the activity log.
import { createHash } from "node:crypto";
import { beforeAll, describe, expect, test } from "vitest";
import {
  PASSWORD_CHANGE_THROTTLE,
  RESET_LINK_INVALID,
  WRONG_CURRENT_PASSWORD,
  passwordChangeKey,
} from "#app/services/passwords.server.ts";
import { type TestApp, cookieFrom, freshApp, html, registerVia } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");
async function signIn(
  app: TestApp,
  username: string,
  password: string,
): Promise<{ status: number; cookie: string | undefined }> {
  const response = await app.fetch("/api/login", { method: "POST", json: { username, password } });
  return { status: response.status, cookie: cookieFrom(response) };
}
const signedIn = async (app: TestApp, cookie: string) => (await app.fetch("/api/user", { cookie })).status === 200;

describe.each(testDialects())("passwords on %s", (dialect) => {
  const app = freshApp(dialect);
  const db = () => app.database.db;
  let admin: { cookie: string; id: string };
  let trader: { cookie: string; id: string };
  let viewer: { cookie: string; id: string };
  const audit = (action: string) =>
    db().selectFrom("audit_entries").selectAll().where("action", "=", action).orderBy("id").execute();
  const hashOf = async (id: string) =>
    (await db().selectFrom("users").select("password_hash").where("id", "=", id).executeTakeFirstOrThrow())
      .password_hash;

  beforeAll(async () => {
    const a = await registerVia(app, "pw_admin");
    admin = { cookie: a.cookie, id: a.user.id };
    const t = await registerVia(app, "pw_trader", "secret123", "trader");
    trader = { cookie: t.cookie, id: t.user.id };
    const v = await registerVia(app, "pw_viewer", "secret123", "viewer");
    viewer = { cookie: v.cookie, id: v.user.id };
  });

  const changePassword = (cookie: string, fields: Record<string, string>) =>
    app.fetch("/account", { method: "POST", cookie, form: { intent: "password", ...fields } });

  test("Account shows the change-password form as plain HTML (no JavaScript needed)", async () => {
    const page = await (await app.fetch("/account", { cookie: viewer.cookie })).text();
    expect(page).toContain('data-testid="change-password"');
    for (const name of ["currentPassword", "newPassword", "confirmPassword"]) expect(page).toContain(`name="${name}"`);
    expect(page).toContain('name="intent" value="password"');
    expect(page).toMatch(/<form[^>]*method="post"[^>]*action="\/account"/);
  });

  test("a wrong current password or a new one breaking the registration's rules changes nothing and says why", async () => {
    const before = await hashOf(viewer.id);
    const wrong = await changePassword(viewer.cookie, {
      currentPassword: "not-it-123",
      newPassword: "newsecret1",
      confirmPassword: "newsecret1",
    });
    expect(wrong.status).toBe(401);
    const wrongPage = await wrong.text();
    expect(wrongPage).toContain(WRONG_CURRENT_PASSWORD);
    expect(wrongPage).not.toContain("newsecret1"); // passwords are never sent back
    for (const [fields, message] of [
      [
        { currentPassword: "secret123", newPassword: "short", confirmPassword: "short" },
        "Password must be at least 6 characters",
      ],
      [
        { currentPassword: "secret123", newPassword: "newsecret1", confirmPassword: "newsecret2" },
        "Passwords don&#x27;t match",
      ],
      [
        { currentPassword: "secret123", newPassword: "secret123", confirmPassword: "secret123" },
        "The new password must differ from the current one",
      ],
      [
        { currentPassword: "", newPassword: "newsecret1", confirmPassword: "newsecret1" },
        "Current password is required",
      ],
      [
        { currentPassword: "secret123", newPassword: "x".repeat(101), confirmPassword: "x".repeat(101) },
        "Password must be at most 100 characters",
      ],
    ] as const) {
      const response = await changePassword(viewer.cookie, fields);
      expect(response.status, message).toBe(400);
      expect(await response.text()).toContain(message);
    }
    expect(await hashOf(viewer.id)).toBe(before);
    expect(await audit("user.password_change")).toEqual([]);
    await db().deleteFrom("login_throttles").where("key", "=", passwordChangeKey(viewer.id)).execute();
  });

  test("the right current password changes it: every OTHER session ends, this one stays; audited without the password", async () => {
    const other1 = (await signIn(app, "pw_viewer", "secret123")).cookie!;
    const other2 = (await signIn(app, "pw_viewer", "secret123")).cookie!;
    const current = (await signIn(app, "pw_viewer", "secret123")).cookie!;
    const adminBefore = await signedIn(app, admin.cookie);
    const response = await changePassword(current, {
      currentPassword: "secret123",
      newPassword: "fresh-secret-9",
      confirmPassword: "fresh-secret-9",
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/account");
    expect(await signedIn(app, current)).toBe(true);
    expect(await signedIn(app, other1)).toBe(false);
    expect(await signedIn(app, other2)).toBe(false);
    expect(await signedIn(app, viewer.cookie)).toBe(false); // the registration's session was another one
    expect(await signedIn(app, admin.cookie)).toBe(adminBefore); // other accounts untouched
    expect((await signIn(app, "pw_viewer", "secret123")).status).toBe(401);
    expect((await signIn(app, "pw_viewer", "fresh-secret-9")).status).toBe(200);
    const [entry, ...more] = await audit("user.password_change");
    expect(more).toEqual([]);
    expect(entry).toMatchObject({ actor: "pw_viewer", target: "pw_viewer" });
    expect(JSON.parse(entry!.changes)).toEqual({ password: { before: "(changed)", after: "(changed)" } });
    const logs = JSON.stringify(await db().selectFrom("activity_logs").select(["message", "data"]).execute());
    expect(logs).toContain("pw_viewer changed their password (3 other sessions signed out)");
    const everything = logs + JSON.stringify(await db().selectFrom("audit_entries").selectAll().execute());
    expect(everything).not.toContain("fresh-secret-9");
    viewer.cookie = current;
  });

  test("guessing the current password is throttled like the login: after 5 wrong tries even the right one waits (429), costing no hash check", async () => {
    const cookie = (await signIn(app, "pw_trader", "secret123")).cookie!;
    const before = await hashOf(trader.id);
    for (let i = 0; i < PASSWORD_CHANGE_THROTTLE.free; i++) {
      expect(
        (
          await changePassword(cookie, {
            currentPassword: `guess-${i}-xx`,
            newPassword: "another-1",
            confirmPassword: "another-1",
          })
        ).status,
      ).toBe(401);
    }
    // Parallel guesses get no more checks: all refused, and so is the right password now.
    const burst = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        changePassword(cookie, {
          currentPassword: `burst-${i}-xx`,
          newPassword: "another-1",
          confirmPassword: "another-1",
        }),
      ),
    );
    expect(burst.map((r) => r.status)).toEqual(Array(10).fill(429));
    const right = await changePassword(cookie, {
      currentPassword: "secret123",
      newPassword: "another-1",
      confirmPassword: "another-1",
    });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await right.text()).toMatch(/Too many wrong passwords\. Try again in \d+ seconds\./);
    expect(await hashOf(trader.id)).toBe(before);
    // Refusals write nothing: 5 wrong tries, 5 lines.
    const lines = await db()
      .selectFrom("activity_logs")
      .select("message")
      .where("message", "like", "Password change for pw_trader refused%")
      .execute();
    expect(lines).toHaveLength(PASSWORD_CHANGE_THROTTLE.free);
    // The lock passes (as if its time had come): the right password works and clears the count.
    await db()
      .updateTable("login_throttles")
      .set({ locked_until: Date.now() - 1 })
      .where("key", "=", passwordChangeKey(trader.id))
      .execute();
    expect(
      (
        await changePassword(cookie, {
          currentPassword: "secret123",
          newPassword: "another-1",
          confirmPassword: "another-1",
        })
      ).status,
    ).toBe(302);
    expect(
      await db()
        .selectFrom("login_throttles")
        .selectAll()
        .where("key", "=", passwordChangeKey(trader.id))
        .executeTakeFirst(),
    ).toBeUndefined();
    trader.cookie = cookie;
  });

  const resetLinkFor = async (id: string, cookie = admin.cookie) => {
    const response = await app.fetch("/users", { method: "POST", cookie, form: { intent: "reset-password", id } });
    return {
      response,
      url: /data-testid="reset-link-url"[^>]*value="([^"]+)"|value="([^"]+)"[^>]*data-testid="reset-link-url"/.exec(
        await response.clone().text(),
      ),
    };
  };
  const tokenOf = (match: RegExpExecArray | null) =>
    new URL((match![1] ?? match![2]!).replace(/&amp;/g, "&")).searchParams.get("token")!;

  test("Reset password is the admin's: others get 403, the own account is refused, nothing is stored", async () => {
    for (const cookie of [trader.cookie, viewer.cookie]) {
      expect((await resetLinkFor(admin.id, cookie)).response.status).toBe(403);
    }
    const anonymous = await app.fetch("/users", { method: "POST", form: { intent: "reset-password", id: trader.id } });
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get("location")).toMatch(/^\/login/);
    const own = await resetLinkFor(admin.id);
    expect(own.response.status).toBe(302); // back to /users with the refusal as a toast
    expect(own.url).toBeNull();
    expect(await db().selectFrom("password_resets").selectAll().execute()).toEqual([]);
    const page = await (await app.fetch("/users", { cookie: admin.cookie })).text();
    expect(page).toContain('data-testid="reset-password-pw_trader"');
    expect(page).not.toContain('data-testid="reset-password-pw_admin"');
  });

  test("a one-time link: shown once, stored as its hash, sets a new password without a sign-in, ends every session, then never works again", async () => {
    const sessions = [(await signIn(app, "pw_trader", "another-1")).cookie!, trader.cookie];
    const { response, url } = await resetLinkFor(trader.id);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const token = tokenOf(url);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 bits
    expect((url![1] ?? url![2])!).toMatch(/^http:\/\/localhost:5000\/reset-password\?token=/);
    const rows = await db().selectFrom("password_resets").selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      token_hash: sha256(token),
      user_id: trader.id,
      created_by: admin.id,
      used_at: null,
    });
    expect(Number(rows[0]!.expires_at) - Number(rows[0]!.created_at)).toBe(60 * 60 * 1000);
    // Shown once: the Users page itself does not show it again.
    expect(await (await app.fetch("/users", { cookie: admin.cookie })).text()).not.toContain(token);

    // The page the link opens: no sign-in, the form names the account.
    const page = await app.fetch(`/reset-password?token=${token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("no-store");
    const form = await page.text();
    expect(form).toContain(html("For the account pw_trader."));
    expect(form).toContain('name="newPassword"');
    // The registration's rules apply here too.
    const weak = await app.fetch("/reset-password", {
      method: "POST",
      form: { token, newPassword: "abc", confirmPassword: "abc" },
    });
    expect(weak.status).toBe(400);
    expect(await weak.text()).toContain("Password must be at least 6 characters");
    const mismatch = await app.fetch("/reset-password", {
      method: "POST",
      form: { token, newPassword: "chosen-pass-1", confirmPassword: "chosen-pass-2" },
    });
    expect(mismatch.status).toBe(400);

    const done = await app.fetch("/reset-password", {
      method: "POST",
      form: { token, newPassword: "chosen-pass-1", confirmPassword: "chosen-pass-1" },
    });
    expect(done.status).toBe(302);
    expect(done.headers.get("location")).toBe("/login");
    for (const cookie of sessions) expect(await signedIn(app, cookie)).toBe(false);
    expect((await signIn(app, "pw_trader", "another-1")).status).toBe(401);
    const fresh = await signIn(app, "pw_trader", "chosen-pass-1");
    expect(fresh.status).toBe(200);
    trader.cookie = fresh.cookie!;

    // Used up: the page and a second post say so; the password stays.
    const hash = await hashOf(trader.id);
    expect(await (await app.fetch(`/reset-password?token=${token}`)).text()).toContain(html(RESET_LINK_INVALID));
    const again = await app.fetch("/reset-password", {
      method: "POST",
      form: { token, newPassword: "hijacked-99", confirmPassword: "hijacked-99" },
    });
    expect(again.status).toBe(410);
    expect(await again.text()).toContain(html(RESET_LINK_INVALID));
    expect(await hashOf(trader.id)).toBe(hash);

    // Audited (admin made it, the user used it); no token, no password anywhere in the trail or the log.
    const [made] = await audit("user.password_reset_link");
    expect(made).toMatchObject({ actor: "pw_admin", target: "pw_trader" });
    const [used] = await audit("user.password_reset");
    expect(used).toMatchObject({ actor: "pw_trader", target: "pw_trader" });
    expect(JSON.parse(used!.changes)).toEqual({ password: { before: "(changed)", after: "(changed)" } });
    const everything =
      JSON.stringify(await db().selectFrom("audit_entries").selectAll().execute()) +
      JSON.stringify(await db().selectFrom("activity_logs").selectAll().execute());
    for (const secret of [token, sha256(token), "chosen-pass-1", "hijacked-99"])
      expect(everything.includes(secret), secret.slice(0, 6)).toBe(false);
    expect(everything).toContain("pw_trader set a new password through a one-time reset link (2 sessions signed out)");
  });

  test("a link expires after an hour, a newer link replaces an older one, and a made-up token is refused without a 5xx", async () => {
    const first = tokenOf((await resetLinkFor(trader.id)).url);
    const second = tokenOf((await resetLinkFor(trader.id)).url);
    expect(await (await app.fetch(`/reset-password?token=${first}`)).text()).toContain('data-testid="reset-invalid"');
    expect(await (await app.fetch(`/reset-password?token=${second}`)).text()).toContain('name="newPassword"');
    await db()
      .updateTable("password_resets")
      .set({ expires_at: Date.now() - 1 })
      .where("token_hash", "=", sha256(second))
      .execute();
    expect(await (await app.fetch(`/reset-password?token=${second}`)).text()).toContain('data-testid="reset-invalid"');
    const late = await app.fetch("/reset-password", {
      method: "POST",
      form: { token: second, newPassword: "too-late-1", confirmPassword: "too-late-1" },
    });
    expect(late.status).toBe(410);
    for (const token of ["", "x", "a".repeat(5000), "' OR 1=1 --", "%00", "\u0000"]) {
      const get = await app.fetch(`/reset-password?token=${encodeURIComponent(token)}`);
      expect(get.status, `GET ${token.slice(0, 10)}`).toBe(200);
      const post = await app.fetch("/reset-password", {
        method: "POST",
        form: { token, newPassword: "whatever-1", confirmPassword: "whatever-1" },
      });
      expect([400, 410], `POST ${token.slice(0, 10)}`).toContain(post.status);
    }
    expect((await signIn(app, "pw_trader", "chosen-pass-1")).status).toBe(200);
  });

  test("two posts of one link at once: exactly one sets the password", async () => {
    const token = tokenOf((await resetLinkFor(trader.id)).url);
    const answers = await Promise.all(
      ["race-pass-1", "race-pass-2"].map((password) =>
        app.fetch("/reset-password", {
          method: "POST",
          form: { token, newPassword: password, confirmPassword: password },
        }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([302, 410]);
    const wins = await Promise.all(
      ["race-pass-1", "race-pass-2"].map(async (password) => (await signIn(app, "pw_trader", password)).status),
    );
    expect(wins.sort()).toEqual([200, 401]);
  });
});
