// Live update delivery (docs/benchmarks.md#targets T4).
//
//   bun bench/live.ts [--mysql] [--sockets 500] [--rate 50] [--duration 20] [--profile]
//                     [--quiet-wait 300] [--quiet-threshold 25]
//                     [--app-dir DIR | --head | --rebuild]
//
// Opens --sockets WebSocket clients on /ws with the admin's session cookie (no Origin
// header, as a non-browser client), then sends webhooks at --rate/s for --duration s. The
// app pushes every event (new_signal and dashboard_update from the webhook, trade_update /
// activity_log / dashboard_update from the worker) to every socket.
//
// Latency of each new_signal delivery to each socket, measured against
//   event     events.created_at of that event (stamped inside the signal's transaction,
//             just before its commit): the closest to "commit -> browser", used for T4;
//   signal    signals.created_at (handler start, before the commit): an upper bound;
//   ack       when the webhook's answer reached the benchmark (after the commit): a lower bound.
// Also for every event of every type (against events.created_at).
// Completeness: each socket must receive every event id after the one its hello named, up
// to a cut-off id taken once traffic stopped; a socket missing any is counted, and so are
// id gaps, duplicates and out-of-order ids as they arrive.
import {
  assertAlive,
  assertLoopback,
  boot,
  finish,
  fmtCpu,
  fmtProfile,
  fmtStats,
  log,
  measuredPhase,
  numArg,
  pacedWebhooks,
  parseArgs,
  runTag,
  sleep,
  stats,
  verdict,
  waitForDrain,
  warmup,
  wallMs,
} from "./lib.ts";

const args = parseArgs();
const socketCount = numArg(args, "sockets", 500);
const rate = numArg(args, "rate", 50);
const seconds = numArg(args, "duration", 20);
const quietWaitS = numArg(args, "quiet-wait", 300);
const { inst, appSource, dialect, runInfo } = await boot(args, "live", (seconds + quietWaitS + 600) * 1000);
const tag = runTag();
await warmup(inst, args);
const prefix = `l-${tag}-`;

interface Client {
  ws: WebSocket;
  helloId: number | null;
  lastId: number;
  received: number;
  jumps: number; // an id that skipped past lastId + 1 (a real miss, or an id that never committed)
  outOfOrder: number; // an id lower than one already received
  duplicates: number; // an id received twice
  closed: boolean;
}

// Receive times per event id: one slot per socket (NaN = not received).
const recv = new Map<number, Float64Array>();
const eventType = new Map<number, string>();
const signalOfEvent = new Map<number, string>();

function onMessage(c: Client, index: number, raw: string) {
  const at = wallMs();
  // Wire format: {"id":N,"type":"...","data":{...}} (or the hello: {"type":"hello",...}).
  if (raw.startsWith('{"type":"hello"')) {
    c.helloId = Number(JSON.parse(raw).data.lastEventId);
    c.lastId = c.helloId;
    return;
  }
  const comma = raw.indexOf(",");
  const id = Number(raw.slice(6, comma));
  if (!Number.isFinite(id)) return;
  c.received++;
  let slots = recv.get(id);
  if (!slots) {
    slots = new Float64Array(socketCount).fill(Number.NaN);
    recv.set(id, slots);
    const typeStart = comma + 9; // ,"type":"
    const type = raw.slice(typeStart, raw.indexOf('"', typeStart));
    eventType.set(id, type);
    if (type === "new_signal") signalOfEvent.set(id, String(JSON.parse(raw).data.id));
  }
  if (!Number.isNaN(slots[index]!)) {
    c.duplicates++;
    return;
  }
  if (id < c.lastId) c.outOfOrder++;
  else {
    if (id !== c.lastId + 1) c.jumps++;
    c.lastId = id;
  }
  slots[index] = at;
}

const wsUrl = `${inst.baseUrl.replace(/^http/, "ws")}/ws`;
assertLoopback(inst.baseUrl);
log(`opening ${socketCount} WebSocket clients on ${wsUrl}`);
const clients: Client[] = [];
const openStarted = wallMs();
let refused = 0;
for (let start = 0; start < socketCount; start += 50) {
  const batch: Promise<void>[] = [];
  for (let i = start; i < Math.min(socketCount, start + 50); i++) {
    const ws = new WebSocket(wsUrl, { headers: { cookie: inst.cookie } } as unknown as string[]);
    const c: Client = {
      ws,
      helloId: null,
      lastId: 0,
      received: 0,
      jumps: 0,
      outOfOrder: 0,
      duplicates: 0,
      closed: false,
    };
    clients.push(c);
    ws.onmessage = (e) => onMessage(c, i, String(e.data));
    ws.onclose = () => (c.closed = true);
    batch.push(
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          refused++;
          resolve();
        }, 10_000);
        const check = setInterval(() => {
          if (c.helloId !== null || c.closed) {
            if (c.closed && c.helloId === null) refused++;
            clearInterval(check);
            clearTimeout(timer);
            resolve();
          }
        }, 5);
      }),
    );
  }
  await Promise.all(batch);
}
const connectMs = Math.round(wallMs() - openStarted);
const open = clients.filter((c) => c.helloId !== null && !c.closed).length;
log(`${open}/${socketCount} sockets open with hello in ${connectMs} ms (${refused} refused or timed out)`);
if (open === 0) throw new Error("no WebSocket client could connect");

const count = Math.round(rate * seconds);
log(`webhooks at ${rate}/s for ${seconds} s (${count}) with ${open} sockets listening`);
const {
  result: run,
  quietBefore,
  cpuUse,
  profile,
} = await measuredPhase(inst, args, "live", () => pacedWebhooks(inst, prefix, rate, count, seconds * 1000 + 5000));
assertAlive(inst, "the live run");
// Let the worker finish, then take the cut-off and give the hub time to deliver up to it
// (15 ms poll, and up to 2 s waiting on an id gap).
await waitForDrain(inst, 120_000, "live");
const cutoff = Number((await inst.db.one<{ m: number }>("SELECT MAX(id) AS m FROM events"))?.m ?? 0);
await sleep(3000);

const firstHello = Math.min(...clients.filter((c) => c.helloId !== null).map((c) => c.helloId!));
const dbEvents = await inst.db.all<{ id: number; type: string; created_at: number }>(
  "SELECT id, type, created_at FROM events WHERE id > ? AND id <= ? ORDER BY id",
  [firstHello, cutoff],
);
const createdAt = new Map(dbEvents.map((e) => [Number(e.id), Number(e.created_at)]));
const dbIds = dbEvents.map((e) => Number(e.id));

// Completeness per socket.
let socketsMissing = 0;
let missedDeliveries = 0;
let jumps = 0;
let outOfOrder = 0;
let duplicates = 0;
let closedEarly = 0;
for (let i = 0; i < clients.length; i++) {
  const c = clients[i]!;
  if (c.helloId === null) continue;
  jumps += c.jumps;
  outOfOrder += c.outOfOrder;
  duplicates += c.duplicates;
  if (c.closed) closedEarly++;
  let missing = 0;
  for (const id of dbIds) if (id > c.helloId && Number.isNaN(recv.get(id)?.[i] ?? Number.NaN)) missing++;
  if (missing > 0) socketsMissing++;
  missedDeliveries += missing;
}
// An id jump over ids that are not in the events table is not a miss (a transaction that
// rolled back used them); the hub waits up to 2 s for such a hole before moving on.
const holes = dbIds.length ? dbIds[dbIds.length - 1]! - dbIds[0]! + 1 - dbIds.length : 0;

// Latencies.
const signals = await inst.db.all<{ id: string; dedupe_key: string; created_at: number }>(
  "SELECT id, dedupe_key, created_at FROM signals WHERE dedupe_key LIKE ?",
  [`id:${prefix}%`],
);
const signalCreated = new Map(signals.map((s) => [s.id, Number(s.created_at)]));
const ackOfSignal = new Map(run.results.filter((r) => r.status === 200 && r.signalId).map((r) => [r.signalId!, r]));
const vsEvent: number[] = [];
const vsSignal: number[] = [];
const vsAck: number[] = [];
const vsSent: number[] = [];
const allVsEvent: number[] = [];
// events.created_at of the new_signal -> the webhook's answer read: the rest of the
// transaction, its commit and the response (what precedes any delivery).
const eventToAck: number[] = [];
let newSignalEvents = 0;
for (const [id, slots] of recv) {
  const created = createdAt.get(id);
  if (created === undefined) continue; // before the window or after the cut-off
  const isSignal = eventType.get(id) === "new_signal";
  const sid = signalOfEvent.get(id);
  const sc = sid ? signalCreated.get(sid) : undefined;
  const ack = sid ? ackOfSignal.get(sid) : undefined;
  if (isSignal && sc !== undefined) {
    newSignalEvents++;
    if (ack?.ackAt) eventToAck.push(ack.ackAt - created);
  }
  for (let i = 0; i < slots.length; i++) {
    const at = slots[i]!;
    if (Number.isNaN(at)) continue;
    allVsEvent.push(at - created);
    if (!isSignal || sc === undefined) continue; // only this run's signals
    vsEvent.push(at - created);
    vsSignal.push(at - sc);
    if (ack?.ackAt) vsAck.push(at - ack.ackAt);
    if (ack) vsSent.push(at - ack.sentAt);
  }
}
const sEvent = stats(vsEvent);
const sSignal = stats(vsSignal);
const sAck = stats(vsAck);
const sSent = stats(vsSent);
const sAll = stats(allVsEvent);
const sEventToAck = stats(eventToAck);
const deliveriesPerSecond = Math.round(allVsEvent.length / (run.elapsedMs / 1000));
const typeCounts: Record<string, number> = {};
for (const e of dbEvents) typeCounts[e.type] = (typeCounts[e.type] ?? 0) + 1;

const v = {
  p50: verdict(sEvent.p50, 20),
  p99: verdict(sEvent.p99, 100),
  noGaps: socketsMissing === 0 && outOfOrder === 0 && duplicates === 0 ? "PASS" : "MISS",
};
const lines = [
  `${open} sockets (connected in ${connectMs} ms), ${run.results.length} webhooks at ${run.achievedRate}/s, ${newSignalEvents} new_signal events, ${dbEvents.length} events in all ${JSON.stringify(typeCounts)}`,
  `new_signal delivery - events.created_at:  ${fmtStats(sEvent)}`,
  `new_signal delivery - signals.created_at: ${fmtStats(sSignal)}`,
  `new_signal delivery - webhook ack:        ${fmtStats(sAck)}`,
  `new_signal delivery - webhook sent:       ${fmtStats(sSent)}`,
  `(new_signal events.created_at -> webhook ack: ${fmtStats(sEventToAck)})`,
  `every event delivery - events.created_at: ${fmtStats(sAll)} (${deliveriesPerSecond} deliveries/s)`,
  `T4 p50<=20 ${v.p50}, p99<=100 ${v.p99}; sockets that missed an event ${socketsMissing} (deliveries missed ${missedDeliveries}), out of order ${outOfOrder}, duplicates ${duplicates}, closed early ${closedEarly}: ${v.noGaps}`,
  `id jumps seen by clients ${jumps} (ids never committed in the window: ${holes})`,
  `cpu during sending: ${fmtCpu(cpuUse)}`,
  ...(profile ? [fmtProfile(profile)] : []),
];
console.log(`\n=== live benchmark (${dialect}, ${appSource}) ===\n${lines.join("\n")}\n`);
for (const c of clients) {
  try {
    c.ws.close();
  } catch {}
}
await finish(
  {
    bench: "live",
    ...runInfo,
    sockets: socketCount,
    socketsOpen: open,
    connectMs,
    rate,
    seconds,
    webhooks: run.results.length,
    webhookErrors: run.results.filter((r) => r.status !== 200).length,
    achievedRate: run.achievedRate,
    events: dbEvents.length,
    eventTypes: typeCounts,
    newSignalEvents,
    deliveries: allVsEvent.length,
    deliveriesPerSecond,
    newSignalVsEventMs: sEvent,
    newSignalVsSignalMs: sSignal,
    newSignalVsAckMs: sAck,
    newSignalVsSentMs: sSent,
    allEventsVsEventMs: sAll,
    newSignalEventToAckMs: sEventToAck,
    socketsMissing,
    missedDeliveries,
    idJumps: jumps,
    uncommittedIds: holes,
    outOfOrder,
    duplicates,
    closedEarly,
    cpuPercent: cpuUse,
    otherCpuBefore: quietBefore,
    profile,
    verdicts: v,
  },
  socketsMissing === 0 && outOfOrder === 0 && duplicates === 0,
);
