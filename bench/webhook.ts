// Webhook ingest benchmark (docs/benchmarks.md#targets T1, T2).
//
//   bun bench/webhook.ts [--mysql] [--duration 60] [--ack-duration 30] [--rate 500]
//                        [--burst 2000] [--burst-concurrency 200] [--phases abc]
//                        [--drain-timeout 600] [--profile] [--no-orders] [--quiet-wait 300] [--quiet-threshold 25]
//                        [--app-dir DIR | --head | --rebuild] [--strategy]
//
// (a) ack latency at 50 req/s for --ack-duration s, unique alert ids;
// (b) sustained --rate req/s (default 500) for --duration s, 10 % of the requests resend an
//     earlier alert (same body, same id) as TradingView's retries would;
// (c) --burst requests (default 2,000) released at once, --burst-concurrency in flight.
// The machine may be shared: before each phase the script waits (at most --quiet-wait s)
// until other processes use less than --quiet-threshold % of a core, and records what
// they used during the phase ("other processes").
// --profile samples the web and worker main threads during each phase (bench/sampler.ts).
// After each phase the worker is left to drain, then the database is read directly:
// signals stored vs acknowledged, jobs / trades / simulator orders per signal.
import {
  type Integrity,
  type WebhookResult,
  assertAlive,
  boot,
  burst,
  checkIntegrity,
  finish,
  fmtCpu,
  fmtIntegrity,
  fmtProfile,
  fmtStats,
  integrityOk,
  log,
  measuredPhase,
  numArg,
  pacedLoop,
  pacedWebhooks,
  parseArgs,
  postWebhook,
  runTag,
  setAutoTrading,
  stats,
  verdict,
  waitForDrain,
  warmup,
} from "./lib.ts";

const args = parseArgs();
const ackSeconds = numArg(args, "ack-duration", 30);
const sustainedSeconds = numArg(args, "duration", 60);
const sustainedRate = numArg(args, "rate", 500);
const burstCount = numArg(args, "burst", 2000);
const burstConcurrency = numArg(args, "burst-concurrency", 200);
const drainTimeoutMs = numArg(args, "drain-timeout", 600) * 1000;
const phases = typeof args.phases === "string" ? args.phases : "abc";

const quietWaitS = numArg(args, "quiet-wait", 300);
const maxTotalMs = (ackSeconds + sustainedSeconds + 120 + 3 * quietWaitS) * 1000 + 3 * drainTimeoutMs + 180_000;
const { inst, appSource, dialect, runInfo } = await boot(args, "webhook", maxTotalMs);
if (args.strategy) {
  // --strategy: every alert carries a strategy's own secret (resolved per alert through the
  // web process's strategy cache, decision 027) instead of the global one.
  const created = await fetch(`${inst.baseUrl}/api/strategies`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: inst.cookie },
    body: JSON.stringify({ name: "bench" }),
  });
  if (created.status !== 201)
    throw new Error(`POST /api/strategies answered ${created.status}: ${await created.text()}`);
  inst.secret = ((await created.json()) as { secret: string }).secret;
}
const tag = runTag();
await warmup(inst, args);
// --no-orders: auto trading off, so every signal is stored "skipped" with its job cancelled
// in the same transaction and the worker places no orders (isolates ingest from execution).
const noOrders = Boolean(args["no-orders"]);
if (noOrders) {
  await setAutoTrading(inst, false);
  log("auto trading switched off (--no-orders): ingest only");
}

function latencyReport(results: WebhookResult[]) {
  const ok = results.filter((r) => r.status === 200 && r.ackAt !== null);
  const service = stats(ok.map((r) => r.ackAt! - r.sentAt));
  const fromDue = stats(ok.map((r) => r.ackAt! - r.intendedAt));
  const statusCounts: Record<string, number> = {};
  for (const r of results) {
    const key = `${r.status}${r.status === 200 ? `:${r.outcome}` : ""}`;
    statusCounts[key] = (statusCounts[key] ?? 0) + 1;
  }
  const errors = results.filter((r) => r.status !== 200).length;
  const answered = results.filter((r) => r.ackAt !== null);
  const slowest = answered.length ? Math.max(...answered.map((r) => r.ackAt! - r.sentAt)) : null;
  return {
    service,
    fromDue,
    statusCounts,
    errors,
    slowestAnswerMs: slowest === null ? null : Math.round(slowest * 100) / 100,
  };
}

async function settle(
  label: string,
  prefix: string,
  results: WebhookResult[],
): Promise<{ drainMs: number | null; jobsLeft: number; integrity: Integrity }> {
  assertAlive(inst, label);
  const drain = await waitForDrain(inst, drainTimeoutMs, label);
  if (drain.ms === null) log(`${label}: NOT drained after ${drainTimeoutMs / 1000} s (${drain.left} jobs left)`);
  else log(`${label}: worker drained ${drain.ms} ms after the last answer`);
  const integrity = await checkIntegrity(inst, prefix, results);
  return { drainMs: drain.ms, jobsLeft: drain.left, integrity };
}

const summary: Record<string, unknown> = {
  bench: "webhook",
  ...runInfo,
  mode: noOrders ? "ingest only (auto trading off)" : "orders",
  phases: {},
};
const out = summary.phases as Record<string, unknown>;
let allIntact = true;
const lines: string[] = [];

/** What every phase records beside its own figures: latency, errors, CPU, profile, drain and integrity, verdicts. */
function phaseRecord(
  lat: ReturnType<typeof latencyReport>,
  measured: { quietBefore: unknown; cpuUse: unknown; profile: Record<string, unknown> | null },
  settled: Awaited<ReturnType<typeof settle>>,
  verdicts: Record<string, string>,
) {
  return {
    latencyMs: lat.service,
    latencyFromDueMs: lat.fromDue,
    errors: lat.errors,
    statusCounts: lat.statusCounts,
    cpuPercent: measured.cpuUse,
    otherCpuBefore: measured.quietBefore,
    profile: measured.profile,
    ...settled,
    verdicts,
  };
}

/** A phase's summary lines, then its integrity and profile lines: kept for the final summary and printed now. */
function phaseLines(settled: { integrity: Integrity }, profile: Record<string, unknown> | null, ...head: string[]) {
  const block = [...head, `    ${fmtIntegrity(settled.integrity)}`, ...(profile ? [`    ${fmtProfile(profile)}`] : [])];
  lines.push(...block);
  log(block.join("\n"));
}

// (a) ack latency at 50 req/s ------------------------------------------------------------
if (phases.includes("a")) {
  const label = "(a)";
  const prefix = `a-${tag}-`;
  const rate = 50;
  const count = Math.round(rate * ackSeconds);
  log(`(a) ${rate} req/s for ${ackSeconds} s (${count} requests, unique ids)`);
  const measured = await measuredPhase(inst, args, label, () =>
    pacedWebhooks(inst, prefix, rate, count, ackSeconds * 1000 + 5000),
  );
  const run = measured.result;
  const lat = latencyReport(run.results);
  const settled = await settle("(a)", prefix, run.results);
  allIntact &&= integrityOk(settled.integrity);
  const v = {
    p50: verdict(lat.service.p50, 5),
    p99: verdict(lat.service.p99, 20),
    p999: verdict(lat.service.p999, 50),
    deadline: verdict(lat.slowestAnswerMs, 2000),
  };
  out.a = {
    rate,
    seconds: ackSeconds,
    sent: run.results.length,
    achievedRate: run.achievedRate,
    maxStartLagMs: run.maxStartLagMs,
    ...phaseRecord(lat, measured, settled, v),
  };
  phaseLines(
    settled,
    measured.profile,
    `(a) ack @ ${rate}/s x ${ackSeconds}s: ${fmtStats(lat.service)}  errors ${lat.errors}`,
    `    T1 p50<=5 ${v.p50}, p99<=20 ${v.p99}, p99.9<=50 ${v.p999}, all answered <=2s ${v.deadline}; cpu: ${fmtCpu(measured.cpuUse)}`,
  );
}

// (b) sustained rate, 10 % resends -------------------------------------------------------
if (phases.includes("b")) {
  const label = "(b)";
  const prefix = `b-${tag}-`;
  const count = Math.round(sustainedRate * sustainedSeconds);
  log(`(b) ${sustainedRate} req/s for ${sustainedSeconds} s (${count} requests, 10 % resends of earlier alerts)`);
  let resends = 0;
  const measured = await measuredPhase(inst, args, label, () =>
    pacedLoop({
      rate: sustainedRate,
      count,
      maxMs: sustainedSeconds * 1000 + 10_000,
      maxInFlight: 2000,
      fire: (i, due) => {
        // Every 10th request resends one of the previous ≤ 1,000 alerts (maybe still in flight).
        let n = i;
        if (i % 10 === 9) {
          n = i - 1 - Math.floor(Math.random() * Math.min(i, 1000));
          resends++;
        }
        return postWebhook(inst, `${prefix}${n}`, n, due);
      },
    }),
  );
  const run = measured.result;
  const lat = latencyReport(run.results);
  const settled = await settle("(b)", prefix, run.results);
  allIntact &&= integrityOk(settled.integrity);
  const v = {
    rate: run.achievedRate >= sustainedRate * 0.98 ? "PASS" : "MISS",
    p99: verdict(lat.service.p99, 50),
    errors: lat.errors === 0 ? "PASS" : "MISS",
    zeroLoss: settled.integrity.lost === 0 ? "PASS" : "MISS",
    noDuplicates:
      settled.integrity.duplicateJobs === 0 &&
      settled.integrity.duplicateOrders === 0 &&
      settled.integrity.ackIdMismatch === 0
        ? "PASS"
        : "MISS",
  };
  // The app's real ingest rate: signals of this phase per second between the first and the
  // last one it stamped (it goes on committing requests the generator gave up on).
  const span = await inst.db.one<{ first: number; last: number }>(
    "SELECT MIN(created_at) AS first, MAX(created_at) AS last FROM signals WHERE dedupe_key LIKE ?",
    [`id:${prefix}%`],
  );
  const spanS = (Number(span?.last ?? 0) - Number(span?.first ?? 0)) / 1000;
  const storedPerSecond = spanS > 0 ? Math.round((settled.integrity.stored / spanS) * 10) / 10 : null;
  out.b = {
    rate: sustainedRate,
    seconds: sustainedSeconds,
    sent: run.results.length,
    resends,
    achievedRate: run.achievedRate,
    elapsedMs: Math.round(run.elapsedMs),
    storedPerSecond,
    commitSpanS: Math.round(spanS * 10) / 10,
    stoppedBy: run.stoppedBy,
    maxStartLagMs: run.maxStartLagMs,
    cappedStarts: run.cappedStarts,
    ...phaseRecord(lat, measured, settled, v),
  };
  phaseLines(
    settled,
    measured.profile,
    `(b) sustained ${sustainedRate}/s x ${sustainedSeconds}s: requests started ${run.achievedRate}/s, signals committed ${storedPerSecond}/s over ${Math.round(spanS)} s, ${fmtStats(lat.service)}  errors ${lat.errors}`,
    `    from due time (coordinated omission): p99 ${lat.fromDue.p99} ms, max ${lat.fromDue.max} ms; generator lag max ${run.maxStartLagMs} ms`,
    `    T2 rate ${v.rate}, p99<=50 ${v.p99}, 0 errors ${v.errors}, 0 lost ${v.zeroLoss}, 0 dup ${v.noDuplicates}; drained in ${settled.drainMs ?? "-"} ms; cpu: ${fmtCpu(measured.cpuUse)}`,
  );
}

// (c) burst ------------------------------------------------------------------------------
if (phases.includes("c")) {
  const label = "(c)";
  const prefix = `c-${tag}-`;
  log(`(c) burst of ${burstCount} requests, ${burstConcurrency} in flight`);
  const measured = await measuredPhase(inst, args, label, () =>
    burst(burstCount, burstConcurrency, (i) => postWebhook(inst, `${prefix}${i}`, i)),
  );
  const results = measured.result;
  const lat = latencyReport(results);
  const firstSent = Math.min(...results.map((r) => r.sentAt));
  const acks = results.filter((r) => r.ackAt !== null).map((r) => r.ackAt!);
  const allAckedWithinMs =
    acks.length === results.length ? Math.round((Math.max(...acks) - firstSent) * 10) / 10 : null;
  const settled = await settle("(c)", prefix, results);
  allIntact &&= integrityOk(settled.integrity);
  const v = {
    allAckedWithin1s: verdict(allAckedWithinMs, 1000),
    errors: lat.errors === 0 ? "PASS" : "MISS",
    zeroLoss: settled.integrity.lost === 0 ? "PASS" : "MISS",
    noDuplicates: settled.integrity.duplicateJobs === 0 && settled.integrity.duplicateOrders === 0 ? "PASS" : "MISS",
  };
  out.c = {
    count: burstCount,
    concurrency: burstConcurrency,
    allAckedWithinMs,
    ...phaseRecord(lat, measured, settled, v),
  };
  phaseLines(
    settled,
    measured.profile,
    `(c) burst ${burstCount} @ ${burstConcurrency} in flight: all acked within ${allAckedWithinMs ?? "-"} ms, ${fmtStats(lat.service)}  errors ${lat.errors}`,
    `    T2 burst all acked <=1s ${v.allAckedWithin1s}, 0 errors ${v.errors}, 0 lost ${v.zeroLoss}, 0 dup ${v.noDuplicates}; drained in ${settled.drainMs ?? "-"} ms; cpu: ${fmtCpu(measured.cpuUse)}`,
  );
}

console.log(
  `\n=== webhook benchmark (${dialect}${noOrders ? ", ingest only" : ""}, ${appSource}) ===\n${lines.join("\n")}\n`,
);
summary.intact = allIntact;
await finish(summary, allIntact);
