// What of the activity log a role may read (issue 10): IP addresses and other users'
// sign-in events are admin-only. Used by /api/logs, the Activity Logs screen and panel, and
// the live feed (server.ts sends non-admin sockets the sanitized copy of each event).
import { type Role, can } from "./permissions.ts";

/** Keys whose values are network addresses. */
const ADDRESS_KEYS = new Set(["ip", "clientip", "sourceip", "remoteaddress", "address", "ips"]);

/** A copy of `value` without address fields, at any depth. */
export function withoutAddresses<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutAddresses) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      if (!ADDRESS_KEYS.has(key.toLowerCase())) out[key] = withoutAddresses(inner);
    }
    return out as T;
  }
  return value;
}

export interface LogViewer {
  username: string;
  role: Role;
}

interface LogLike {
  type: string;
  data: Record<string, unknown>;
}

/** Whether a sign-in (type `auth`) entry concerns this user: their own logins, failures on their name. */
export function isAboutUser(entry: LogLike, username: string): boolean {
  const name = entry.data?.username;
  return typeof name === "string" && name.toLowerCase() === username.toLowerCase();
}

/** The entry as this viewer may read it, or null when hidden. */
export function logForViewer<T extends LogLike>(entry: T, viewer: LogViewer): T | null {
  if (can(viewer.role, "logs.sensitive")) return entry;
  if (entry.type === "auth" && !isAboutUser(entry, viewer.username)) return null;
  return { ...entry, data: withoutAddresses(entry.data ?? {}) };
}

/**
 * The live feed's copy of an event for non-admin sockets (which are not told whose socket
 * they are per event): sign-in entries are reduced to their type, addresses removed.
 * Returns the event itself when nothing needed removing.
 */
export function liveEventForNonAdmins<E extends { type: string; data: unknown }>(event: E): E {
  if (event.type !== "activity_log") return event;
  const data = (event.data ?? {}) as {
    type?: string;
    level?: string;
    message?: string;
    data?: Record<string, unknown>;
  };
  if (data.type === "auth")
    return { ...event, data: { type: "auth", level: data.level ?? "info", message: "", data: {} } };
  const stripped = withoutAddresses(data.data ?? {});
  return JSON.stringify(stripped) === JSON.stringify(data.data ?? {})
    ? event
    : { ...event, data: { ...data, data: stripped } };
}
