// `npm start`: migrate once, then run the web server (WEB_PROCESSES of them on one port) and
// the worker side by side. A child that exits (web or worker, for any reason: nobody asked
// it to stop) is restarted after a short back-off; one that keeps exiting (5 times within a
// minute) stops everything, so a supervisor above restarts the app or a person looks.
// SIGINT/SIGTERM stop them all, once, whether the signal came to this process alone or to the
// whole process group (systemd, Ctrl-C): docs/operations.md, "Several processes".
import type { Subprocess } from "bun";

export interface ChildSpec {
  name: string;
  cmd: string[];
}

/** What the supervisor needs of a child process (Bun's Subprocess has it). */
export interface ChildProcess {
  readonly exited: Promise<number>;
  readonly signalCode?: string | number | null;
  kill(signal?: NodeJS.Signals | number): void;
}

export interface SupervisorOptions {
  spawn: (cmd: string[]) => ChildProcess;
  log?: (line: string) => void;
  /** A child that exits this many times within `windowMs` stops everything. */
  maxExits?: number;
  windowMs?: number;
  /** Back-off before the nth restart within the window (1-based). */
  backoffMs?: (n: number) => number;
  /** How long stop() waits for the children before giving up on them (a worker drains its running tasks). */
  graceMs?: number;
  /**
   * How long a child's exit waits for a stop before it counts as one to restart: a signal to
   * the whole group reaches the children and this process together, and a child may exit
   * before this process's own handler ran.
   */
  settleMs?: number;
}

export interface Supervisor {
  /** SIGTERM to every child, then resolves with `code` once they exited (or the grace ran out). */
  stop(code?: number): Promise<number>;
  /** Resolves with the exit code `npm start` should end with: 0 after stop(), else the crash-looping child's. */
  readonly done: Promise<number>;
}

/** 0.5 s, 1 s, 2 s, 4 s: short, so a single crash costs seconds, and a loop is not a busy one. */
export const defaultBackoffMs = (n: number) => Math.min(500 * 2 ** (n - 1), 4_000);

function why(code: number, signal: string | number | null | undefined) {
  return signal ? `killed by ${signal}` : `exit code ${code}`;
}

export function supervise(specs: ChildSpec[], options: SupervisorOptions): Supervisor {
  const log = options.log ?? ((line: string) => console.error(line));
  const maxExits = options.maxExits ?? 5;
  const windowMs = options.windowMs ?? 60_000;
  const backoffMs = options.backoffMs ?? defaultBackoffMs;
  const graceMs = options.graceMs ?? 30_000;
  const settleMs = options.settleMs ?? 10;
  const children = new Map<ChildProcess, string>(); // running child → its name
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let stopping: Promise<number> | null = null;
  let finish: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => (finish = resolve));

  const stop = (code = 0) => {
    stopping ??= (async () => {
      for (const timer of timers) clearTimeout(timer);
      for (const child of children.keys()) {
        try {
          child.kill("SIGTERM");
        } catch {
          // already gone
        }
      }
      await Promise.race([
        Promise.all([...children.keys()].map((c) => c.exited)),
        new Promise((r) => setTimeout(r, graceMs)),
      ]);
      for (const name of children.values())
        log(`[start] ${name} still running after ${graceMs / 1000} s; not waiting for it`);
      finish(code);
      return code;
    })();
    return stopping;
  };

  const run = (spec: ChildSpec, exits: number[]) => {
    let child: ChildProcess;
    try {
      child = options.spawn(spec.cmd);
    } catch (error) {
      log(`[start] ${spec.name} could not start: ${(error as Error).message}`);
      child = { exited: Promise.resolve(1), kill() {} };
    }
    children.set(child, spec.name);
    void child.exited.then(async (code) => {
      children.delete(child);
      if (!stopping) await new Promise((r) => setTimeout(r, settleMs));
      if (stopping) {
        // Stopped as asked: a drained worker and a closed web server exit 0.
        if (code !== 0 || child.signalCode)
          log(`[start] ${spec.name} exited while stopping (${why(code, child.signalCode)})`);
        return;
      }
      const now = Date.now();
      exits.push(now);
      while (exits.length && now - exits[0]! > windowMs) exits.shift();
      const reason = why(code, child.signalCode);
      if (exits.length >= maxExits) {
        log(
          `[start] ${spec.name} exited (${reason}), ${exits.length} times within ${windowMs / 1000} s; stopping everything`,
        );
        void stop(code || 1);
        return;
      }
      const wait = backoffMs(exits.length);
      log(`[start] ${spec.name} exited (${reason}); restarting it in ${wait / 1000} s`);
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!stopping) run(spec, exits);
      }, wait);
      timers.add(timer);
    });
  };

  for (const spec of specs) run(spec, []);
  return { stop, done };
}

if (import.meta.main) {
  const { spawn } = await import("bun");
  const { loadConfigOrExit } = await import("../app/core/env.ts");
  const { openDatabase } = await import("../db/client.ts");
  const { migrateToLatest } = await import("../db/migrate.ts");

  const config = loadConfigOrExit();
  const database = await openDatabase(config.databaseUrl);
  const applied = await migrateToLatest(database.db);
  if (applied.length) console.log(`[start] applied migrations: ${applied.join(", ")}`);
  await database.destroy();

  const env = { ...process.env, NODE_ENV: process.env.NODE_ENV ?? "production" };
  const specs: ChildSpec[] = [];
  for (let i = 1; i <= config.WEB_PROCESSES; i++)
    specs.push({ name: config.WEB_PROCESSES > 1 ? `web ${i}` : "web", cmd: [process.execPath, "server.ts"] });
  specs.push({ name: "worker", cmd: [process.execPath, "worker/index.ts"] });

  const supervisor = supervise(specs, {
    spawn: (cmd): Subprocess => spawn(cmd, { env, stdout: "inherit", stderr: "inherit" }),
  });
  process.on("SIGINT", () => void supervisor.stop(0));
  process.on("SIGTERM", () => void supervisor.stop(0));
  process.exit(await supervisor.done);
}
