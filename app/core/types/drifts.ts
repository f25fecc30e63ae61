// Drift alarms (issue 11, decision 021): a difference between the exchange's book and the app's; db/queries/drifts.ts stores them.
import type { DriftFinding } from "#app/core/reconcile/compare.ts";

export interface Drift extends DriftFinding {
  id: string;
  exchange: string;
  status: "open" | "resolved" | "cleared";
  resolution: string | null;
  resolvedBy: string | null;
  createdAt: string;
  updatedAt: string;
  resolvedAt: string | null;
}
