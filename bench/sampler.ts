// A low-overhead "where does the main thread's time go" sampler for the app's processes,
// run as a separate process by the benchmarks when --profile is given (or by hand):
//
//   bun bench/sampler.ts --ms 20000 --every 2 web=1234 worker=1235
//
// Every --every ms it reads, for each process's main (JavaScript) thread, the kernel's
// view: /proc/PID/task/PID/syscall (which system call it is blocked in, or "running") and
// the thread state. bun:sqlite, the HTTP handlers and the job runner all run on that
// thread, so a sample blocked in clock_nanosleep is SQLite's busy handler sleeping on a
// lock held by another process (Bun's own timers wait in epoll), fsync/fdatasync is a
// commit being made durable, epoll_pwait is idle, "running" is CPU. schedstat adds how
// long the threads were runnable but waiting for a CPU (contention on the 2 cores).
// Prints one JSON line when done.
import { readFileSync, readdirSync } from "node:fs";

const SYSCALLS: Record<number, string> = {
  0: "read",
  1: "write",
  7: "poll",
  17: "pread64",
  18: "pwrite64",
  23: "select",
  35: "nanosleep",
  44: "sendto",
  45: "recvfrom",
  72: "fcntl (file lock)",
  74: "fsync",
  75: "fdatasync",
  202: "futex",
  230: "clock_nanosleep",
  232: "epoll_wait",
  281: "epoll_pwait",
  441: "epoll_pwait2",
};

function label(raw: string, state: string): string {
  const text = raw.trim();
  if (text === "running") return "running (on CPU or runnable)";
  const nr = Number(text.split(" ")[0]);
  if (!Number.isFinite(nr) || nr < 0) return state === "R" ? "running (on CPU or runnable)" : `state ${state}`;
  const name = SYSCALLS[nr] ?? `syscall ${nr}`;
  if (name === "clock_nanosleep" || name === "nanosleep") return "sleep (SQLite busy handler)";
  if (name === "epoll_pwait2" || name === "epoll_pwait" || name === "epoll_wait") return "idle (event loop wait)";
  return name;
}

/** ns on CPU and ns waiting on a run queue, summed over all threads. */
function schedstat(pid: number): { run: number; wait: number } {
  let run = 0;
  let wait = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const [r, w] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").trim().split(" ").map(Number);
        run += r!;
        wait += w!;
      } catch {}
    }
  } catch {}
  return { run, wait };
}

const argv = process.argv.slice(2);
let ms = 20_000;
let every = 2;
const targets: { name: string; pid: number }[] = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--ms") ms = Number(argv[++i]);
  else if (argv[i] === "--every") every = Number(argv[++i]);
  else {
    const [name, pid] = argv[i]!.split("=");
    targets.push({ name: name!, pid: Number(pid) });
  }
}

const counts = new Map<string, Map<string, number>>(targets.map((t) => [t.name, new Map()]));
const before = new Map(targets.map((t) => [t.name, schedstat(t.pid)]));
const t0 = performance.now();
let stop = false;
process.on("SIGINT", () => (stop = true));
process.on("SIGTERM", () => (stop = true));
while (!stop && performance.now() - t0 < ms) {
  for (const t of targets) {
    let key: string;
    try {
      const stat = readFileSync(`/proc/${t.pid}/task/${t.pid}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      key = label(readFileSync(`/proc/${t.pid}/task/${t.pid}/syscall`, "utf8"), state);
    } catch {
      key = "gone";
    }
    const m = counts.get(t.name)!;
    m.set(key, (m.get(key) ?? 0) + 1);
  }
  await Bun.sleep(every);
}
const seconds = (performance.now() - t0) / 1000;
const out: Record<string, unknown> = { seconds: Math.round(seconds * 10) / 10, everyMs: every };
for (const t of targets) {
  const m = counts.get(t.name)!;
  const total = [...m.values()].reduce((a, b) => a + b, 0);
  const after = schedstat(t.pid);
  const b = before.get(t.name)!;
  out[t.name] = {
    samples: total,
    mainThreadPercent: Object.fromEntries(
      [...m.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, Math.round((v / total) * 1000) / 10]),
    ),
    // all threads, as % of one core over the window
    cpuPercent: Math.round(((after.run - b.run) / 1e9 / seconds) * 1000) / 10,
    runQueueWaitPercent: Math.round(((after.wait - b.wait) / 1e9 / seconds) * 1000) / 10,
  };
}
console.log(JSON.stringify(out));
