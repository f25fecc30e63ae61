// Accounts, invitations and security settings (issue 10): the Users screen's forms and the
// /api/invites, /api/users and /api/security-settings contracts.
import { z } from "zod";
import { ROLES } from "#app/core/auth/permissions.ts";

const role = z.enum(ROLES, { error: "Role must be admin, trader or viewer" });

export const InviteCreateSchema = z.object({ role });

const flag = (error = "must be true or false") =>
  z.preprocess(
    (v) => (v === "true" || v === "on" ? true : v === "false" || v === "off" ? false : v),
    z.boolean({ error }),
  );

/**
 * A change to one account: its role, whether it is disabled, and `twoFactor: false` to
 * reset its two-factor authentication (a lost phone and no recovery code left: the owner
 * sets it up again). 2FA is only ever turned on by its owner.
 */
export const UserUpdateSchema = z
  .object({
    role: role.optional(),
    disabled: flag("disabled must be true or false").optional(),
    twoFactor: flag("twoFactor must be false: an admin can only reset two-factor authentication")
      .refine((v) => v === false, "twoFactor must be false: an admin can only reset two-factor authentication")
      .optional(),
  })
  .refine((v) => v.role !== undefined || v.disabled !== undefined || v.twoFactor !== undefined, {
    message: "Nothing to change: give role, disabled or twoFactor",
  });

export const SecuritySettingsSchema = z.object({
  registrationOpen: flag().optional(),
  requireTwoFactor: flag().optional(),
});
export type SecuritySettings = { registrationOpen: boolean; requireTwoFactor: boolean };
