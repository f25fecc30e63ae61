// Open redirects through dot segments (issue 23): "/.//evil.example", "/x/..//evil.example"
// and "/%2e//evil.example" normalise to "//evil.example", which a browser follows to another
// host. The login page, the second login step and the Positions forms' `back` field all
// decide on the normalised path (app/services/sessions.server.ts safeRedirect) and fall back to
// their default. Both databases.
import { beforeAll, describe, expect, test } from "vitest";
import { cookieFrom, freshApp, registerVia } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { totpAt } from "#tests/setup/totp.ts";

const HOSTILE = [
  "/.//evil.example",
  "/x/..//evil.example",
  "/%2e//evil.example",
  "/%2E%2E//evil.example/x",
  "/./\\evil.example",
  "/.%09//evil.example",
];

/** Where a browser goes when it follows this Location from our origin. */
const landsOn = (location: string | null) => new URL(location ?? "", "http://localhost:5000").host;

describe.each(testDialects())("redirects after sign-in and on Positions on %s", (dialect) => {
  const app = freshApp(dialect);
  let admin: string;
  let secret = "";
  beforeAll(async () => {
    admin = (await registerVia(app, "redirect_owner", "secret123")).cookie;
    await registerVia(app, "redirect_2fa", "secret123", "trader");
    // Enrolment as the Account screen does it (tests/integration/two-factor.test.ts).
    const twoFactor = cookieFrom(
      await app.fetch("/api/login", { method: "POST", json: { username: "redirect_2fa", password: "secret123" } }),
    )!;
    await app.fetch("/account", { method: "POST", cookie: twoFactor, form: { intent: "start" } });
    const page = await (await app.fetch("/account", { cookie: twoFactor })).text();
    secret = /data-testid="two-factor-secret"[^>]*>([A-Z2-7 ]+)</.exec(page)![1]!.replace(/ /g, "");
    expect(
      (
        await app.fetch("/account", {
          method: "POST",
          cookie: twoFactor,
          form: { intent: "confirm", code: totpAt(secret) },
        })
      ).status,
    ).toBe(200);
  });

  test.each(HOSTILE)("POST /login with redirectTo=%s stays on our host (/dashboard)", async (redirectTo) => {
    const response = await app.fetch("/login", {
      method: "POST",
      form: { username: "redirect_owner", password: "secret123", redirectTo },
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/dashboard");
    expect(landsOn(response.headers.get("location"))).toBe("localhost:5000");
  });

  test("POST /login keeps a harmless path, normalised", async () => {
    const response = await app.fetch("/login", {
      method: "POST",
      form: { username: "redirect_owner", password: "secret123", redirectTo: "/x/../positions?strategy=a" },
    });
    expect(response.headers.get("location")).toBe("/positions?strategy=a");
  });

  test.each(HOSTILE)("the second login step with redirectTo=%s stays on our host", async (redirectTo) => {
    // Each code is accepted once per 30 s step: forget the last accepted step.
    await app.database.db
      .updateTable("users")
      .set({ totp_last_step: null })
      .where("username", "=", "redirect_2fa")
      .execute();
    const first = await app.fetch("/login", {
      method: "POST",
      form: { username: "redirect_2fa", password: "secret123", redirectTo },
    });
    expect(first.headers.get("location")).toBe("/two-factor");
    const pending = cookieFrom(first, "tv_2fa")!;
    const second = await app.fetch("/two-factor", { method: "POST", cookie: pending, form: { code: totpAt(secret) } });
    expect(second.status).toBe(302);
    expect(second.headers.get("location")).toBe("/dashboard");
    expect(cookieFrom(second)).toBeDefined();
  });

  test.each(HOSTILE)("the Positions forms' back=%s goes back to /positions", async (back) => {
    const response = await app.fetch("/positions", {
      method: "POST",
      cookie: admin,
      form: { intent: "cancel-all", back },
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/positions");
  });

  test("the Positions forms' back still returns to the dashboard", async () => {
    const response = await app.fetch("/positions", {
      method: "POST",
      cookie: admin,
      form: { intent: "cancel-all", back: "/dashboard" },
    });
    expect(response.headers.get("location")).toBe("/dashboard");
  });
});
