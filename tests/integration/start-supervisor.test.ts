// `npm start` (scripts/start.ts) keeps the app up when one of its processes dies: the child
// is restarted after a short back-off and the others are left alone; only a stop signal or
// a child that keeps exiting (5 times within a minute) stops everything (issue 21, defect 4).
import { describe, expect, test } from "vitest";
import { type ChildProcess, defaultBackoffMs, supervise } from "../../scripts/start.ts";

interface FakeChild extends ChildProcess {
  cmd: string[];
  killedWith: unknown;
  gone: boolean;
  die(code: number, signal?: string): void;
}

/** Children that exit when the test says so (or when killed, as a drained process would). */
function fakeProcesses() {
  const started: FakeChild[] = [];
  const spawn = (cmd: string[]): FakeChild => {
    let exit: (code: number) => void = () => {};
    const child: FakeChild = {
      cmd,
      signalCode: null,
      killedWith: null,
      gone: false,
      exited: new Promise<number>((resolve) => (exit = resolve)),
      kill(signal) {
        child.killedWith = signal;
        child.gone = true;
        exit(0);
      },
      die(code, signal) {
        (child as { signalCode: string | number | null }).signalCode = signal ?? null;
        child.gone = true;
        exit(code);
      },
    };
    started.push(child);
    return child;
  };
  const running = (name: string) => started.filter((c) => c.cmd[0] === name && !c.gone);
  return { started, spawn, running };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const specs = [
  { name: "web", cmd: ["web"] },
  { name: "worker", cmd: ["worker"] },
];

describe("npm start's supervision", () => {
  test("a worker killed with SIGKILL is restarted after a short back-off, and the web process is left alone", async () => {
    const fake = fakeProcesses();
    const lines: string[] = [];
    const supervisor = supervise(specs, { spawn: fake.spawn, log: (l) => lines.push(l), backoffMs: () => 50 });
    const [web, worker] = fake.started;
    worker!.die(137, "SIGKILL");
    await sleep(10);
    expect(fake.started).toHaveLength(2); // not before the back-off
    await sleep(100);
    expect(fake.started.map((c) => c.cmd[0])).toEqual(["web", "worker", "worker"]);
    expect(web!.killedWith).toBeNull();
    expect(lines).toEqual(["[start] worker exited (killed by SIGKILL); restarting it in 0.05 s"]);

    // A web process that exits (even cleanly: nobody asked it to) is restarted too.
    web!.die(1);
    await sleep(100);
    expect(fake.running("web")).toHaveLength(1);
    expect(fake.running("web")[0]).not.toBe(web);
    expect(lines[1]).toBe("[start] web exited (exit code 1); restarting it in 0.05 s");

    expect(await supervisor.stop(0)).toBe(0);
    expect(await supervisor.done).toBe(0);
    expect(fake.started.filter((c) => c.killedWith === "SIGTERM")).toHaveLength(2); // the two running ones
  });

  test("a child that exits 5 times within the window stops everything, with its exit code", async () => {
    const fake = fakeProcesses();
    const lines: string[] = [];
    const supervisor = supervise(specs, { spawn: fake.spawn, log: (l) => lines.push(l), backoffMs: () => 5 });
    for (let i = 0; i < 5; i++) {
      fake.running("worker")[0]!.die(3);
      await sleep(30);
    }
    expect(await supervisor.done).toBe(3);
    expect(fake.running("web")).toEqual([]); // SIGTERMed
    expect(fake.started.filter((c) => c.cmd[0] === "worker")).toHaveLength(5);
    expect(lines.at(-1)).toBe("[start] worker exited (exit code 3), 5 times within 60 s; stopping everything");
  });

  test("exits spread over more than the window are not a crash loop", async () => {
    const fake = fakeProcesses();
    const supervisor = supervise(specs, { spawn: fake.spawn, log: () => undefined, backoffMs: () => 5, windowMs: 100 });
    for (let i = 0; i < 7; i++) {
      fake.running("worker")[0]!.die(1);
      await sleep(60); // at most 2 exits within any 100 ms
    }
    expect(fake.running("worker")).toHaveLength(1);
    expect(fake.running("web")).toHaveLength(1);
    await supervisor.stop();
  });

  test("stop() during a back-off restarts nothing", async () => {
    const fake = fakeProcesses();
    const supervisor = supervise(specs, { spawn: fake.spawn, log: () => undefined, backoffMs: () => 50 });
    fake.running("worker")[0]!.die(1);
    await sleep(5);
    await supervisor.stop(0);
    await sleep(100);
    expect(fake.started).toHaveLength(2);
  });

  test("real processes: a crash-looping child ends the supervision with its code; the back-off grows but stays short", async () => {
    const runs: number[] = [];
    const supervisor = supervise([{ name: "flaky", cmd: [process.execPath, "-e", "process.exit(7)"] }], {
      spawn: (cmd) => {
        runs.push(Date.now());
        return Bun.spawn(cmd, { stdout: "ignore", stderr: "ignore" });
      },
      log: () => undefined,
      backoffMs: () => 10,
    });
    expect(await supervisor.done).toBe(7);
    expect(runs).toHaveLength(5);
    expect([1, 2, 3, 4, 5, 6].map(defaultBackoffMs)).toEqual([500, 1000, 2000, 4000, 4000, 4000]);
  });
});
