import { describe, expect, test } from "vitest";
import { REDACTED, redact } from "#app/core/redact.ts";

describe("redact", () => {
  test("REDACTED is the marker the logs show", () => {
    expect(REDACTED).toBe("[redacted]");
  });

  test.each([
    "password",
    "Password",
    "newPassword",
    "secret",
    "apiSecret",
    "api_secret",
    "webhookSecret",
    "passphrase",
    "token",
    "accessToken",
    "refresh_token",
    "apiKey",
    "api_key",
    "API-KEY",
    "privateKey",
    "private_key",
    "authorization",
    "Authorization",
    "cookie",
    "Set-Cookie",
    "jwt",
  ])("a key named %s is redacted", (key) => {
    expect(redact({ [key]: "value-to-hide" })).toEqual({ [key]: REDACTED });
  });

  test.each(["username", "ip", "symbol", "price", "key", "id", "message", "monkey"])(
    "a key named %s is kept",
    (key) => {
      expect(redact({ [key]: "visible" })).toEqual({ [key]: "visible" });
    },
  );

  test("secret keys are redacted whatever their value's type", () => {
    expect(redact({ password: 12345, token: null, secret: { nested: "x" }, apiKey: ["a", "b"] })).toEqual({
      password: REDACTED,
      token: REDACTED,
      secret: REDACTED,
      apiKey: REDACTED,
    });
  });

  test("nested objects and arrays are walked", () => {
    const input = {
      user: { name: "bob", password: "pw" },
      exchanges: [{ name: "coinbase", api_key: "k", apiSecret: "s" }, { name: "sim" }],
      matrix: [[{ token: "t" }]],
      count: 3,
    };
    expect(redact(input)).toEqual({
      user: { name: "bob", password: REDACTED },
      exchanges: [{ name: "coinbase", api_key: REDACTED, apiSecret: REDACTED }, { name: "sim" }],
      matrix: [[{ token: REDACTED }]],
      count: 3,
    });
  });

  test("the input is not modified", () => {
    const input = { password: "pw", nested: { token: "t" } };
    const output = redact(input);
    expect(input).toEqual({ password: "pw", nested: { token: "t" } });
    expect(output).not.toBe(input);
    expect(output.nested).not.toBe(input.nested);
  });

  test("primitives, null and undefined come back unchanged", () => {
    expect(redact("a password string")).toBe("a password string");
    expect(redact(42)).toBe(42);
    expect(redact(true)).toBe(true);
    expect(redact(null)).toBeNull();
    expect(redact(undefined)).toBeUndefined();
    expect(redact(["password", 1])).toEqual(["password", 1]);
  });

  test("a secret nested deeper than the walk limit is still not returned", () => {
    // Whatever the depth limit does with deep values, it must not hand a secret back.
    let deep: Record<string, unknown> = { password: "deep-secret-value" };
    for (let i = 0; i < 12; i++) deep = { level: deep };
    expect(JSON.stringify(redact(deep))).not.toContain("deep-secret-value");
  });
});
