// The pages' system status (getSystemStatusForPage): shared for up to 1 s, recomputed at
// once after a settings change in this process; GET /api/health's getSystemStatus is live.
import type { AppLoadContext } from "@remix-run/node";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { loadConfig } from "#app/core/env.ts";
import { getSystemStatus, getSystemStatusForPage } from "#app/services/health.server.ts";
import { setEmergencyStop } from "#db/queries/trading-state.ts";
import { writeHeartbeat } from "#db/queries/worker-heartbeats.ts";
import { testDialects } from "#tests/setup/db.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";

describe.each(testDialects())("page system status on %s", (dialect) => {
  const fresh = freshDatabase(dialect);
  let context: AppLoadContext;
  beforeAll(async () => {
    const config = loadConfig({
      NODE_ENV: "production",
      APP_SECRET: "status-cache-secret-0123456789abcdef0123",
      DATA_DIR: "/tmp/perpdesk-test-unused",
    });
    context = { db: fresh.db, database: fresh.database, config, clientIp: null, isHttps: false } as AppLoadContext;
  });

  const worker = (s: Awaited<ReturnType<typeof getSystemStatus>>) =>
    s.systemStatus.find((e) => e.component === "worker")!.status;
  const system = (s: Awaited<ReturnType<typeof getSystemStatus>>) =>
    s.systemStatus.find((e) => e.component === "system")!.status;

  test("requests within a second share one status; the live check sees changes at once; then it refreshes", async () => {
    let now = Date.now();
    vi.spyOn(Date, "now").mockImplementation(() => now);
    const first = getSystemStatusForPage(context);
    expect(getSystemStatusForPage(context)).toBe(first); // concurrent requests: one computation
    expect(worker(await first)).toBe("error"); // no worker yet

    await writeHeartbeat(fresh.db, { workerId: "w-status", hostname: "h", pid: 1, startedAt: now, status: "running" });
    now += 900;
    expect(worker(await getSystemStatusForPage(context))).toBe("error"); // still the shared one
    expect(worker(await getSystemStatus(context))).toBe("online"); // /api/health: live
    now += 200;
    expect(worker(await getSystemStatusForPage(context))).toBe("online"); // older than 1 s: recomputed
  });

  test("a check still running is shared however long it takes (slow checks never pile up)", async () => {
    let now = Date.now() + 10_000; // past anything cached by the tests above
    vi.spyOn(Date, "now").mockImplementation(() => now);
    const running = getSystemStatusForPage(context);
    now += 5_000; // far past the 1 s, but the first check has not finished
    expect(getSystemStatusForPage(context)).toBe(running);
    await running;
    now += 1_001;
    expect(getSystemStatusForPage(context)).not.toBe(running); // finished and old: checked afresh
  });

  test("a settings change in this process (emergency stop) shows at once", async () => {
    const before = await getSystemStatusForPage(context);
    expect(system(before)).toBe("online");
    await setEmergencyStop(fresh.db, true, "test");
    expect(system(await getSystemStatusForPage(context))).toBe("warning");
    await setEmergencyStop(fresh.db, false, "test");
    expect(system(await getSystemStatusForPage(context))).toBe("online");
  });
});
