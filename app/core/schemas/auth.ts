// Login and registration contracts, shared by the forms (client validation), the page
// actions and the JSON API. Messages are SPEC.md §5's, verbatim.
import { z } from "zod";

export const USERNAME_MIN = 3;
export const USERNAME_MAX = 20;
export const PASSWORD_MIN = 6;
export const PASSWORD_MAX = 100;

export const LoginSchema = z.object({
  username: z.string({ error: "Username is required" }).trim().min(1, "Username is required"),
  password: z.string({ error: "Password is required" }).min(1, "Password is required"),
  redirectTo: z.string().optional(),
});
export type LoginInput = z.infer<typeof LoginSchema>;

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

/** POST /api/register: SPEC.md §7 sends username and password only. */
export const RegisterApiSchema = z.object({ username, password });

/** The registration screen adds the confirmation field. */
export const RegisterFormSchema = z
  .object({
    username,
    password,
    confirmPassword: z.string({ error: "Please confirm your password" }),
    redirectTo: z.string().optional(),
  })
  .refine((v) => v.password === v.confirmPassword, {
    message: "Passwords don't match",
    path: ["confirmPassword"],
  });
export type RegisterInput = z.infer<typeof RegisterApiSchema>;
