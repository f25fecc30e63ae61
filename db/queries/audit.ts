// The audit trail (issue 13, decision 029): one row per change of settings, credentials, roles,
// trading rules, the emergency stop and every reset. recordAudit takes the caller's transaction
// so the entry commits (or rolls back) with the change. No reset and no housekeeping deletes
// these rows. Secrets never reach `changes`: app/core/redact.ts marks them, and they are stored
// as "(changed)".
import { REDACTED, redact } from "../../app/core/redact.ts";
import { currentRequestOrigin } from "../../app/core/request-origin.ts";
import { type Db, nowMs, parseJson, toIso } from "./util.ts";

export const SECRET_CHANGED = "(changed)";

export interface NewAuditEntry {
  /** The username, or "system". */
  actor: string;
  /** A short key, e.g. "trading_config.update". */
  action: string;
  /** What changed, e.g. a strategy id or "webhook_secret". */
  target: string;
  /** The fields before the change (omit for a creation). */
  before?: Record<string, unknown> | null;
  /** The fields after the change (omit for a deletion). */
  after?: Record<string, unknown> | null;
  /** The client's address; by default the one of the request being served (app/core/request-origin.ts), none outside a request. */
  ip?: string | null;
}

import type { AuditChanges } from "#app/core/types/audit.ts";

/** The domain types live in app/core (decision 042); callers may keep importing them from here. */
export type { AuditChanges } from "#app/core/types/audit.ts";

export interface AuditEntry {
  id: number;
  createdAt: string;
  actor: string;
  action: string;
  target: string;
  changes: AuditChanges;
  ip: string | null;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Only the fields that differ, secrets (by field name, at any depth) as "(changed)". */
export function auditChanges(
  before: Record<string, unknown> | null | undefined,
  after: Record<string, unknown> | null | undefined,
): AuditChanges {
  const b = (redact(before ?? {}) ?? {}) as Record<string, unknown>;
  const a = (redact(after ?? {}) ?? {}) as Record<string, unknown>;
  const rawB = before ?? {};
  const rawA = after ?? {};
  const out: AuditChanges = {};
  for (const key of new Set([...Object.keys(rawB), ...Object.keys(rawA)])) {
    if (same(rawB[key], rawA[key])) continue;
    const change: { before?: unknown; after?: unknown } = {};
    if (before && key in rawB) change.before = b[key];
    if (after && key in rawA) change.after = a[key];
    out[key] = change;
  }
  // redact() writes "[redacted]" for a secret; the trail says only that it changed.
  return JSON.parse(
    JSON.stringify(out).replaceAll(JSON.stringify(REDACTED), JSON.stringify(SECRET_CHANGED)),
  ) as AuditChanges;
}

/** Writes nothing when no field changed. */
export async function recordAudit(db: Db, entry: NewAuditEntry): Promise<void> {
  const changes = auditChanges(entry.before, entry.after);
  if (Object.keys(changes).length === 0) return;
  await db
    .insertInto("audit_entries")
    .values({
      created_at: nowMs(),
      actor: entry.actor.slice(0, 64),
      action: entry.action.slice(0, 64),
      target: entry.target.slice(0, 128),
      changes: JSON.stringify(changes),
      ip: (entry.ip ?? currentRequestOrigin()?.ip)?.slice(0, 64) ?? null,
    })
    .execute();
}

export const AUDIT_PAGE_MAX = 200;

/** Newest first; `before` is the id cursor (the last id of the previous page). */
export async function listAudit(
  db: Db,
  options: { before?: number | null; limit?: number } = {},
): Promise<{ entries: AuditEntry[]; nextBefore: number | null }> {
  const limit = Math.min(Math.max(Math.trunc(options.limit ?? 50) || 50, 1), AUDIT_PAGE_MAX);
  let query = db
    .selectFrom("audit_entries")
    .selectAll()
    .orderBy("id", "desc")
    .limit(limit + 1);
  if (options.before != null) query = query.where("id", "<", options.before);
  const rows = await query.execute();
  const entries = rows.slice(0, limit).map((row) => ({
    id: Number(row.id),
    createdAt: toIso(Number(row.created_at))!,
    actor: row.actor,
    action: row.action,
    target: row.target,
    changes: parseJson<AuditChanges>(row.changes, {}),
    ip: row.ip,
  }));
  return { entries, nextBefore: rows.length > limit ? entries[entries.length - 1].id : null };
}
