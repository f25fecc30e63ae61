// Drift alarms (issue 11): what the reconciliation loop found (worker/monitor/reconcile.ts),
// and a person's resolution, queued for the worker (it asks the exchange again and books;
// worker/tasks/resolve-drift.ts). One job per drift: a second click joins the first.
import type { Kysely } from "kysely";
import type { DriftAction } from "#app/core/schemas/drifts.ts";
import { CLOSE_JOB_PRIORITY } from "#app/core/schemas/job-payloads.ts";
import { recordActivity } from "#db/queries/activity-logs.ts";
import { type Drift, getDrift, listOpenDrifts } from "#db/queries/drifts.ts";
import { enqueueJob } from "#db/queries/jobs.ts";
import type { DB } from "#db/schema.ts";
import { waitForJobs } from "./orders.server.ts";
import { pokeWorkers } from "./worker-wake.server.ts";

export type { Drift };

export const listDrifts = (db: Kysely<DB>) => listOpenDrifts(db);

export type ResolveResult = { ok: true; drift: Drift; done: boolean } | { ok: false; status: 404 | 409; error: string };

export async function requestDriftResolution(
  db: Kysely<DB>,
  id: string,
  action: DriftAction,
  by: string,
): Promise<ResolveResult> {
  const drift = await getDrift(db, id);
  if (!drift) return { ok: false, status: 404, error: "Drift not found" };
  if (drift.status !== "open") return { ok: false, status: 409, error: `The drift is already ${drift.status}` };
  const job = await db.transaction().execute(async (trx) => {
    const queued = await enqueueJob(trx, {
      task: "resolve-drift",
      payload: { driftId: id, action, requestedBy: by },
      priority: CLOSE_JOB_PRIORITY,
      jobKey: `drift:${id}`,
    });
    if (queued.created) {
      await recordActivity(trx, {
        type: "system",
        level: "info",
        message: `Drift on ${drift.exchange} for ${drift.symbol}: ${action === "close" ? "adopt and close" : "adopt"} requested by ${by}`,
        data: { driftId: id, action },
      });
    }
    return queued;
  });
  pokeWorkers(db);
  const done = await waitForJobs(db, [job.id]);
  return { ok: true, drift: (await getDrift(db, id))!, done };
}
