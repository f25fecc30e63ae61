// What the signed-in user's role may do, for hiding controls (the server enforces it anyway:
// app/core/auth/permissions.ts). The app layout's loader computes it; server-rendered, so a
// page without JavaScript hides the same controls.
import { type ReactNode, createContext, useContext } from "react";
import { type Permission, type Role, permissionsOf } from "#app/core/auth/permissions.ts";

interface PermissionsValue {
  role: Role | null;
  can: Record<Permission, boolean>;
}

const PermissionsContext = createContext<PermissionsValue>({ role: null, can: permissionsOf(null) });

export function PermissionsProvider({ role, children }: { role: Role; children: ReactNode }) {
  return (
    <PermissionsContext.Provider value={{ role, can: permissionsOf(role) }}>{children}</PermissionsContext.Provider>
  );
}

/** Whether the signed-in user's role has the permission. */
export function useCan(permission: Permission): boolean {
  return useContext(PermissionsContext).can[permission];
}

export function useRole(): Role | null {
  return useContext(PermissionsContext).role;
}
