// The audit trail as the Audit page and GET /api/audit read it (decision 029); entries are
// written by the services that change what they record, in the change's own transaction.
export { auditPageParams, listAudit } from "#db/queries/audit.ts";
