// The web process's hint reaches a live worker's UDP port (and only live ones).
import { describe, expect, test } from "vitest";
import { writeHeartbeat } from "#db/queries/worker-heartbeats.ts";
import { listenForWake } from "#worker/wake.ts";
import { pokeWorkers } from "./worker-wake.server.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";

describe("worker wake-up", () => {
  const fresh = freshDatabase("sqlite");

  test("a poke after commit reaches the worker that published its port; a stopped worker's is skipped", async () => {
    let live = 0;
    let stopped = 0;
    const a = await listenForWake(() => (live += 1));
    const b = await listenForWake(() => (stopped += 1));
    const now = Date.now();
    await writeHeartbeat(fresh.db, {
      workerId: "w-live",
      hostname: "h",
      pid: 1,
      startedAt: now,
      status: "running",
      info: { wake: a.address },
    });
    await writeHeartbeat(fresh.db, {
      workerId: "w-stopped",
      hostname: "h",
      pid: 2,
      startedAt: now,
      status: "stopped",
      info: { wake: b.address },
    });
    try {
      // The first poke starts the sender and reads the heartbeats; later ones send.
      const deadline = Date.now() + 3000;
      while (live === 0 && Date.now() < deadline) {
        pokeWorkers(fresh.db);
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(live).toBeGreaterThan(0);
      expect(stopped).toBe(0);
    } finally {
      a.close();
      b.close();
    }
  });
});
