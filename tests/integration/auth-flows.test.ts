// Login, registration and logout through the pages (plain form posts, as without
// JavaScript) and the JSON API: validation, sessions, throttling, cookies, CSRF.
import { createInvite } from "#db/queries/invites.ts";
import { beforeAll, describe, expect, test } from "vitest";
import { THROTTLE } from "#app/services/auth.server.ts";
import { cookieFrom, createTestApp, freshApp, registerVia } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";

describe.each(testDialects())("auth flows on %s", (dialect) => {
  const app = freshApp(dialect);
  beforeAll(async () => {
    await registerVia(app, "owner", "owner-pass");
  });

  test("registration form: server-side validation messages (SPEC §5), nothing written", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ username: "ab", password: "secret1", confirmPassword: "secret1" }, "Username must be at least 3 characters"],
      [
        { username: "a".repeat(21), password: "secret1", confirmPassword: "secret1" },
        "Username must be at most 20 characters",
      ],
      [
        { username: "bad name!", password: "secret1", confirmPassword: "secret1" },
        "Username can only contain letters, numbers, and underscores",
      ],
      [{ username: "gooduser", password: "secret1", confirmPassword: "secret2" }, "Passwords don&#x27;t match"],
      [{ username: "gooduser", password: "12345", confirmPassword: "12345" }, "Password must be at least 6 characters"],
      [{ username: "", password: "secret1", confirmPassword: "secret1" }, "Username is required"],
    ];
    // The form shows only with a valid invitation once the first account exists.
    const invite = (await createInvite(app.database.db, { role: "viewer", createdBy: null })).code;
    for (const [form, message] of cases) {
      const response = await app.fetch(`/register?invite=${invite}`, { method: "POST", form: { ...form, invite } });
      expect(response.status).toBe(400);
      expect(await response.text()).toContain(message);
    }
    const count = await app.database.db
      .selectFrom("users")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirst();
    expect(Number(count!.n)).toBe(1);
  });

  test("registration form: a taken name (any case) is refused with the Registration Failed toast", async () => {
    const invite = (await createInvite(app.database.db, { role: "viewer", createdBy: null })).code;
    const response = await app.fetch(`/register?invite=${invite}`, {
      method: "POST",
      form: { username: "OWNER", password: "secret1", confirmPassword: "secret1", invite },
    });
    expect(response.status).toBe(409);
    const html = await response.text();
    expect(html).toContain("Registration Failed");
    expect(html).toContain("Username already exists");
  });

  test("login form: required messages, then a wrong password gives Login Failed and the 401 text", async () => {
    const empty = await app.fetch("/login", { method: "POST", form: { username: "", password: "" } });
    expect(empty.status).toBe(400);
    const emptyHtml = await empty.text();
    expect(emptyHtml).toContain("Username is required");
    expect(emptyHtml).toContain("Password is required");

    const wrong = await app.fetch("/login", { method: "POST", form: { username: "owner", password: "nope-nope" } });
    expect(wrong.status).toBe(401);
    const html = await wrong.text();
    expect(html).toContain("Invalid username or password. Please try again.");
    expect(html).not.toContain("nope-nope");
  });

  test("login form without JavaScript: the server-rendered page says why, in the toast's words (issue 23)", async () => {
    // What a browser without JavaScript shows: the HTML outside scripts and styles (the action
    // data serialised for hydration is not on the screen).
    const visible = (page: string) => page.replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1>/gi, "");
    const alertText = (page: string) =>
      /<div[^>]*role="alert"[^>]*>([\s\S]*?)<\/div><\/div>/.exec(visible(page))?.[1]?.replace(/<[^>]+>/g, "");
    const wrong = await app.fetch("/login", { method: "POST", form: { username: "owner", password: "nope-nope-2" } });
    expect(wrong.status).toBe(401);
    const page = await wrong.text();
    expect(alertText(page)).toBe("Invalid username or password. Please try again.");
    expect(visible(page)).not.toContain("nope-nope-2");
    // The throttle's refusal too (an unknown name, so the owner's own pair stays clear).
    let locked: Response | undefined;
    for (let i = 0; i <= THROTTLE.pair.free && !locked; i++) {
      const answer = await app.fetch("/login", {
        method: "POST",
        form: { username: "nojs_stranger", password: `guess-${i}` },
      });
      if (answer.status === 429) locked = answer;
    }
    expect(locked).toBeDefined();
    expect(alertText(await locked!.text())).toMatch(/^Too many failed login attempts\. Try again in \d+ seconds\.$/);
  });

  test("login form: success redirects to redirectTo with a new session; unsafe redirects are ignored", async () => {
    const ok = await app.fetch("/login", {
      method: "POST",
      form: { username: "owner", password: "owner-pass", redirectTo: "/positions" },
    });
    expect(ok.status).toBe(302);
    expect(ok.headers.get("location")).toBe("/positions");
    const cookie = cookieFrom(ok)!;
    expect((await app.fetch("/positions", { cookie })).status).toBe(200);

    for (const evil of ["https://evil.example/", "//evil.example", "/\\evil.example"]) {
      const response = await app.fetch("/login", {
        method: "POST",
        form: { username: "owner", password: "owner-pass", redirectTo: evil },
      });
      expect(response.headers.get("location")).toBe("/dashboard");
    }
  });

  test("session is rotated on login: the cookie held before login is ended", async () => {
    const first = cookieFrom(
      await app.fetch("/api/login", { method: "POST", json: { username: "owner", password: "owner-pass" } }),
    )!;
    const second = await app.fetch("/api/login", {
      method: "POST",
      cookie: first,
      json: { username: "owner", password: "owner-pass" },
    });
    const rotated = cookieFrom(second)!;
    expect(rotated).not.toBe(first);
    expect((await app.fetch("/api/user", { cookie: first })).status).toBe(401);
    expect((await app.fetch("/api/user", { cookie: rotated })).status).toBe(200);
  });

  test("logout form: ends the session and shows the Logged Out toast on the login page", async () => {
    const cookie = cookieFrom(
      await app.fetch("/api/login", { method: "POST", json: { username: "owner", password: "owner-pass" } }),
    )!;
    const out = await app.fetch("/logout", { method: "POST", cookie });
    expect(out.status).toBe(302);
    expect(out.headers.get("location")).toBe("/login");
    const toastCookie = cookieFrom(out, "tv_toast")!;
    expect(toastCookie).toBeTruthy();
    expect((await app.fetch("/api/user", { cookie })).status).toBe(401);
    const page = await app.fetch("/login", { cookie: toastCookie });
    const html = await page.text();
    expect(html).toContain("Logged Out");
    expect(html).toContain("You have been successfully logged out");
  });

  test("API validation answers 400 naming the field; a taken name is 409", async () => {
    const bad = await app.fetch("/api/register", { method: "POST", json: { username: "x", password: "secret1" } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "Username must be at least 3 characters", field: "username" });
    const missing = await app.fetch("/api/login", { method: "POST", json: { username: "owner" } });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: "Password is required", field: "password" });
    const notJson = await app.fetch("/api/login", {
      method: "POST",
      body: "{nope",
      headers: { "Content-Type": "application/json" },
    });
    expect(notJson.status).toBe(400);
    // Without an invitation a stranger learns nothing about which names exist.
    const closed = await app.fetch("/api/register", {
      method: "POST",
      json: { username: "Owner", password: "secret1" },
    });
    expect(closed.status).toBe(403);
    const invite = (await createInvite(app.database.db, { role: "viewer", createdBy: null })).code;
    const taken = await app.fetch("/api/register", {
      method: "POST",
      json: { username: "Owner", password: "secret1", invite },
    });
    expect(taken.status).toBe(409);
    expect(await taken.json()).toEqual({ error: "Username already exists", field: "username" });
  });

  test("repeated failures lock the account for a while, answered 429 with Retry-After, and logged", async () => {
    await registerVia(app, "victim", "victim-pass");
    const statuses: number[] = [];
    for (let i = 0; i < THROTTLE.pair.free; i++) {
      statuses.push(
        (await app.fetch("/api/login", { method: "POST", json: { username: "victim", password: `wrong-${i}` } }))
          .status,
      );
    }
    expect(statuses).toEqual(Array(THROTTLE.pair.free).fill(401));
    // Locked now: even the right password is refused until the lock expires.
    const locked = await app.fetch("/api/login", {
      method: "POST",
      json: { username: "victim", password: "victim-pass" },
    });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await locked.json()).error).toMatch(/^Too many failed login attempts\. Try again in \d+ seconds\.$/);
    const logs = await app.database.db
      .selectFrom("activity_logs")
      .select(["message", "data"])
      .where("type", "=", "auth")
      .execute();
    expect(logs.some((l) => l.message === "Failed login for victim")).toBe(true);
    expect(logs.every((l) => !String(l.data).includes("wrong-") && !String(l.data).includes("victim-pass"))).toBe(true);

    // When the lock has passed, the right password works and clears the counter.
    await app.database.db
      .updateTable("login_throttles")
      .set({ locked_until: Date.now() - 1 })
      .where("key", "like", "pair:victim|%")
      .execute();
    const ok = await app.fetch("/api/login", { method: "POST", json: { username: "victim", password: "victim-pass" } });
    expect(ok.status).toBe(200);
    const row = await app.database.db
      .selectFrom("login_throttles")
      .selectAll()
      .where("key", "like", "pair:victim|%")
      .executeTakeFirst();
    expect(row).toBeUndefined();
  });

  test("an unknown user name costs the same answer as a wrong password", async () => {
    const response = await app.fetch("/api/login", {
      method: "POST",
      json: { username: "ghost_user", password: "whatever1" },
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: "Invalid username or password" });
  });

  test("passwords are stored as argon2id hashes", async () => {
    const row = await app.database.db
      .selectFrom("users")
      .select("password_hash")
      .where("username_key", "=", "owner")
      .executeTakeFirstOrThrow();
    expect(row.password_hash.startsWith("$argon2id$")).toBe(true);
    expect(row.password_hash).toContain("m=19456,t=2");
  });

  test("cross-site form posts are refused; same-origin ones pass", async () => {
    const foreign = await app.fetch("/login", {
      method: "POST",
      form: { username: "owner", password: "owner-pass" },
      headers: { Origin: "https://evil.example", Host: "localhost:5000" },
    });
    expect(foreign.status).toBe(403);
    const crossSite = await app.fetch("/api/logout", { method: "POST", headers: { "Sec-Fetch-Site": "cross-site" } });
    expect(crossSite.status).toBe(403);
    const same = await app.fetch("/login", {
      method: "POST",
      form: { username: "owner", password: "owner-pass" },
      headers: { Origin: "http://localhost:5000", Host: "localhost:5000", "Sec-Fetch-Site": "same-origin" },
    });
    expect(same.status).toBe(302);
  });

  test("security headers are set on pages and API answers", async () => {
    for (const path of ["/login", "/api/health"]) {
      const response = await app.fetch(path);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("cache-control")).toBe("no-store");
    }
  });
});

describe("Secure cookies behind https", () => {
  test("the session cookie is Secure when a trusted proxy says https", async () => {
    const app = await createTestApp("sqlite", { TRUST_PROXY: "true" });
    try {
      const response = await app.fetch("/api/register", {
        method: "POST",
        json: { username: "https_user", password: "secret1" }, // the first account: no invitation needed
        headers: { "X-Forwarded-Proto": "https" },
      });
      expect(response.status).toBe(201);
      expect(response.headers.getSetCookie().join("\n")).toMatch(/;\s*Secure/i);
    } finally {
      await app.cleanup();
    }
  });
});
