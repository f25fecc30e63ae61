import { describe, expect, test } from "vitest";
import type { z } from "zod";
import {
  LoginSchema,
  PASSWORD_MAX,
  PASSWORD_MIN,
  RegisterApiSchema,
  RegisterFormSchema,
  TwoFactorCodeSchema,
  USERNAME_MAX,
  USERNAME_MIN,
} from "#app/core/schemas/auth.ts";

/** Each failing field with its messages, e.g. { username: ["Username is required"] }. */
function errors(schema: z.ZodType, input: unknown): Record<string, string[]> {
  const result = schema.safeParse(input);
  if (result.success) return {};
  const out: Record<string, string[]> = {};
  for (const issue of result.error.issues) (out[issue.path.join(".")] ??= []).push(issue.message);
  return out;
}

const valid = { username: "trader_01", password: "secret1" };

describe("LoginSchema (docs/spec/api.md#validation, login)", () => {
  test("missing fields: 'Username is required' and 'Password is required'", () => {
    expect(errors(LoginSchema, {})).toEqual({ username: ["Username is required"], password: ["Password is required"] });
  });

  test("empty or blank fields give the same messages", () => {
    expect(errors(LoginSchema, { username: "", password: "" })).toEqual({
      username: ["Username is required"],
      password: ["Password is required"],
    });
    expect(errors(LoginSchema, { username: "   ", password: "x" })).toEqual({ username: ["Username is required"] });
  });

  test("any non-empty credentials pass (no length rules at login); the username is trimmed", () => {
    const result = LoginSchema.safeParse({ username: "  Al ", password: "p", redirectTo: "/positions" });
    expect(result.success).toBe(true);
    expect(result.data).toEqual({ username: "Al", password: "p", redirectTo: "/positions" });
  });
});

describe("RegisterApiSchema (docs/spec/api.md#validation, registration)", () => {
  test("the bounds are 3..20 and 6..100", () => {
    expect([USERNAME_MIN, USERNAME_MAX, PASSWORD_MIN, PASSWORD_MAX]).toEqual([3, 20, 6, 100]);
  });

  test("a valid registration passes", () => {
    expect(RegisterApiSchema.parse(valid)).toEqual(valid);
  });

  test("missing fields are required", () => {
    expect(errors(RegisterApiSchema, {})).toEqual({
      username: ["Username is required"],
      password: ["Password is required"],
    });
  });

  test("username length: 'Username must be at least 3 characters' / 'Username must be at most 20 characters'", () => {
    expect(errors(RegisterApiSchema, { ...valid, username: "ab" })).toEqual({
      username: ["Username must be at least 3 characters"],
    });
    expect(errors(RegisterApiSchema, { ...valid, username: "a".repeat(21) })).toEqual({
      username: ["Username must be at most 20 characters"],
    });
    expect(errors(RegisterApiSchema, { ...valid, username: "abc" })).toEqual({});
    expect(errors(RegisterApiSchema, { ...valid, username: "a".repeat(20) })).toEqual({});
  });

  test("username characters: 'Username can only contain letters, numbers, and underscores'", () => {
    for (const username of ["bad name", "bad-name", "bad.name", "bäd", "name!"]) {
      expect(errors(RegisterApiSchema, { ...valid, username }), username).toEqual({
        username: ["Username can only contain letters, numbers, and underscores"],
      });
    }
    expect(errors(RegisterApiSchema, { ...valid, username: "Az_09" })).toEqual({});
  });

  test("surrounding spaces are trimmed before the rules apply", () => {
    expect(RegisterApiSchema.parse({ ...valid, username: "  alice  " }).username).toBe("alice");
    expect(errors(RegisterApiSchema, { ...valid, username: "  ab  " })).toEqual({
      username: ["Username must be at least 3 characters"],
    });
  });

  test("password length 6..100", () => {
    expect(errors(RegisterApiSchema, { ...valid, password: "12345" })).toEqual({
      password: ["Password must be at least 6 characters"],
    });
    expect(errors(RegisterApiSchema, { ...valid, password: "x".repeat(101) })).toEqual({
      password: ["Password must be at most 100 characters"],
    });
    expect(errors(RegisterApiSchema, { ...valid, password: "123456" })).toEqual({});
    expect(errors(RegisterApiSchema, { ...valid, password: "x".repeat(100) })).toEqual({});
  });
});

describe("RegisterFormSchema (docs/spec/api.md#validation, registration screen)", () => {
  test("matching confirmation passes", () => {
    expect(RegisterFormSchema.safeParse({ ...valid, confirmPassword: valid.password }).success).toBe(true);
  });

  test('a different confirmation gives "Passwords don\'t match" on confirmPassword', () => {
    expect(errors(RegisterFormSchema, { ...valid, confirmPassword: "secret2" })).toEqual({
      confirmPassword: ["Passwords don't match"],
    });
  });

  test("the field rules are the API's", () => {
    expect(errors(RegisterFormSchema, { username: "a b", password: "123", confirmPassword: "123" })).toEqual({
      username: ["Username can only contain letters, numbers, and underscores"],
      password: ["Password must be at least 6 characters"],
    });
  });
});

describe("login bounds and the second-factor code (issue 10)", () => {
  test("the login username and password have the registration maxima", () => {
    expect(LoginSchema.safeParse({ username: "a".repeat(20), password: "x" }).success).toBe(true);
    const long = LoginSchema.safeParse({ username: "a".repeat(21), password: "x" });
    expect(long.success).toBe(false);
    expect(long.error?.issues[0]?.message).toBe("Username must be at most 20 characters");
    expect(LoginSchema.safeParse({ username: "alice", password: "x".repeat(101) }).success).toBe(false);
  });

  test.each([
    ["123456", "123456"],
    ["123 456", "123456"],
    [" 654321 ", "654321"],
    ["ABCDE-FGHJK", "abcdefghjk"],
    ["abcde fghjk", "abcdefghjk"],
  ])("%j is accepted as %j", (input, normalised) => {
    expect(TwoFactorCodeSchema.parse(input)).toBe(normalised);
  });

  test.each(["", "12345", "1234567", "abcde-fghj", "12345a", "x".repeat(41), "<script>"])("%j is refused", (input) => {
    expect(TwoFactorCodeSchema.safeParse(input).success).toBe(false);
  });
});
