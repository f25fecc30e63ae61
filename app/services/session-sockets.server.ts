// Which /ws sockets belong to which session, so that ending a session (logout, a new login
// in the same browser) closes its live feed at once instead of leaving it streaming. The
// registry lives on globalThis: server.ts (which owns the sockets) and the Remix build
// (which ends sessions) hold separate copies of this module. Sessions ended by another web
// node, or expired, are caught by the periodic sweep in server.ts.
import { SESSION_ENDED_CODE } from "#app/core/live-close-codes.ts";

export interface ClosableSocket {
  close(code?: number, reason?: string): void;
}

const registry = ((globalThis as Record<symbol, unknown>)[Symbol.for("perpdesk.sessionSockets")] ??= new Map()) as Map<
  string,
  Set<ClosableSocket>
>;

export function trackSocket(token: string, socket: ClosableSocket): void {
  let sockets = registry.get(token);
  if (!sockets) {
    sockets = new Set();
    registry.set(token, sockets);
  }
  sockets.add(socket);
}

export function untrackSocket(token: string, socket: ClosableSocket): void {
  const sockets = registry.get(token);
  if (!sockets) return;
  sockets.delete(socket);
  if (sockets.size === 0) registry.delete(token);
}

/** Closes every socket of this session in this process; returns how many. */
export function closeSocketsOfSession(token: string): number {
  const sockets = registry.get(token);
  if (!sockets) return 0;
  registry.delete(token);
  for (const socket of sockets) {
    try {
      socket.close(SESSION_ENDED_CODE, "Session ended");
    } catch {
      // already closed
    }
  }
  return sockets.size;
}

/** The session tokens that have sockets open in this process. */
export function trackedSessions(): string[] {
  return [...registry.keys()];
}

/** How many sockets this session has open in this process. */
export function socketsOfSession(token: string): number {
  return registry.get(token)?.size ?? 0;
}
