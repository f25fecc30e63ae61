// Authenticated pages and their APIs under load (docs/benchmarks.md#targets T5), with 10,000 trades.
//
//   bun bench/pages.ts [--mysql] [--trades 10000] [--duration 15] [--capacity-duration 8]
//                      [--users 20] [--think 500] [--ingest 100] [--only positions,dashboard]
//                      [--quiet-wait 300] [--quiet-threshold 25] [--app-dir DIR | --head | --rebuild]
//
// A fresh instance (bench/lib.ts) is seeded straight into its database with --trades executed
// trades (round trips on the four perps over the last 60 days: every one a FIFO match), as
// many signals, one closed position per round trip, then warmed up. Then, per target:
//   users     --users virtual users, each requesting the target, reading the whole answer,
//             then thinking for a random 0..2×--think ms (mean --think), for --duration s;
//   capacity  the same users without thinking (--users requests always in flight), for
//             --capacity-duration s: pages per second and the latency at that load;
// both while webhooks arrive at --ingest per second (market orders the worker executes:
// more trades, positions and events, as T5 asks). Latency is measured by the generator:
// TTFB (request written → status and headers read; T5's figure) and full (→ body read).
// Verdict on the users phase: p95 TTFB <= 50 ms and p99 <= 120 ms. The dashboard's
// capacity is checked against >= 300 pages/s.
// Every loop is bounded; every request goes to 127.0.0.1.
import {
  assertAlive,
  assertLoopback,
  awaitQuiet,
  boot,
  cpuSampler,
  finish,
  fmtCpu,
  log,
  numArg,
  pacedWebhooks,
  parseArgs,
  runTag,
  seedRoundTrips,
  sleep,
  stats,
  verdict,
  wallMs,
  warmup,
} from "./lib.ts";

const args = parseArgs();
const TRADES = Math.min(numArg(args, "trades", 10_000), 200_000);
const DURATION_S = numArg(args, "duration", 15);
const CAPACITY_S = numArg(args, "capacity-duration", 8);
const USERS = Math.max(1, numArg(args, "users", 20));
const THINK_MS = numArg(args, "think", 500);
const INGEST = numArg(args, "ingest", 100);
const quietWaitS = numArg(args, "quiet-wait", 300);

const TARGETS = [
  { name: "positions", path: "/positions", kind: "page" },
  { name: "trade-history", path: "/trade-history", kind: "page" },
  { name: "dashboard", path: "/dashboard", kind: "page" },
  { name: "api-positions", path: "/api/positions", kind: "api" },
  { name: "api-trades", path: "/api/trades?limit=50", kind: "api" },
  { name: "api-performance-stats", path: "/api/performance-stats", kind: "api" },
  // The pages' loaders alone (Remix data requests): what the page costs before rendering.
  { name: "positions-loader", path: "/positions?_data=routes%2F_app%2B%2Fpositions", kind: "data" },
  { name: "trade-history-loader", path: "/trade-history?_data=routes%2F_app%2B%2Ftrade-history", kind: "data" },
  { name: "dashboard-loader", path: "/dashboard?_data=routes%2F_app%2B%2Fdashboard", kind: "data" },
  // What every signed-in page also loads: the root's and the shell's loaders.
  { name: "root-loader", path: "/dashboard?_data=root", kind: "data" },
  { name: "layout-loader", path: "/dashboard?_data=routes%2F_app%2B%2F_layout", kind: "data" },
] as const;
/** By default the six targets T5 names; the loaders only with --only. */
const DEFAULT_TARGETS = new Set([
  "positions",
  "trade-history",
  "dashboard",
  "api-positions",
  "api-trades",
  "api-performance-stats",
]);
const only = typeof args.only === "string" ? new Set(args.only.split(",")) : null;
const targets = TARGETS.filter((t) => (only ? only.has(t.name) : DEFAULT_TARGETS.has(t.name)));
if (targets.length === 0) throw new Error(`--only matched no target (${TARGETS.map((t) => t.name).join(", ")})`);

const perPhaseS = DURATION_S + CAPACITY_S + 10;
const { inst, appSource, dialect, runInfo } = await boot(
  args,
  "pages",
  (quietWaitS + 900 + targets.length * (perPhaseS + quietWaitS)) * 1000,
);

// ---------------------------------------------------------------------------------------
// Seed
// ---------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------
// Load
// ---------------------------------------------------------------------------------------

interface Sample {
  ttfb: number;
  full: number;
  status: number;
  bytes: number;
}

/** `fresh`: on a new connection (so that with WEB_PROCESSES > 1 the kernel picks a process anew). */
async function request(path: string, fresh = false): Promise<Sample> {
  const url = `${inst.baseUrl}${path}`;
  assertLoopback(url);
  const sent = wallMs();
  try {
    const headers: Record<string, string> = { cookie: inst.cookie, accept: "text/html,application/json" };
    if (fresh) headers.connection = "close";
    const res = await fetch(url, { headers, redirect: "manual", signal: AbortSignal.timeout(10_000) });
    const ttfb = wallMs() - sent;
    const body = await res.arrayBuffer();
    return { ttfb, full: wallMs() - sent, status: res.status, bytes: body.byteLength };
  } catch {
    return { ttfb: wallMs() - sent, full: wallMs() - sent, status: 0, bytes: 0 };
  }
}

/** `users` closed loops for `seconds`; each waits a random 0..2×think ms between requests. */
async function users(path: string, seconds: number, think: number): Promise<{ samples: Sample[]; seconds: number }> {
  const samples: Sample[] = [];
  const t0 = wallMs();
  const end = t0 + seconds * 1000;
  const cap = Math.ceil(seconds * 5000); // bounded: at most 5,000 requests per second in all
  await Promise.all(
    Array.from({ length: USERS }, async (_, u) => {
      if (think > 0) await sleep(Math.random() * think); // spread the first requests
      while (wallMs() < end && samples.length < cap) {
        samples.push(await request(path));
        if (think > 0) await sleep(Math.random() * 2 * think);
      }
      return u;
    }),
  );
  return { samples, seconds: (wallMs() - t0) / 1000 };
}

/** Webhooks at `rate` per second while `during` runs; returns the acks' latencies. */
async function withIngest<T>(rate: number, seconds: number, during: () => Promise<T>) {
  const tag = runTag();
  const ingest =
    rate > 0 ? pacedWebhooks(inst, `pg-${tag}-`, rate, Math.ceil(rate * seconds), seconds * 1000 + 1000) : null;
  const result = await during();
  const sent = ingest ? await ingest : null;
  const acks = sent?.results ?? [];
  return {
    result,
    webhooks: acks.length,
    webhookErrors: acks.filter((r) => r.status !== 200).length,
    ackMs: stats(acks.filter((r) => r.ackAt !== null).map((r) => r.ackAt! - r.sentAt)),
  };
}

function summarize(samples: Sample[], seconds: number) {
  const ok = samples.filter((s) => s.status === 200);
  return {
    requests: samples.length,
    errors: samples.length - ok.length,
    statuses: samples.reduce<Record<string, number>>((acc, s) => ((acc[s.status] = (acc[s.status] ?? 0) + 1), acc), {}),
    perSecond: Math.round((samples.length / seconds) * 10) / 10,
    ttfbMs: stats(ok.map((s) => s.ttfb)),
    fullMs: stats(ok.map((s) => s.full)),
    p95TtfbMs: null as number | null,
    avgBytes: ok.length ? Math.round(ok.reduce((a, s) => a + s.bytes, 0) / ok.length) : 0,
  };
}

function p95(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)]! * 100) / 100;
}

async function countOf(table: string, where = ""): Promise<number> {
  const row = await inst.db.one<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} ${where}`);
  return Number(row?.n ?? 0);
}

// ---------------------------------------------------------------------------------------
// Run
// ---------------------------------------------------------------------------------------

log(`seeding ${TRADES} trades...`);
const seeded = await seedRoundTrips(inst, TRADES);
log(
  `seeded ${seeded.trades} trades, ${seeded.signals} signals, ${seeded.positions} closed positions in ${seeded.ms} ms`,
);
await warmup(inst, args);
// Every target 40 times, each on a new connection so that every web process serves some
// (caches, JIT), and a check that each answers 200.
for (const t of targets) {
  for (let i = 0; i < 40; i++) {
    const s = await request(t.path, true);
    if (s.status !== 200) throw new Error(`GET ${t.path} answered ${s.status} during the warm-up`);
  }
}

const results: Record<string, unknown>[] = [];
for (const t of targets) {
  const other = await awaitQuiet(inst, args, t.name);
  const tradesBefore = await countOf("trades");
  const cpu = cpuSampler(inst);
  cpu.start();
  const usersRun = await withIngest(INGEST, DURATION_S, () => users(t.path, DURATION_S, THINK_MS));
  const usersCpu = cpu.stop();
  assertAlive(inst, `${t.name} (users)`);
  const capCpu = cpuSampler(inst);
  capCpu.start();
  const capacityRun = CAPACITY_S > 0 ? await withIngest(INGEST, CAPACITY_S, () => users(t.path, CAPACITY_S, 0)) : null;
  const capacityCpu = capCpu.stop();
  assertAlive(inst, `${t.name} (capacity)`);
  const u = summarize(usersRun.result.samples, usersRun.result.seconds);
  u.p95TtfbMs = p95(usersRun.result.samples.filter((s) => s.status === 200).map((s) => s.ttfb));
  const c = capacityRun ? summarize(capacityRun.result.samples, capacityRun.result.seconds) : null;
  if (c && capacityRun)
    c.p95TtfbMs = p95(capacityRun.result.samples.filter((s) => s.status === 200).map((s) => s.ttfb));
  const v = {
    p95: verdict(u.p95TtfbMs, 50),
    p99: verdict(u.ttfbMs.p99, 120),
    errors: u.errors === 0 && (c?.errors ?? 0) === 0 ? "PASS" : "MISS",
    ...(t.name === "dashboard" && c ? { capacity300: c.perSecond >= 300 ? "PASS" : "MISS" } : {}),
  };
  const row = {
    target: t.name,
    path: t.path,
    tradesInDb: tradesBefore,
    users: {
      ...u,
      webhooks: usersRun.webhooks,
      webhookErrors: usersRun.webhookErrors,
      webhookAckMs: usersRun.ackMs,
      cpuPercent: usersCpu,
    },
    capacity:
      c && capacityRun
        ? {
            ...c,
            webhooks: capacityRun.webhooks,
            webhookErrors: capacityRun.webhookErrors,
            webhookAckMs: capacityRun.ackMs,
            cpuPercent: capacityCpu,
          }
        : null,
    otherBefore: other,
    verdicts: v,
  };
  results.push(row);
  log(
    `${t.name.padEnd(22)} ${USERS} users (think ${THINK_MS} ms): ${u.requests} req (${u.perSecond}/s), TTFB p50 ${u.ttfbMs.p50} p95 ${u.p95TtfbMs} p99 ${u.ttfbMs.p99} max ${u.ttfbMs.max} ms, full p95 ${p95(usersRun.result.samples.map((s) => s.full))} ms, errors ${u.errors}` +
      ` | capacity: ${c ? `${c.perSecond}/s, TTFB p50 ${c.ttfbMs.p50} p95 ${c.p95TtfbMs} p99 ${c.ttfbMs.p99} ms, errors ${c.errors}` : "-"}` +
      ` | webhooks ${usersRun.webhooks} (errors ${usersRun.webhookErrors}, ack p99 ${usersRun.ackMs.p99} ms) | T5 p95 ${v.p95} p99 ${v.p99}${"capacity300" in v ? ` capacity ${v.capacity300}` : ""} | cpu ${fmtCpu(usersCpu)}`,
  );
}

const totals = {
  trades: await countOf("trades"),
  signals: await countOf("signals"),
  positions: await countOf("positions"),
  openPositions: await countOf("positions", "WHERE status = 'open'"),
};
console.log(`\n=== pages benchmark (${dialect}, ${appSource}) ===`);
console.log(
  `seeded ${seeded.trades} trades; at the end ${totals.trades} trades, ${totals.signals} signals, ${totals.positions} positions (${totals.openPositions} open)`,
);
console.log(
  `target                 | users: TTFB p50 / p95 / p99 ms (req/s)      | capacity: req/s, TTFB p50 / p95 / p99 ms | verdict`,
);
for (const r of results as {
  target: string;
  users: ReturnType<typeof summarize>;
  capacity: ReturnType<typeof summarize> | null;
  verdicts: Record<string, string>;
}[]) {
  console.log(
    `${r.target.padEnd(22)} | ${r.users.ttfbMs.p50} / ${r.users.p95TtfbMs} / ${r.users.ttfbMs.p99} (${r.users.perSecond}/s) | ${r.capacity ? `${r.capacity.perSecond}/s, ${r.capacity.ttfbMs.p50} / ${r.capacity.p95TtfbMs} / ${r.capacity.ttfbMs.p99}` : "-"} | ${Object.entries(
      r.verdicts,
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
  );
}
await finish(
  {
    bench: "pages",
    ...runInfo,
    seeded,
    totals,
    users: USERS,
    thinkMs: THINK_MS,
    ingestPerSecond: INGEST,
    durationS: DURATION_S,
    capacityDurationS: CAPACITY_S,
    results,
  },
  results.every((r) => (r.verdicts as { errors: string }).errors === "PASS"),
);
