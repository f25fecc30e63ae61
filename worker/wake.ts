// The worker's side of the wake-up hint (app/services/worker-wake.server.ts sends it): a UDP
// port, published in the worker's heartbeat, where every datagram means "jobs were committed".
import type { WakeAddress } from "../db/queries/worker-heartbeats.ts";

/** Worker side: calls `onWake` for every datagram received. */
export async function listenForWake(onWake: () => void, host = "127.0.0.1") {
  const socket = await Bun.udpSocket({
    hostname: host,
    port: 0,
    socket: {
      data() {
        onWake();
      },
    },
  });
  return {
    address: { host, port: socket.port } satisfies WakeAddress,
    close: () => socket.close(),
  };
}
