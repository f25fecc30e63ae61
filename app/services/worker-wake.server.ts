// Waking the worker when a job is committed (web side; the worker's listener is worker/wake.ts), so a signal does not wait for the next poll.
// Each worker listens on a UDP port (WORKER_WAKE_HOST, default 127.0.0.1) and publishes it
// in its heartbeat; after committing runnable jobs the web process sends each live worker
// a one-byte datagram. It is only a hint: a lost datagram costs one poll interval, because
// workers keep polling the job table, which stays the only source of truth.
import type { Kysely } from "kysely";
import { type WakeAddress, listHeartbeats } from "#db/queries/worker-heartbeats.ts";
import type { DB } from "#db/schema.ts";

type UdpSocket = import("bun").udp.Socket<"buffer">;

const STALE_MS = 10_000;
const REFRESH_MS = 2_000;

interface Targets {
  addresses: WakeAddress[];
  at: number;
  refreshing: boolean;
}

const targetsByDb = new WeakMap<Kysely<DB>, Targets>();
let sender: UdpSocket | null = null;
let senderStarting: Promise<void> | null = null;

async function refresh(db: Kysely<DB>, targets: Targets) {
  targets.refreshing = true;
  try {
    const now = Date.now();
    const beats = await listHeartbeats(db);
    targets.addresses = beats.flatMap((beat) => {
      const wake = beat.info.wake as Partial<WakeAddress> | undefined;
      const fresh = beat.status === "running" && now - beat.lastBeatAt < STALE_MS;
      return fresh && wake && typeof wake.host === "string" && Number.isInteger(wake.port) ? [{ host: wake.host, port: wake.port! }] : [];
    });
    targets.at = now;
  } catch {
    // keep the previous list; polling covers us
  } finally {
    targets.refreshing = false;
  }
}

const PING = new Uint8Array([1]);

/** Web side: tell every live worker that runnable jobs were committed. Never throws, never waits. */
export function pokeWorkers(db: Kysely<DB>): void {
  let targets = targetsByDb.get(db);
  if (!targets) {
    targets = { addresses: [], at: 0, refreshing: false };
    targetsByDb.set(db, targets);
  }
  if (!targets.refreshing && Date.now() - targets.at > REFRESH_MS) void refresh(db, targets);
  if (!sender) {
    senderStarting ??= Bun.udpSocket({})
      .then((socket) => {
        sender = socket;
      })
      .catch(() => {
        senderStarting = null;
      });
    return;
  }
  for (const address of targets.addresses) {
    try {
      sender.send(PING, address.port, address.host);
    } catch {
      // a hint only
    }
  }
}
