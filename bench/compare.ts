// Pages side by side: two (or more) revisions of the app on one machine, alternating (issue 24,
// "Pages as fast as before"; results in docs/benchmarks.md).
//
//   bun bench/compare.ts [--variants HEAD,7978aa8] [--rounds 4] [--seconds 8] [--connections 8]
//                        [--alerts 2000] [--live-alerts 100] [--targets dashboard,trade-history,positions,webhook]
//                        [--ack-rate 20] [--quiet-wait 20] [--quiet-threshold 25] [--mysql] [--keep]
//
// A variant is a git revision (`HEAD`, `7978aa8`, a branch), optionally followed by
// `:router-patch` or `:no-router-patch`: the same revision with @remix-run/router's server file
// patched as decision 037 did, or pristine (the A/B of decision 044; bench/lib.ts nodeModulesFor);
// or `worktree`: the working tree with its uncommitted changes and its node_modules, built in a copy.
// For each variant: `git archive <rev>` into a private copy (bench/lib.ts prepareVariant), its
// own node_modules (the working tree's when the revision's package-lock.json is the same,
// else `npm ci` from that lockfile, kept in /tmp/perpdesk-bench-nm-<hash> for the next run),
// `remix build` inside the copy. Then every variant is started at once (bench/lib.ts
// startInstance: fresh SQLite DATA_DIR or MariaDB database each) and seeded the same way:
// --alerts executed trades (with their signals and closed positions) written into its
// database, then --live-alerts webhooks through its API (market orders the worker executes at
// the simulated exchange: open positions, events), then a drain.
//
// Measured: --rounds rounds; in each, for each target, each variant in turn (A B, then B A in
// the next round, so a drift of the machine's load falls on both), --connections closed
// loops for --seconds: a page is requested, read whole, the next one requested at once
// (`wrk -c 8` does the same; wrk is not on this machine). Per run: pages/s, latency p50/p95
// (request written → body read), HTML KB, and pages per second of the web process's own CPU
// time (from /proc: what the page costs, whatever share of the cores the app got). The webhook target sends --ack-rate webhooks/s
// (open loop) for --seconds and reports the ack latency p50/p95 (both variants get the same
// number of extra trades). The machine is shared: before each run it waits up to
// --quiet-wait s for other processes to use < --quiet-threshold % of one core, records
// that and the load average (`uptime`) per round.
//
// Prints a table (median and range over the rounds per variant and target) and, last, one
// JSON line with every run.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import {
  type Instance,
  assertAlive,
  assertLoopback,
  awaitQuiet,
  cpuSampler,
  finish,
  installGuards,
  log,
  machineInfo,
  numArg,
  onCleanup,
  pacedWebhooks,
  parseArgs,
  ROOT,
  prepareApp,
  prepareVariant,
  runTag,
  seedRoundTrips,
  sleep,
  startInstance,
  stats,
  waitForDrain,
  waitForPrices,
  wallMs,
} from "./lib.ts";

const args = parseArgs();
const variants = (typeof args.variants === "string" ? args.variants : "HEAD,7978aa8")
  .split(",")
  .map((v) => v.trim())
  .filter(Boolean);
if (variants.length < 2) throw new Error("--variants needs at least two revisions, e.g. HEAD,7978aa8");
const ROUNDS = Math.max(1, numArg(args, "rounds", 4));
const SECONDS = Math.max(1, numArg(args, "seconds", 8));
const CONNECTIONS = Math.max(1, numArg(args, "connections", 8));
const ALERTS = Math.min(numArg(args, "alerts", 2000), 20_000);
const LIVE_ALERTS = Math.min(numArg(args, "live-alerts", 100), 2000);
const ACK_RATE = Math.max(1, numArg(args, "ack-rate", 20));
const QUIET_WAIT_S = numArg(args, "quiet-wait", 20);
const ALL_TARGETS = {
  dashboard: "/dashboard",
  "trade-history": "/trade-history",
  positions: "/positions",
  webhook: "/api/webhook/tradingview",
} as const;
type TargetName = keyof typeof ALL_TARGETS;
const targets = (typeof args.targets === "string" ? args.targets.split(",") : Object.keys(ALL_TARGETS)) as TargetName[];
for (const t of targets)
  if (!(t in ALL_TARGETS)) throw new Error(`unknown target ${t} (${Object.keys(ALL_TARGETS).join(", ")})`);

const perRunS = SECONDS + QUIET_WAIT_S + 5;
installGuards(
  (1800 + variants.length * (600 + ALERTS / 5) + ROUNDS * targets.length * variants.length * perRunS) * 1000,
);
const quietArgs = { ...args, "quiet-wait": String(QUIET_WAIT_S) };

// ---------------------------------------------------------------------------------------
// Copies, instances, seed
// ---------------------------------------------------------------------------------------

interface Running {
  name: string;
  source: string;
  inst: Instance;
  seeded: { alerts: number; errors: number; trades: number; drainMs: number | null };
}

// Revisions resolved once, before anything is built: HEAD moves while others commit.
// "worktree": the working tree as it is, uncommitted changes included, with its node_modules.
const resolved = variants.map((spec) => {
  if (spec === "worktree") return spec;
  const [rev, flag] = spec.split(":") as [string, string | undefined];
  const sha = execFileSync("git", ["rev-parse", "--short=12", "--verify", `${rev}^{commit}`], {
    cwd: ROOT,
    encoding: "utf8",
  }).trim();
  return `${sha}${flag ? `:${flag}` : ""}`;
});
const copies = variants.map((spec, i) => {
  const copy = resolved[i] === "worktree" ? prepareApp({ rebuild: true }) : prepareVariant(resolved[i]!);
  if (!args.keep) onCleanup(copy.remove);
  else log(`keeping ${copy.dir}`);
  return { spec, copy };
});

async function count(inst: Instance, sql: string): Promise<number> {
  return Number((await inst.db.one<{ n: number }>(sql))?.n ?? 0);
}

const running: Running[] = [];
for (const { spec, copy } of copies) {
  log(`starting ${spec} (${copy.source}) on ${args.mysql ? "MariaDB" : "SQLite"}`);
  const inst = await startInstance({
    mysql: Boolean(args.mysql),
    appDir: copy.dir,
    label: `compare-${running.length}`,
  });
  await waitForPrices(inst);
  running.push({ name: spec, source: copy.source, inst, seeded: { alerts: 0, errors: 0, trades: 0, drainMs: null } });
}

// The same seed in each, one after the other (each has the machine to itself): --alerts
// executed trades written straight into the database (seedRoundTrips: the same rows at every
// revision; 2,000 webhooks instead would leave the count to the worker's speed on a loaded
// machine, signals older than 30 s being skipped), then --live-alerts webhooks at 10/s through
// the API (open positions, events, the worker's own rows), then a drain.
for (const r of running) {
  const started = Date.now();
  const rows = await seedRoundTrips(r.inst, ALERTS);
  const sent = await pacedWebhooks(r.inst, `seed-${runTag()}-`, 10, LIVE_ALERTS, LIVE_ALERTS * 200 + 10_000);
  const drain = await waitForDrain(r.inst, 600_000, `${r.name} seed`);
  r.seeded = {
    alerts: rows.trades + sent.results.length,
    errors: sent.results.filter((x) => x.status !== 200).length,
    trades: await count(r.inst, "SELECT COUNT(*) AS n FROM trades"),
    drainMs: drain.ms,
  };
  log(
    `${r.name}: seeded ${rows.trades} trades + ${sent.results.length} webhooks (${r.seeded.errors} errors) -> ${r.seeded.trades} trades, ${await count(r.inst, "SELECT COUNT(*) AS n FROM positions WHERE status = 'open'")} open positions in ${Math.round((Date.now() - started) / 1000)} s`,
  );
  if (r.seeded.errors > 0 || drain.ms === null)
    throw new Error(`${r.name}: the seed did not complete (${r.seeded.errors} errors, drain ${drain.ms})`);
}

// ---------------------------------------------------------------------------------------
// Load
// ---------------------------------------------------------------------------------------

interface Sample {
  ms: number;
  status: number;
  bytes: number;
}

async function get(inst: Instance, path: string): Promise<Sample> {
  const url = `${inst.baseUrl}${path}`;
  assertLoopback(url);
  const sent = wallMs();
  try {
    const res = await fetch(url, {
      headers: { cookie: inst.cookie, accept: "text/html" },
      redirect: "manual",
      signal: AbortSignal.timeout(10_000),
    });
    const body = await res.arrayBuffer();
    return { ms: wallMs() - sent, status: res.status, bytes: body.byteLength };
  } catch {
    return { ms: wallMs() - sent, status: 0, bytes: 0 };
  }
}

/** --connections closed loops for `seconds` (bounded: at most 5,000 requests per second in all). */
async function closedLoops(
  inst: Instance,
  path: string,
  seconds: number,
): Promise<{ samples: Sample[]; seconds: number }> {
  const samples: Sample[] = [];
  const t0 = wallMs();
  const end = t0 + seconds * 1000;
  const cap = seconds * 5000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (wallMs() < end && samples.length < cap) samples.push(await get(inst, path));
    }),
  );
  return { samples, seconds: (wallMs() - t0) / 1000 };
}

function pct(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]! * 100) / 100;
}

interface RunResult {
  round: number;
  target: TargetName;
  variant: string;
  perSecond: number | null;
  /** Pages per second of the web process's own CPU time: capacity with a core to itself (robust when the machine is shared). */
  perWebCpuSecond: number | null;
  p50: number | null;
  p95: number | null;
  kb: number | null;
  requests: number;
  errors: number;
  otherBefore: number;
  cpu: Record<string, number>;
}

async function runOnce(r: Running, target: TargetName, round: number): Promise<RunResult> {
  const otherBefore = await awaitQuiet(r.inst, quietArgs, `${r.name} ${target}`);
  const cpu = cpuSampler(r.inst);
  cpu.start();
  let out: Omit<RunResult, "round" | "target" | "variant" | "otherBefore" | "cpu" | "perWebCpuSecond">;
  if (target === "webhook") {
    const sent = await pacedWebhooks(
      r.inst,
      `ack-${runTag()}-`,
      ACK_RATE,
      Math.round(ACK_RATE * SECONDS),
      SECONDS * 1000 + 5000,
    );
    const acks = sent.results.filter((x) => x.status === 200 && x.ackAt !== null).map((x) => x.ackAt! - x.sentAt);
    const sorted = Float64Array.from(acks).sort();
    const arr = Array.from(sorted);
    out = {
      perSecond: null,
      p50: pct(arr, 0.5),
      p95: pct(arr, 0.95),
      kb: null,
      requests: sent.results.length,
      errors: sent.results.length - acks.length,
    };
  } else {
    const { samples, seconds } = await closedLoops(r.inst, ALL_TARGETS[target], SECONDS);
    const ok = samples.filter((s) => s.status === 200);
    const arr = Array.from(Float64Array.from(ok.map((s) => s.ms)).sort());
    out = {
      perSecond: Math.round((ok.length / seconds) * 10) / 10,
      p50: pct(arr, 0.5),
      p95: pct(arr, 0.95),
      kb: ok.length ? Math.round((ok.reduce((a, s) => a + s.bytes, 0) / ok.length / 1024) * 10) / 10 : null,
      requests: samples.length,
      errors: samples.length - ok.length,
    };
  }
  const cpuUse = cpu.stop();
  assertAlive(r.inst, `${r.name} ${target}`);
  if (target === "webhook") await waitForDrain(r.inst, 120_000, `${r.name} ack`);
  const web = cpuUse.web ?? 0;
  const perWebCpuSecond =
    out.perSecond !== null && web > 0 ? Math.round((out.perSecond / (web / 100)) * 10) / 10 : null;
  return { round, target, variant: r.name, ...out, perWebCpuSecond, otherBefore, cpu: cpuUse };
}

// Warm-up: every page 30 times per variant (JIT, caches), each answering 200.
for (const r of running) {
  for (const t of targets) {
    if (t === "webhook") continue;
    for (let i = 0; i < 30; i++) {
      const s = await get(r.inst, ALL_TARGETS[t]);
      if (s.status !== 200) throw new Error(`${r.name}: GET ${ALL_TARGETS[t]} answered ${s.status} during the warm-up`);
    }
  }
}

const loadAverage = () => os.loadavg().map((v) => Math.round(v * 100) / 100);
const runs: RunResult[] = [];
const rounds: { round: number; loadAverage: number[]; uptime: string }[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  const uptime = readFileSync("/proc/loadavg", "utf8").trim();
  rounds.push({ round, loadAverage: loadAverage(), uptime });
  log(`round ${round}/${ROUNDS}: load average ${uptime}`);
  for (const target of targets) {
    const order = round % 2 === 1 ? running : [...running].reverse();
    for (const r of order) {
      const res = await runOnce(r, target, round);
      runs.push(res);
      log(
        `  ${target.padEnd(13)} ${r.name.padEnd(24)} ${res.perSecond !== null ? `${res.perSecond} pages/s (${res.perWebCpuSecond} per web CPU s), ` : ""}p50 ${res.p50} ms, p95 ${res.p95} ms${res.kb !== null ? `, ${res.kb} KB` : ""}, errors ${res.errors}, other processes ${res.otherBefore}% before / ${res.cpu["other processes"]}% during`,
      );
      await sleep(500);
    }
  }
}

// ---------------------------------------------------------------------------------------
// Summary
// ---------------------------------------------------------------------------------------

const med = (values: number[]) => stats(values).p50;
const range = (values: number[]) => (values.length ? `${Math.min(...values)}–${Math.max(...values)}` : "-");
const summary: Record<string, Record<string, unknown>> = {};
console.log(
  `\n=== compare (${args.mysql ? "MariaDB" : "SQLite"}, ${ROUNDS} rounds x ${SECONDS} s, ${CONNECTIONS} connections, ${ALERTS} alerts seeded) ===`,
);
for (const r of running) console.log(`${r.name}: ${r.source}; seeded ${r.seeded.trades} trades`);
console.log(`load average per round: ${rounds.map((x) => x.loadAverage.join("/")).join(", ")}`);
console.log(
  `target        | variant                  | pages/s median (range) | per web CPU s median (range) | p50 ms median (range) | p95 ms median (range) | KB`,
);
for (const target of targets) {
  summary[target] = {};
  for (const r of running) {
    const mine = runs.filter((x) => x.target === target && x.variant === r.name);
    const per = mine.flatMap((x) => (x.perSecond !== null ? [x.perSecond] : []));
    const perCpu = mine.flatMap((x) => (x.perWebCpuSecond !== null ? [x.perWebCpuSecond] : []));
    const p50s = mine.flatMap((x) => (x.p50 !== null ? [x.p50] : []));
    const p95s = mine.flatMap((x) => (x.p95 !== null ? [x.p95] : []));
    const kbs = mine.flatMap((x) => (x.kb !== null ? [x.kb] : []));
    const row = {
      perSecond: per.length ? { median: med(per), range: range(per) } : null,
      perWebCpuSecond: perCpu.length ? { median: med(perCpu), range: range(perCpu) } : null,
      p50: { median: med(p50s), range: range(p50s) },
      p95: { median: med(p95s), range: range(p95s) },
      kb: kbs.length ? { median: med(kbs), range: range(kbs) } : null,
      errors: mine.reduce((a, x) => a + x.errors, 0),
    };
    summary[target][r.name] = row;
    console.log(
      `${target.padEnd(13)} | ${r.name.padEnd(24)} | ${row.perSecond ? `${row.perSecond.median} (${row.perSecond.range})` : "-"} | ${row.perWebCpuSecond ? `${row.perWebCpuSecond.median} (${row.perWebCpuSecond.range})` : "-"} | ${row.p50.median} (${row.p50.range}) | ${row.p95.median} (${row.p95.range}) | ${row.kb ? `${row.kb.median} (${row.kb.range})` : "-"}${row.errors ? ` | errors ${row.errors}` : ""}`,
    );
  }
}
const errors = runs.reduce((a, x) => a + x.errors, 0);
await finish(
  {
    bench: "compare",
    db: args.mysql ? "mysql" : "sqlite",
    machine: machineInfo(),
    variants: running.map((r) => ({ name: r.name, source: r.source, seeded: r.seeded })),
    rounds,
    secondsPerRun: SECONDS,
    connections: CONNECTIONS,
    ackRate: ACK_RATE,
    summary,
    runs,
  },
  errors === 0,
);
