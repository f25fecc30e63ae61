// Login and registration contracts, shared by the forms (client validation), the page
// actions and the JSON API. Messages are those of docs/spec/api.md#validation, verbatim.
import { z } from "zod";

export const USERNAME_MIN = 3;
export const USERNAME_MAX = 20;
export const PASSWORD_MIN = 6;
export const PASSWORD_MAX = 100;

// The registration maxima bound the login too: a 1 MB "password" never reaches argon2.
export const LoginSchema = z.object({
  username: z
    .string({ error: "Username is required" })
    .trim()
    .min(1, "Username is required")
    .max(USERNAME_MAX, "Username must be at most 20 characters"),
  password: z
    .string({ error: "Password is required" })
    .min(1, "Password is required")
    .max(PASSWORD_MAX, "Password must be at most 100 characters"),
  redirectTo: z.string().optional(),
});

const username = z
  .string({ error: "Username is required" })
  .trim()
  .min(USERNAME_MIN, "Username must be at least 3 characters")
  .max(USERNAME_MAX, "Username must be at most 20 characters")
  .regex(/^[A-Za-z0-9_]+$/, "Username can only contain letters, numbers, and underscores");

const password = z
  .string({ error: "Password is required" })
  .min(PASSWORD_MIN, "Password must be at least 6 characters")
  .max(PASSWORD_MAX, "Password must be at most 100 characters");

/** The answer (403) and the registration screen's notice once registration needs an invitation. */
export const REGISTRATION_BY_INVITATION = "Registration is by invitation: ask the admin for an invite link";

/** An invitation code from an invite link (`/register?invite=<code>`). */
const invite = z.string().trim().max(64).optional();

/** POST /api/register: the username and password of docs/spec/api.md, plus the invitation (issue 10). */
export const RegisterApiSchema = z.object({ username, password, invite });

/** The registration screen adds the confirmation field. */
export const RegisterFormSchema = z
  .object({
    username,
    password,
    confirmPassword: z.string({ error: "Please confirm your password" }),
    redirectTo: z.string().optional(),
    invite,
  })
  .refine((v) => v.password === v.confirmPassword, {
    message: "Passwords don't match",
    path: ["confirmPassword"],
  });

/**
 * A second-factor code: the 6 digits of an authenticator app (spaces allowed, as apps show
 * "123 456"), or a recovery code ("abcde-fghij", case and dashes ignored). Normalised to
 * digits or to the recovery code's 10 letters and digits.
 */
export const TWO_FACTOR_CODE_MESSAGE = "Enter the 6-digit code from your authenticator app, or a recovery code";
export const TwoFactorCodeSchema = z
  .string({ error: "Code is required" })
  .max(40, TWO_FACTOR_CODE_MESSAGE)
  .transform((v) => v.replace(/[\s-]/g, "").toLowerCase())
  .pipe(
    z
      .string()
      .min(1, "Code is required")
      .regex(/^(\d{6}|[a-z0-9]{10})$/, TWO_FACTOR_CODE_MESSAGE),
  );

export const TwoFactorCodeFormSchema = z.object({ code: TwoFactorCodeSchema, redirectTo: z.string().optional() });

/**
 * Account → Change password (decision 041): the current password (bounded like the login's),
 * and a new one under the registration's rules, typed twice. Shared by the form (Conform, client
 * validation) and the /account action.
 */
export const ChangePasswordSchema = z
  .object({
    intent: z.literal("password").optional(),
    currentPassword: z
      .string({ error: "Current password is required" })
      .min(1, "Current password is required")
      .max(PASSWORD_MAX, "Password must be at most 100 characters"),
    newPassword: password,
    confirmPassword: z.string({ error: "Please confirm your password" }),
  })
  .refine((v) => v.newPassword === v.confirmPassword, { message: "Passwords don't match", path: ["confirmPassword"] })
  .refine((v) => v.newPassword !== v.currentPassword, {
    message: "The new password must differ from the current one",
    path: ["newPassword"],
  });

/** What the reset page says for a used, replaced or expired link (shared by the page and the service). */
export const RESET_LINK_INVALID =
  "This password reset link is not valid: it was used, replaced by a newer one, or has expired. Ask an admin for a new link.";

/** The page a one-time reset link opens (decision 041): a new password under the registration's rules, typed twice. */
export const ResetPasswordSchema = z
  .object({
    token: z
      .string({ error: "The reset link is incomplete" })
      .trim()
      .min(1, "The reset link is incomplete")
      .max(128, "The reset link is incomplete"),
    newPassword: password,
    confirmPassword: z.string({ error: "Please confirm your password" }),
  })
  .refine((v) => v.newPassword === v.confirmPassword, { message: "Passwords don't match", path: ["confirmPassword"] });
