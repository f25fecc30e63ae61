import { describe, expect, test } from "vitest";
import { cookieFrom, freshApp, registerVia } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";

describe.each(testDialects())("auth API on %s", (dialect) => {
  const app = freshApp(dialect);

  test("GET /api/user is 401 without a session", async () => {
    const response = await app.fetch("/api/user");
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: "Authentication required" });
  });

  test("the first account is admin, the second gets its invitation's role; login, user, logout", async () => {
    const admin = await registerVia(app, "first_admin");
    expect(admin.user.role).toBe("admin");
    const second = await registerVia(app, "second_user");
    expect(second.user.role).toBe("trader");

    const me = await app.fetch("/api/user", { cookie: second.cookie });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ username: "second_user", role: "trader" });

    const login = await app.fetch("/api/login", {
      method: "POST",
      json: { username: "FIRST_ADMIN", password: "secret123" },
    });
    expect(login.status).toBe(200);
    const cookie = cookieFrom(login)!;
    expect(cookie).toBeTruthy();
    const setCookie = login.headers.getSetCookie().join("\n");
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).not.toMatch(/Secure/i);

    const logout = await app.fetch("/api/logout", { method: "POST", cookie });
    expect(logout.status).toBe(200);
    expect((await app.fetch("/api/user", { cookie })).status).toBe(401);
  });
});
