// Server-side sessions: what a session row is and how long it may live; db/queries/sessions.ts stores them.

export interface SessionInfo {
  id: string;
  userId: string;
  createdAt: number;
  expiresAt: number;
  lastSeenAt: number;
}

export interface SessionPolicy {
  /** Session ends this long after the last request. */
  idleMs: number;
  /** Session ends this long after login, whatever the activity. */
  absoluteMs: number;
}
