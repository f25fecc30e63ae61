// Signal-to-order latency (docs/benchmarks.md#targets T3).
//
//   bun bench/signal-to-order.ts [--mysql] [--rate 20] [--duration 30] [--profile]
//                                [--quiet-wait 300] [--quiet-threshold 25]
//                                [--app-dir DIR | --head | --rebuild]
//
// Webhooks at --rate signals/s for --duration s (market orders, unique alert ids). When the
// worker has drained, every signal is joined to its order at the simulated exchange:
//   signals.id = trades.signal_id, trades.client_order_id = sim_orders.client_order_id.
// Timestamps (all epoch ms, same machine clock):
//   sent      the benchmark's clock just before the request was written
//   received  signals.created_at: stamped when the webhook handler starts on the request
//             (before the dedupe reads and the signal+job commit)
//   trade     trades.created_at: the worker claimed the job, sized it and wrote the trade
//   placed    sim_orders.created_at: the order reached the simulated exchange (inside the
//             simulator's transaction, after it locked the account)
//   booked    trades.executed_at: the fill was booked (exchange ack persisted)
// And the app's own latency timeline per signal (issue 12, table signal_timeline): received,
// committed, claimed, sent, acked, filled, each step's p50 / p99 (the benchmark's send time
// stands in for TradingView's fire time). Try it at the issue's rate: --rate 50.
import {
  assertAlive,
  boot,
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
  pacedWebhooks,
  parseArgs,
  runTag,
  stats,
  verdict,
  waitForDrain,
  warmup,
} from "./lib.ts";

const args = parseArgs();
const rate = numArg(args, "rate", 20);
const seconds = numArg(args, "duration", 30);
const quietWaitS = numArg(args, "quiet-wait", 300);
const { inst, appSource, dialect, runInfo } = await boot(args, "s2o", (seconds + quietWaitS + 600) * 1000);
const tag = runTag();
await warmup(inst, args);
const prefix = `s-${tag}-`;

const count = Math.round(rate * seconds);
log(`${rate} signals/s for ${seconds} s (${count} market orders)`);
// The CPU figures cover the drain too: the worker's part of the orders.
const { result, quietBefore, cpuUse, profile } = await measuredPhase(inst, args, "signal-to-order", async () => {
  const run = await pacedWebhooks(inst, prefix, rate, count, seconds * 1000 + 5000);
  assertAlive(inst, "the signal-to-order run");
  return { run, drain: await waitForDrain(inst, 120_000, "signal-to-order") };
});
const { run, drain } = result;
const integrity = await checkIntegrity(inst, prefix, run.results);

interface Row {
  signal_id: string;
  dedupe_key: string;
  received: number;
  trade: number;
  placed: number;
  booked: number | null;
  job_created: number;
  job_finished: number | null;
}
const rows = await inst.db.all<Row>(
  `SELECT s.id AS signal_id, s.dedupe_key, s.created_at AS received, t.created_at AS trade, o.created_at AS placed,
          t.executed_at AS booked, j.created_at AS job_created, j.finished_at AS job_finished
     FROM signals s
     JOIN trades t ON t.signal_id = s.id
     JOIN sim_orders o ON o.client_order_id = t.client_order_id
     JOIN jobs j ON j.signal_id = s.id
    WHERE s.dedupe_key LIKE ?`,
  [`id:${prefix}%`],
);
const sent = new Map(run.results.filter((r) => r.status === 200).map((r) => [r.alertId, r]));
const n = (v: unknown) => Number(v);
const signalToOrder = rows.map((r) => n(r.placed) - n(r.received));
const sentToOrder = rows
  .filter((r) => sent.has(r.dedupe_key.slice(3)))
  .map((r) => n(r.placed) - sent.get(r.dedupe_key.slice(3))!.sentAt);
const signalToBooked = rows.filter((r) => r.booked !== null).map((r) => n(r.booked) - n(r.received));
const signalToTrade = rows.map((r) => n(r.trade) - n(r.received));
const tradeToOrder = rows.map((r) => n(r.placed) - n(r.trade));
const orderToBooked = rows.filter((r) => r.booked !== null).map((r) => n(r.booked) - n(r.placed));
// After the answer (so after the commit) until the worker wrote the trade row: the wait for
// the runner's next poll (every 20 ms, idle) plus the claim and the reads before the trade insert.
const ackToTrade = rows
  .filter((r) => sent.has(r.dedupe_key.slice(3)))
  .map((r) => n(r.trade) - sent.get(r.dedupe_key.slice(3))!.ackAt!);
const receivedToAck = rows
  .filter((r) => sent.has(r.dedupe_key.slice(3)))
  .map((r) => sent.get(r.dedupe_key.slice(3))!.ackAt! - n(r.received));
const ackLatency = stats(run.results.filter((r) => r.status === 200).map((r) => r.ackAt! - r.sentAt));
const unmatched = integrity.stored - rows.length;

// The app's own timeline (issue 12): null when the app under test predates signal_timeline.
interface TimelineRow {
  dedupe_key: string;
  received_at: number | null;
  committed_at: number | null;
  claimed_at: number | null;
  sent_at: number | null;
  acked_at: number | null;
  filled_at: number | null;
}
const timelineRows = await inst.db
  .all<TimelineRow>(
    `SELECT s.dedupe_key, t.received_at, t.committed_at, t.claimed_at, t.sent_at, t.acked_at, t.filled_at
       FROM signal_timeline t JOIN signals s ON s.id = t.signal_id
      WHERE s.dedupe_key LIKE ?`,
    [`id:${prefix}%`],
  )
  .catch(() => null);
const HOP_STEPS = [
  ["fired", "received"],
  ["received", "committed"],
  ["committed", "claimed"],
  ["claimed", "sent"],
  ["sent", "acked"],
  ["acked", "filled"],
  ["received", "filled"],
] as const;
const timeline = timelineRows
  ? Object.fromEntries(
      HOP_STEPS.map(([from, to]) => {
        const at = (r: TimelineRow, hop: string) =>
          hop === "fired"
            ? (sent.get(r.dedupe_key.slice(3))?.sentAt ?? null)
            : r[`${hop}_at` as keyof TimelineRow] === null
              ? null
              : n(r[`${hop}_at` as keyof TimelineRow]);
        const values = timelineRows.flatMap((r) => {
          const a = at(r, from);
          const b = at(r, to);
          return a !== null && b !== null ? [b - a] : [];
        });
        return [`${from}->${to}`, stats(values)];
      }),
    )
  : null;
const timelineComplete = timelineRows
  ? timelineRows.filter(
      (r) => r.received_at && r.committed_at && r.claimed_at && r.sent_at && r.acked_at && r.filled_at,
    ).length
  : 0;
const timelineMonotonic = timelineRows
  ? timelineRows.every((r) => {
      const v = [r.received_at, r.committed_at, r.claimed_at, r.sent_at, r.acked_at, r.filled_at]
        .filter((x) => x !== null)
        .map(n);
      return v.every((x, i) => i === 0 || x >= v[i - 1]!);
    })
  : null;

const s2o = stats(signalToOrder);
const w2o = stats(sentToOrder);
const s2b = stats(signalToBooked);
const v = {
  p50: verdict(s2o.p50, 10),
  p99: verdict(s2o.p99, 50),
  p999: verdict(s2o.p999, 200),
  bookedP99: verdict(s2b.p99, 100),
  allOrdered: unmatched === 0 ? "PASS" : "MISS",
};
const breakdown = {
  receivedToAck: stats(receivedToAck),
  signalToTradeRow: stats(signalToTrade),
  ackToTradeRow: stats(ackToTrade),
  tradeRowToOrder: stats(tradeToOrder),
  orderToBooked: stats(orderToBooked),
};
const lines = [
  `signal (received) -> order placed: ${fmtStats(s2o)}`,
  `webhook sent -> order placed:      ${fmtStats(w2o)}`,
  `signal -> fill booked (ack):       ${fmtStats(s2b)}`,
  `T3 p50<=10 ${v.p50}, p99<=50 ${v.p99}, p99.9<=200 ${v.p999}, booked p99<=100 ${v.bookedP99}; signals without an order ${unmatched}`,
  `breakdown: received->ack p50 ${breakdown.receivedToAck.p50} p99 ${breakdown.receivedToAck.p99} | received->trade row p50 ${breakdown.signalToTradeRow.p50} p99 ${breakdown.signalToTradeRow.p99} | ack->trade row (poll wait+claim+reads) p10 ${breakdown.ackToTradeRow.p10} p50 ${breakdown.ackToTradeRow.p50} p90 ${breakdown.ackToTradeRow.p90} p99 ${breakdown.ackToTradeRow.p99} | trade row->order p50 ${breakdown.tradeRowToOrder.p50} p99 ${breakdown.tradeRowToOrder.p99} | order->booked p50 ${breakdown.orderToBooked.p50} p99 ${breakdown.orderToBooked.p99} (ms)`,
  `webhook ack: ${fmtStats(ackLatency)}; achieved ${run.achievedRate}/s; cpu: ${fmtCpu(cpuUse)}`,
  timeline
    ? `timeline (signal_timeline, ${timelineComplete}/${timelineRows!.length} with every hop, monotonic ${timelineMonotonic ? "yes" : "NO"}): ${Object.entries(
        timeline,
      )
        .map(([step, st]) => `${step} p50 ${st.p50} p99 ${st.p99}`)
        .join(" | ")} (ms; fired = the benchmark's send time)`
    : "timeline: no signal_timeline table in the app under test",
  fmtIntegrity(integrity),
  ...(profile ? [fmtProfile(profile)] : []),
];
console.log(`\n=== signal-to-order benchmark (${dialect}, ${appSource}) ===\n${lines.join("\n")}\n`);
await finish(
  {
    bench: "signal-to-order",
    ...runInfo,
    rate,
    seconds,
    sent: run.results.length,
    achievedRate: run.achievedRate,
    drainMs: drain.ms,
    matched: rows.length,
    signalToOrderMs: s2o,
    webhookSentToOrderMs: w2o,
    signalToBookedMs: s2b,
    breakdownMs: breakdown,
    timelineMs: timeline,
    timelineComplete,
    timelineMonotonic,
    ackMs: ackLatency,
    cpuPercent: cpuUse,
    otherCpuBefore: quietBefore,
    profile,
    integrity,
    verdicts: v,
  },
  integrityOk(integrity),
);
