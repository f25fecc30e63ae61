// Each worker process writes a heartbeat row; /api/health reads the freshest one.
import { type Db, isMysql, nowMs, parseJson } from "./util.ts";

/** Where a worker listens for the wake-up hint (published in its heartbeat's `info.wake`). */
export interface WakeAddress {
  host: string;
  port: number;
}

/**
 * A worker whose heartbeat (written every 2 s, HEARTBEAT_MS in worker/index.ts) is older than
 * this is taken for dead: its jobs are handed out again and it gets no wake-up hints
 * (docs/operations.md, "Several processes"). Three missed beats: a busy database delays one,
 * not three.
 */
export const WORKER_DEAD_AFTER_MS = 6_000;

export interface WorkerHeartbeat {
  workerId: string;
  hostname: string;
  pid: number;
  startedAt: number;
  lastBeatAt: number;
  status: string;
  info: Record<string, unknown>;
}

export async function writeHeartbeat(
  db: Db,
  beat: {
    workerId: string;
    hostname: string;
    pid: number;
    startedAt: number;
    status: string;
    info?: Record<string, unknown>;
  },
): Promise<void> {
  const now = nowMs();
  const values = {
    worker_id: beat.workerId,
    hostname: beat.hostname.slice(0, 255),
    pid: beat.pid,
    started_at: beat.startedAt,
    last_beat_at: now,
    status: beat.status,
    info: JSON.stringify(beat.info ?? {}),
  };
  const update = {
    last_beat_at: now,
    status: beat.status,
    info: values.info,
    pid: beat.pid,
    started_at: beat.startedAt,
    hostname: values.hostname,
  };
  const insert = db.insertInto("worker_heartbeats").values(values);
  if (isMysql(db)) await insert.onDuplicateKeyUpdate(update).execute();
  else await insert.onConflict((oc) => oc.column("worker_id").doUpdateSet(update)).execute();
}

export async function listHeartbeats(db: Db): Promise<WorkerHeartbeat[]> {
  const rows = await db.selectFrom("worker_heartbeats").selectAll().orderBy("last_beat_at", "desc").execute();
  return rows.map((r) => ({
    workerId: r.worker_id,
    hostname: r.hostname,
    pid: Number(r.pid),
    startedAt: Number(r.started_at),
    lastBeatAt: Number(r.last_beat_at),
    status: r.status,
    info: parseJson<Record<string, unknown>>(r.info, {}),
  }));
}

/** Forget workers that have not beaten for a long time (a day by default). */
export async function pruneHeartbeats(db: Db, olderThanMs = nowMs() - 86_400_000): Promise<number> {
  const result = await db.deleteFrom("worker_heartbeats").where("last_beat_at", "<", olderThanMs).executeTakeFirst();
  return Number(result.numDeletedRows ?? 0);
}
