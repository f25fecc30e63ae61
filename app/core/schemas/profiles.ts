// The Profiles dialogs and their API calls (docs/spec/api.md#validation, api.md): Create Profile (name), Transfer
// Funds (from, to, currency, amount: all required), Delete Profile (a destination from the
// other profiles). One schema per form, shared by the page action, the API and the browser.
import { z } from "zod";
import { D, isDecimalString } from "../decimal.ts";

const required = (message: string) => z.string({ error: message }).trim().min(1, message);

export const CreateProfileSchema = z.object({
  name: required("Profile name is required").max(100, "Profile name must be at most 100 characters"),
});

export const TransferSchema = z
  .object({
    fromProfileId: required("From profile is required"),
    toProfileId: required("To profile is required"),
    currency: required("Currency is required"),
    amount: required("Amount is required"),
  })
  .superRefine((v, ctx) => {
    if (!isDecimalString(v.amount) || !D(v.amount).gt(0)) {
      ctx.addIssue({ code: "custom", path: ["amount"], message: "Amount must be a positive number greater than 0" });
    }
    if (v.fromProfileId === v.toProfileId) {
      ctx.addIssue({ code: "custom", path: ["toProfileId"], message: "Choose a different profile to transfer to" });
    }
  });

export const DeleteProfileSchema = z
  .object({
    profileId: required("Profile is required"),
    toProfileId: required("Destination profile is required"),
  })
  .refine((v) => v.profileId !== v.toProfileId, {
    path: ["toProfileId"],
    message: "Choose a different profile to receive the funds",
  });

/** JSON bodies carry numbers too: the schemas take strings. */
export function stringFields(body: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = body[key];
    if (value === null || value === undefined) continue;
    out[key] = typeof value === "number" ? String(value) : value;
  }
  return out;
}
