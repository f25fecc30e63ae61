// The session policy: what a signed-in account must satisfy before it gets anything beyond
// setting itself up. One check for every entry point (docs/security.md, "Two-factor
// authentication"): pages and /api (requireUser), the /ws upgrade (server.ts) and the
// detailed view of /api/health. Today: when an admin requires 2FA for all, an account
// without it is refused.
import type { Kysely } from "kysely";
import { isTwoFactorRequired } from "#app/services/two-factor.server.ts";
import type { DB } from "#db/schema.ts";
import type { User } from "#db/queries/users.ts";

export const TWO_FACTOR_REQUIRED = "Two-factor authentication is required: set it up on the Account screen first";

/** Null when the account may use the app; otherwise the reason it may not (the message to show). */
export async function sessionPolicyRefusal(
  db: Kysely<DB>,
  user: Pick<User, "twoFactorEnabled">,
): Promise<string | null> {
  if (user.twoFactorEnabled) return null;
  return (await isTwoFactorRequired(db)) ? TWO_FACTOR_REQUIRED : null;
}
