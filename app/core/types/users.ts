// Users as the app knows them (docs/spec/roles.md); db/queries/users.ts stores them.
import type { Role } from "#app/core/auth/permissions.ts";

export interface User {
  id: string;
  username: string;
  role: Role;
  createdAt: string;
  disabled: boolean;
  lastLoginAt: string | null;
  twoFactorEnabled: boolean;
}

export interface UserWithPassword extends User {
  passwordHash: string;
}

/** A second account with the same username (case-insensitive): registration and Users say so. */
export class UsernameTakenError extends Error {
  constructor() {
    super("Username already exists");
  }
}
