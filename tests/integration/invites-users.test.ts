// Registration by invitation, open registration, and the admin's account management
// (issue 10), through the JSON API and the registration page, on both databases.
import { beforeAll, describe, expect, test } from "vitest";
import { REGISTRATION_BY_INVITATION } from "#app/services/auth.server.ts";
import { LAST_ADMIN } from "#app/services/users.server.ts";
import { createInvite } from "#db/queries/invites.ts";
import { cookieFrom, createTestApp, freshApp, registerVia } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";

describe.each(testDialects())("invitations and users on %s", (dialect) => {
  const app = freshApp(dialect);
  let admin: string;
  beforeAll(async () => {
    admin = (await registerVia(app, "owner")).cookie;
  });

  const register = (body: Record<string, string | undefined>) =>
    app.fetch("/api/register", { method: "POST", json: { password: "secret123", ...body } });
  const createInviteApi = async (role: string, cookie = admin) =>
    app.fetch("/api/invites", { method: "POST", cookie, json: { role } });
  const userCount = async () =>
    Number(
      (
        await app.database.db
          .selectFrom("users")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  test("after the first account, registering without an invitation is 403 with the message, and writes nothing", async () => {
    const before = await userCount();
    for (const body of [
      { username: "stranger" },
      { username: "stranger", invite: "made-up-code" },
      { username: "stranger", invite: "" },
    ] as Record<string, string>[]) {
      const response = await register(body);
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ error: REGISTRATION_BY_INVITATION });
      expect(response.headers.getSetCookie().join("")).not.toContain("tv_session");
    }
    expect(await userCount()).toBe(before);
  });

  test("POST /api/invites answers 201 {code, role, expiresAt, url}; JSON and form posts alike; GET lists; bad role is 400", async () => {
    const response = await createInviteApi("trader");
    expect(response.status).toBe(201);
    const invite = (await response.json()) as { code: string; role: string; expiresAt: string; url: string };
    expect(Object.keys(invite).sort()).toEqual(["code", "expiresAt", "role", "url"]);
    expect(invite.role).toBe("trader");
    expect(invite.code).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(invite.url).toBe(`http://localhost:5000/register?invite=${invite.code}`);
    const days = (Date.parse(invite.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);

    const form = await app.fetch("/api/invites", { method: "POST", cookie: admin, form: { role: "viewer" } });
    expect(form.status).toBe(201);
    expect(((await form.json()) as { role: string }).role).toBe("viewer");

    const list = (await (await app.fetch("/api/invites", { cookie: admin })).json()) as { code: string }[];
    expect(list.map((i) => i.code)).toContain(invite.code);

    const bad = await createInviteApi("root");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ field: "role" });
  });

  test("the invite URL uses PUBLIC_URL when set", async () => {
    const other = await createTestApp("sqlite", {
      PUBLIC_URL: "https://trade.example.com/",
      ALLOWED_HOSTS: "localhost",
    });
    try {
      const first = await registerVia(other, "boss");
      const response = await other.fetch("/api/invites", {
        method: "POST",
        cookie: first.cookie,
        json: { role: "viewer" },
      });
      const invite = (await response.json()) as { code: string; url: string };
      expect(invite.url).toBe(`https://trade.example.com/register?invite=${invite.code}`);
    } finally {
      await other.cleanup();
    }
  });

  test("an invitation makes one account with its role, once; used, revoked and expired codes are refused", async () => {
    const { code } = (await (await createInviteApi("viewer")).json()) as { code: string };
    const ok = await register({ username: "invited_viewer", invite: code });
    expect(ok.status).toBe(201);
    expect(await ok.json()).toMatchObject({ username: "invited_viewer", role: "viewer" });
    expect(cookieFrom(ok)).toBeTruthy();

    const again = await register({ username: "second_try", invite: code });
    expect(again.status).toBe(403);
    expect(await again.json()).toEqual({ error: REGISTRATION_BY_INVITATION });

    const revoked = (await (await createInviteApi("trader")).json()) as { code: string };
    expect((await app.fetch(`/api/invites/${revoked.code}`, { method: "DELETE", cookie: admin })).status).toBe(200);
    expect((await app.fetch(`/api/invites/${revoked.code}`, { method: "DELETE", cookie: admin })).status).toBe(404);
    expect((await register({ username: "revoked_one", invite: revoked.code })).status).toBe(403);

    const expired = await createInvite(app.database.db, {
      role: "admin",
      createdBy: null,
      now: Date.now() - 8 * 86_400_000,
    });
    expect((await register({ username: "late_one", invite: expired.code })).status).toBe(403);
    expect(
      await app.database.db
        .selectFrom("users")
        .select("username")
        .where("username", "in", ["second_try", "revoked_one", "late_one"])
        .execute(),
    ).toEqual([]);
  });

  test("ten parallel registrations with one code make exactly one account", async () => {
    const { code } = (await (await createInviteApi("trader")).json()) as { code: string };
    const before = await userCount();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => register({ username: `racer_${i}`, invite: code })),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 403)).toHaveLength(9);
    expect(await userCount()).toBe(before + 1);
    const row = await app.database.db
      .selectFrom("invites")
      .selectAll()
      .where("code", "=", code)
      .executeTakeFirstOrThrow();
    expect(row.used_at).not.toBeNull();
  });

  test("the registration page: closed notice without a valid invitation, the form with one (and it works without JavaScript)", async () => {
    const closed = await (await app.fetch("/register")).text();
    expect(closed).toContain(REGISTRATION_BY_INVITATION);
    expect(closed).not.toContain('name="confirmPassword"');
    const invalid = await (await app.fetch("/register?invite=nope")).text();
    expect(invalid).toContain("This invite link is not valid any more");

    const { code } = (await (await createInviteApi("trader")).json()) as { code: string };
    const page = await (await app.fetch(`/register?invite=${code}`)).text();
    expect(page).toContain('name="confirmPassword"');
    expect(page).toContain(`value="${code}"`);
    expect(page).toContain("This account will be a trader.");

    const refused = await app.fetch("/register", {
      method: "POST",
      form: { username: "no_invite", password: "secret123", confirmPassword: "secret123" },
    });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain(REGISTRATION_BY_INVITATION);

    const posted = await app.fetch(`/register?invite=${code}`, {
      method: "POST",
      form: { username: "form_trader", password: "secret123", confirmPassword: "secret123", invite: code },
    });
    expect(posted.status).toBe(302);
    const me = await (await app.fetch("/api/user", { cookie: cookieFrom(posted)! })).json();
    expect(me).toMatchObject({ username: "form_trader", role: "trader" });
  });

  test("open registration (admin setting) makes viewers without an invitation", async () => {
    const on = await app.fetch("/api/security-settings", {
      method: "POST",
      cookie: admin,
      json: { registrationOpen: true },
    });
    expect(await on.json()).toEqual({ registrationOpen: true, requireTwoFactor: false });
    const response = await register({ username: "walk_in" });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ role: "viewer" });
    expect(await (await app.fetch("/register")).text()).toContain("This account will be a viewer (read-only).");
    await app.fetch("/api/security-settings", { method: "POST", cookie: admin, form: { registrationOpen: "false" } });
    expect((await register({ username: "walk_in_2" })).status).toBe(403);
  });

  test("invitations, users and security settings are admin only", async () => {
    const trader = (await registerVia(app, "plain_trader")).cookie;
    for (const [method, path] of [
      ["GET", "/api/invites"],
      ["POST", "/api/invites"],
      ["DELETE", "/api/invites/x"],
      ["GET", "/api/users"],
      ["PATCH", "/api/users/x"],
      ["DELETE", "/api/users/x"],
      ["GET", "/api/security-settings"],
      ["POST", "/api/security-settings"],
    ] as const) {
      expect(
        (
          await app.fetch(path, {
            method,
            cookie: trader,
            json: method === "GET" || method === "DELETE" ? undefined : { role: "admin" },
          })
        ).status,
        `${method} ${path}`,
      ).toBe(403);
      expect((await app.fetch(path, { method })).status, `${method} ${path} anonymous`).toBe(401);
    }
  });

  test("disable ends the sessions at once and refuses login; enable lets the account back; role change signs out; delete removes it", async () => {
    const victim = await registerVia(app, "soon_disabled", "secret123", "trader");
    const users = (await (await app.fetch("/api/users", { cookie: admin })).json()) as {
      id: string;
      username: string;
      twoFactorEnabled: boolean;
      lastLoginAt: string | null;
    }[];
    const row = users.find((u) => u.username === "soon_disabled")!;
    expect(row).toMatchObject({ twoFactorEnabled: false });

    const disabled = await app.fetch(`/api/users/${row.id}`, {
      method: "PATCH",
      cookie: admin,
      json: { disabled: true },
    });
    expect(await disabled.json()).toMatchObject({ disabled: true, role: "trader" });
    expect((await app.fetch("/api/user", { cookie: victim.cookie })).status).toBe(401);
    const login = await app.fetch("/api/login", {
      method: "POST",
      json: { username: "soon_disabled", password: "secret123" },
    });
    expect(login.status).toBe(401);

    await app.fetch(`/api/users/${row.id}`, {
      method: "PATCH",
      cookie: admin,
      json: { disabled: false, role: "viewer" },
    });
    const back = await app.fetch("/api/login", {
      method: "POST",
      json: { username: "soon_disabled", password: "secret123" },
    });
    expect(back.status).toBe(200);
    expect(await back.json()).toMatchObject({ role: "viewer" });
    const after = (await (await app.fetch("/api/users", { cookie: admin })).json()) as {
      username: string;
      lastLoginAt: string | null;
    }[];
    expect(after.find((u) => u.username === "soon_disabled")!.lastLoginAt).toMatch(/^\d{4}-/);

    const roleChange = await app.fetch(`/api/users/${row.id}`, {
      method: "PATCH",
      cookie: admin,
      json: { role: "trader" },
    });
    expect(roleChange.status).toBe(200);
    expect((await app.fetch("/api/user", { cookie: cookieFrom(back)! })).status).toBe(401);

    expect((await app.fetch(`/api/users/${row.id}`, { method: "DELETE", cookie: admin })).status).toBe(200);
    expect((await app.fetch(`/api/users/${row.id}`, { method: "DELETE", cookie: admin })).status).toBe(404);
    expect(
      (await app.fetch("/api/login", { method: "POST", json: { username: "soon_disabled", password: "secret123" } }))
        .status,
    ).toBe(401);
  });

  test("the last active admin cannot be demoted, disabled or deleted, even by two admins demoting each other at once", async () => {
    const users = (await (await app.fetch("/api/users", { cookie: admin })).json()) as {
      id: string;
      username: string;
    }[];
    const ownerId = users.find((u) => u.username === "owner")!.id;
    for (const [method, json] of [
      ["PATCH", { role: "trader" }],
      ["PATCH", { disabled: true }],
      ["DELETE", undefined],
    ] as const) {
      const response = await app.fetch(`/api/users/${ownerId}`, { method, cookie: admin, json });
      expect(response.status).toBe(409);
      expect(await response.json()).toEqual({ error: LAST_ADMIN });
    }
    const second = await registerVia(app, "second_admin", "secret123", "admin");
    const secondId = second.user.id;
    const [a, b] = await Promise.all([
      app.fetch(`/api/users/${secondId}`, { method: "PATCH", cookie: admin, json: { role: "viewer" } }),
      app.fetch(`/api/users/${ownerId}`, { method: "PATCH", cookie: second.cookie, json: { role: "viewer" } }),
    ]);
    // One wins. The other is refused: either its change found itself the last admin (409), or
    // the winner's demotion had already closed its sessions when its request was
    // authenticated (401). Which one depends on the interleaving; neither changes anything.
    const statuses = [a.status, b.status].sort();
    expect(statuses[0]).toBe(200);
    expect([401, 409]).toContain(statuses[1]);
    const admins = await app.database.db
      .selectFrom("users")
      .select("id")
      .where("role", "=", "admin")
      .where("disabled", "=", 0)
      .execute();
    expect(admins.map((u) => u.id)).toEqual([a.status === 200 ? ownerId : secondId]);
  });
});

// Issue 23: an invitation outlived its creator (an admin minted an admin invite, was deleted,
// and the invite still made a new admin). Deleting, disabling or demoting an account revokes
// its open invitations in the same transaction, and an invitation is valid only while its
// creator may still mint it.
describe.each(testDialects())("invitations follow their creator on %s", (dialect) => {
  const app = freshApp(dialect);
  let owner: string;
  beforeAll(async () => {
    owner = (await registerVia(app, "inv_owner")).cookie;
  });

  const mint = async (cookie: string, role = "admin") =>
    ((await (await app.fetch("/api/invites", { method: "POST", cookie, json: { role } })).json()) as { code: string })
      .code;
  const inviteRow = (code: string) =>
    app.database.db.selectFrom("invites").selectAll().where("code", "=", code).executeTakeFirst();
  const accountNamed = (username: string) =>
    app.database.db.selectFrom("users").select("id").where("username", "=", username).executeTakeFirst();
  /** The invitation tried both ways a stranger can: the API and the registration page. */
  async function expectRefused(code: string, username: string) {
    const api = await app.fetch("/api/register", {
      method: "POST",
      json: { username, password: "secret123", invite: code },
    });
    expect(api.status).toBe(403);
    expect(await api.json()).toEqual({ error: REGISTRATION_BY_INVITATION });
    const page = await app.fetch(`/register?invite=${code}`);
    expect(await page.text()).not.toContain('name="invite"');
    expect(await accountNamed(username)).toBeUndefined();
    const listed = (await (await app.fetch("/api/invites", { cookie: owner })).json()) as { code: string }[];
    expect(listed.map((i) => i.code)).not.toContain(code);
  }
  const otherAdmin = async (name: string) => {
    const made = await registerVia(app, name, "secret123", "admin");
    return { id: made.user.id, cookie: made.cookie };
  };

  for (const [what, change] of [
    ["deleted", (id: string) => app.fetch(`/api/users/${id}`, { method: "DELETE", cookie: owner })],
    [
      "disabled",
      (id: string) => app.fetch(`/api/users/${id}`, { method: "PATCH", cookie: owner, json: { disabled: true } }),
    ],
    [
      "demoted",
      (id: string) => app.fetch(`/api/users/${id}`, { method: "PATCH", cookie: owner, json: { role: "trader" } }),
    ],
  ] as const) {
    test(`an admin ${what}: its open invitations are revoked at once and register nobody`, async () => {
      const creator = await otherAdmin(`creator_${what}`);
      const asAdmin = await mint(creator.cookie, "admin");
      const asViewer = await mint(creator.cookie, "viewer");
      const ownersOwn = await mint(owner, "trader");
      expect(await inviteRow(asAdmin)).toBeDefined();
      expect((await change(creator.id)).status).toBe(200);
      expect(await inviteRow(asAdmin)).toBeUndefined();
      expect(await inviteRow(asViewer)).toBeUndefined();
      await expectRefused(asAdmin, `new_admin_${what}`);
      await expectRefused(asViewer, `new_viewer_${what}`);
      // Another admin's invitation is untouched.
      expect(await inviteRow(ownersOwn)).toBeDefined();
      const log = await app.database.db
        .selectFrom("activity_logs")
        .select("message")
        .where("message", "like", `%creator_${what}%2 open invitations revoked%`)
        .execute();
      expect(log).toHaveLength(1);
    });
  }

  test("checked at redemption too: a creator that stopped being an active admin some other way mints nothing", async () => {
    const creator = await otherAdmin("creator_elsewhere");
    const code = await mint(creator.cookie, "admin");
    // Demoted without the service (as another tool or an old process would): the row stays...
    await app.database.db.updateTable("users").set({ role: "viewer" }).where("id", "=", creator.id).execute();
    expect(await inviteRow(code)).toBeDefined();
    // ...but it no longer registers anyone, nor is it listed as open.
    await expectRefused(code, "new_admin_elsewhere");
    // Back to admin: the invitation works again (it was never used).
    await app.database.db.updateTable("users").set({ role: "admin" }).where("id", "=", creator.id).execute();
    const made = await app.fetch("/api/register", {
      method: "POST",
      json: { username: "new_admin_back", password: "secret123", invite: code },
    });
    expect(made.status).toBe(201);
    expect(((await made.json()) as { role: string }).role).toBe("admin");
    // A creator whose row is gone (deleted behind the service's back) mints nothing either.
    const gone = await otherAdmin("creator_gone");
    const orphan = await mint(gone.cookie, "trader");
    await app.database.db.deleteFrom("sessions").where("user_id", "=", gone.id).execute();
    await app.database.db.deleteFrom("users").where("id", "=", gone.id).execute();
    await expectRefused(orphan, "new_trader_orphan");
  });
});
