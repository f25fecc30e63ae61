// Who may do what (issue 10, docs/spec/roles.md): the one table the server enforces
// (requirePermission in app/services/sessions.server.ts) and the screens read to hide what a role
// cannot do. Reading is open to every signed-in role; anything that changes state is listed
// here, and what a role is not granted is refused with a 403.
export const ROLES = ["admin", "trader", "viewer"] as const;
export type Role = (typeof ROLES)[number];
export const isRole = (value: unknown): value is Role => ROLES.includes(value as Role);

const ADMIN = ["admin"] as const;
const TRADERS = ["admin", "trader"] as const;
const EVERYONE = ["admin", "trader", "viewer"] as const;

export const PERMISSIONS = {
  /** Manual orders: the dashboard and Manual Trading forms, POST /api/trades. */
  "orders.place": TRADERS,
  /** Closing a position at market (Positions' Close, POST /api/positions/{symbol}/close). */
  "positions.close": TRADERS,
  /** Cancelling resting orders. */
  "orders.cancel": TRADERS,
  /** Resolving a drift alarm (adopt the exchange's position, or adopt and close it). */
  "drifts.resolve": TRADERS,
  /** Anyone may stop trading... */
  "emergency.activate": EVERYONE,
  /** ...only an admin resumes it. */
  "emergency.reset": ADMIN,
  "stats.reset": ADMIN,
  "rules.apply": ADMIN,
  /** Paper/Coinbase profiles: create, transfer funds, delete. */
  "profiles.manage": ADMIN,
  "reports.generate": ADMIN,
  /** Exchanges, credentials, API settings, webhook config and secret, trading rules. */
  "settings.change": ADMIN,
  /** Strategies: create, edit, enable/disable, rotate their secrets, delete (decision 027). */
  "strategies.manage": ADMIN,
  "users.manage": ADMIN,
  /** Activity-log IP addresses and other users' sign-in events. */
  "logs.sensitive": ADMIN,
  /** The audit trail (issue 13, decision 029): GET /api/audit and the Audit trail screen. */
  "audit.read": ADMIN,
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;
export const PERMISSION_NAMES = Object.keys(PERMISSIONS) as Permission[];

/** What the refusal says the role could not do. */
const DESCRIPTIONS: Record<Permission, string> = {
  "orders.place": "place orders",
  "positions.close": "close positions",
  "orders.cancel": "cancel orders",
  "drifts.resolve": "resolve drift alarms",
  "emergency.activate": "activate the emergency stop",
  "emergency.reset": "reset the emergency stop",
  "stats.reset": "reset statistics",
  "rules.apply": "apply trading rules to positions",
  "profiles.manage": "change profiles",
  "reports.generate": "generate reports",
  "settings.change": "change settings",
  "strategies.manage": "manage strategies",
  "users.manage": "manage users",
  "logs.sensitive": "read other users' sign-in details",
  "audit.read": "read the audit trail",
};

export function can(role: Role | null | undefined, permission: Permission): boolean {
  return role != null && (PERMISSIONS[permission] as readonly Role[]).includes(role);
}

/** Every permission of a role, for the screens (server-rendered, so it holds without JavaScript). */
export function permissionsOf(role: Role | null | undefined): Record<Permission, boolean> {
  return Object.fromEntries(PERMISSION_NAMES.map((p) => [p, can(role, p)])) as Record<Permission, boolean>;
}

export function refusalMessage(role: Role, permission: Permission): string {
  return `Your role (${role}) is not allowed to ${DESCRIPTIONS[permission]}`;
}
