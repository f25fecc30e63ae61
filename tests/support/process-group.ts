// Helpers for the app instances the browser tests and the benchmarks start in their own
// process group (start.ts, the web server, the worker), shared by tests/e2e and bench/.

/** True while any process of the group is alive. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `check` every `stepMs` until it holds or `timeoutMs` passes; returns the last answer. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  stepMs = 100,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  return check();
}

/** SIGTERM to the whole group, then SIGKILL to whatever is left after `graceMs`. */
export async function stopGroup(pgid: number, graceMs: number): Promise<void> {
  if (!groupAlive(pgid)) return;
  try {
    process.kill(-pgid, "SIGTERM");
  } catch {}
  await waitUntil(() => !groupAlive(pgid), graceMs);
  if (groupAlive(pgid)) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {}
    await waitUntil(() => !groupAlive(pgid), 3000);
  }
}
