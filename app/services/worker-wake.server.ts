// Waking the worker when a job is committed (web side; the worker's listener is worker/wake.ts), so a signal does not wait for the next poll.
// Each worker listens on a UDP port (WORKER_WAKE_HOST, default 127.0.0.1) and publishes it
// in its heartbeat; after committing runnable jobs the web process sends each live worker
// a one-byte datagram. It is only a hint: a lost datagram costs one poll interval, because
// workers keep polling the job table, which stays the only source of truth.
//
// A hint never stops the web process (issue 21): a worker that died leaves its port closed,
// the kernel answers "port unreachable" and Bun reports ECONNREFUSED on the sending socket
// later, as an uncaught error unless the socket has an error handler. So the socket has one,
// and a socket that fails or closes is replaced (docs/operations.md, "Several processes").
import type { Kysely } from "kysely";
import { WORKER_DEAD_AFTER_MS, type WakeAddress, listHeartbeats } from "#db/queries/worker-heartbeats.ts";
import type { DB } from "#db/schema.ts";

type UdpSocket = import("bun").udp.Socket<"buffer">;

const REFRESH_MS = 2_000;
const REFUSED_REFRESH_MS = 250;
const LOG_EVERY_MS = 60_000;

interface Targets {
  addresses: WakeAddress[];
  at: number;
  refreshing: boolean;
}

const targetsByDb = new WeakMap<Kysely<DB>, Targets>();
let sender: UdpSocket | null = null;
let _senderStarting: Promise<void> | null = null;
/** When a worker last refused a hint: the target lists read before it are read again. */
let refusedAt = 0;
let loggedAt = 0;

async function refresh(db: Kysely<DB>, targets: Targets) {
  targets.refreshing = true;
  try {
    const now = Date.now();
    const beats = await listHeartbeats(db);
    targets.addresses = beats.flatMap((beat) => {
      const wake = beat.info.wake as Partial<WakeAddress> | undefined;
      const fresh = beat.status === "running" && now - beat.lastBeatAt < WORKER_DEAD_AFTER_MS;
      return fresh && wake && typeof wake.host === "string" && Number.isInteger(wake.port)
        ? [{ host: wake.host, port: wake.port! }]
        : [];
    });
    targets.at = now;
  } catch {
    // keep the previous list; polling covers us
  } finally {
    targets.refreshing = false;
  }
}

function logOnce(message: string) {
  const now = Date.now();
  if (now - loggedAt < LOG_EVERY_MS) return;
  loggedAt = now;
  console.warn(`[web] worker wake-up: ${message} (a hint only: workers poll)`);
}

function dropSender(socket: UdpSocket | null) {
  if (!socket || sender !== socket) return;
  sender = null;
  _senderStarting = null;
  try {
    socket.close();
  } catch {
    // already closed
  }
}

function startSender() {
  _senderStarting ??= Bun.udpSocket({
    socket: {
      // Bun 1.4 calls this with the error alone and the socket as `this` (its types say
      // (socket, error)): read both. It must not throw: that would be uncaught again.
      error(this: unknown, ...args: unknown[]) {
        try {
          const error = args.find((arg): arg is Error => arg instanceof Error);
          refusedAt = Date.now();
          if (sender?.closed) dropSender(sender);
          logOnce(`${error?.message ?? "socket error"}; a worker probably stopped`);
        } catch {
          // a hint only
        }
      },
    },
  })
    .then((socket) => {
      sender = socket;
    })
    .catch((error: unknown) => {
      _senderStarting = null;
      logOnce(`no socket: ${(error as Error)?.message}`);
    });
}

const PING = new Uint8Array([1]);

/** Web side: tell every live worker that runnable jobs were committed. Never throws, never waits. */
export function pokeWorkers(db: Kysely<DB>): void {
  try {
    let targets = targetsByDb.get(db);
    if (!targets) {
      targets = { addresses: [], at: 0, refreshing: false };
      targetsByDb.set(db, targets);
    }
    const now = Date.now();
    // A refusal means a worker stopped: read the heartbeats again soon, not in 2 s.
    const refreshAfter = targets.at <= refusedAt ? REFUSED_REFRESH_MS : REFRESH_MS;
    if (!targets.refreshing && now - targets.at > refreshAfter) void refresh(db, targets);
    if (!sender) {
      startSender();
      return;
    }
    const socket = sender;
    let failed: unknown = null;
    for (const address of targets.addresses) {
      try {
        socket.send(PING, address.port, address.host);
      } catch (error) {
        // A send that fails (a dead worker's refusal reported on this send, or a broken socket)
        // must not starve the workers after it in the list: try them all, then replace the socket.
        failed ??= error;
      }
    }
    if (failed !== null) {
      dropSender(socket); // the next poke opens a new one
      logOnce(`send failed: ${(failed as Error)?.message}`);
    }
  } catch {
    // a hint only: never the caller's problem
  }
}
