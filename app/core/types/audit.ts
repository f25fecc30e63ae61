// The audit trail's changes (decision 029): field -> before / after; db/queries/audit.ts stores them.

export type AuditChanges = Record<string, { before?: unknown; after?: unknown }>;
