// The chaos run of issue 21: the app trading live on the fake Coinbase while a share of its
// exchange calls fail at random and its worker is killed with SIGKILL on a schedule; at the
// end the exchange and the app must agree (docs/operations.md, "Chaos run").
//
//   npm run chaos -- [--quick] [--seed N] [--signals 500] [--duration 600] [--kill-every 60]
//                    [--fault-percent 10] [--settle 120] [--dialect sqlite|mysql]
//                    [--app-dir DIR | --head | --rebuild] [--keep-logs]
//
// 1. The fake Coinbase of tests/msw/coinbase.ts runs in this process over HTTP
//    (tests/fakes/coinbase-server.ts). Its `chaos` option fails --fault-percent of the signed
//    (private) calls, drawn from a seeded PRNG: an error after the work was done (an order
//    placed, then a 500), a hang (the client's timeout fires), a slow answer (1-8 s), a 5xx
//    before any work, "not found" on a cancel or an order read.
// 2. The web process (`bun server.ts`) over a fresh database (a SQLite file in a temp dir, or
//    with --dialect mysql a fresh MariaDB database on 127.0.0.1:3306, root, no password);
//    the admin registers and saves the Coinbase key with sandbox off (the worker trades live);
//    the worker (`bun worker/index.ts`) is a child of this process, SIGKILLed every
//    --kill-every seconds and started again a second later (as scripts/start.ts would).
// 3. --signals TradingView webhooks spread over --duration seconds: buy / sell / close
//    (target position flat) on BTC-, ETH-, SOL- and XRP-PERP, 1-3 whole contracts, 5 % of
//    them sent again (TradingView's retries); the fake's prices walk at random every second
//    with an occasional 0.8-2 % jump, so the resting stops move, trigger and fill.
// 4. The end: faults and prices stop, the last worker drains the jobs; then, polled until they
//    hold (at most --settle seconds): per symbol the fake's position (contracts x contract
//    size, side) equals the app's open position, and there is exactly one resting stop-limit
//    order per open position (none when flat) for its size; and over the whole run no client
//    order id made two orders, no signal made two orders, trades or jobs, and every resent
//    alert was answered with its first signal id.
//
// Prints a table and, as its last line, one JSON object; exit status 1 when an invariant
// failed (with the evidence: activity log, trades, the fake's orders of the symbol).
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Big from "big.js";
import { mulberry32 } from "#exchange/simulator/price-feed.ts";
import { type CoinbaseServer, startCoinbaseServer } from "../tests/fakes/coinbase-server.ts";
import { FAKE_PRODUCTS, type Fault, makeCdpKey } from "../tests/msw/coinbase.ts";
import { groupAlive, stopGroup, waitUntil } from "../tests/support/process-group.ts";
import {
  BIN_DIR,
  type DbReader,
  assertLoopback,
  cleanupAll,
  freePort,
  installGuards,
  log,
  machineInfo,
  numArg,
  onCleanup,
  parseArgs,
  prepareApp,
  scratchDatabase,
  sleep,
  waitForHealth,
} from "./lib.ts";

const args = parseArgs();
const quick = Boolean(args.quick);
const seed = numArg(args, "seed", Number.parseInt(randomBytes(3).toString("hex"), 16));
const signalCount = numArg(args, "signals", quick ? 60 : 500);
const durationS = numArg(args, "duration", quick ? 90 : 600);
const killEveryS = numArg(args, "kill-every", quick ? 15 : 60);
const faultPercent = numArg(args, "fault-percent", 10);
const settleS = numArg(args, "settle", 120);
const dialect = args.dialect === "mysql" || args.mysql === true ? "mysql" : "sqlite";
const keepLogs = Boolean(args["keep-logs"]);
const startedAt = Date.now();
installGuards((durationS + settleS + 900) * 1000);

// ---------------------------------------------------------------------------------------
// Seeded randomness: one stream per concern, so the signals and prices of a seed are the
// same whatever the timing of the exchange calls (whose faults draw from their own stream).

const signalRandom = mulberry32(seed);
const priceRandom = mulberry32(seed ^ 0x9e3779b9);
const faultRandom = mulberry32(seed ^ 0x85ebca6b);
const pick = <T>(random: () => number, items: readonly T[]) => items[Math.floor(random() * items.length)]!;

// ---------------------------------------------------------------------------------------
// Faults

type FaultKind = "error-after-accept" | "hang" | "slow" | "5xx-before" | "not-found";
const faultsByKind: Record<FaultKind, number> = {
  "error-after-accept": 0,
  hang: 0,
  slow: 0,
  "5xx-before": 0,
  "not-found": 0,
};
const faultsByCall = new Map<string, number>();
/** Every fault drawn, with the order ids, client order ids or product it touched (the evidence of a failing symbol). */
const faultLog: { at: string; call: string; kind: FaultKind; refs: string[] }[] = [];
let privateCalls = 0;
let chaosOn = false;

/** The call's family for the figures: "POST /orders", "GET /orders/historical/:id", ... */
const callName = (method: string, p: string) =>
  `${method} ${p
    .replace(/\/orders\/historical\/(?!batch$|fills$)[^/]+$/, "/orders/historical/:id")
    .replace(/\/cfm\/positions\/[^/]+$/, "/cfm/positions/:id")
    .replace(/\/products\/[^/]+$/, "/products/:id")}`;

function chaos(method: string, p: string, body: unknown): Fault | null {
  privateCalls += 1;
  if (!chaosOn || faultRandom() * 100 >= faultPercent) return null;
  const canBeMissing =
    (method === "GET" && /^\/orders\/historical\/(?!batch$|fills$)[^/]+$/.test(p)) ||
    (method === "POST" && p === "/orders/batch_cancel");
  const roll = faultRandom();
  let kind: FaultKind =
    roll < 0.3
      ? "error-after-accept"
      : roll < 0.4
        ? "hang"
        : roll < 0.65
          ? "slow"
          : roll < 0.85
            ? "5xx-before"
            : "not-found";
  if (kind === "not-found" && !canBeMissing) kind = "5xx-before";
  faultsByKind[kind] += 1;
  const name = callName(method, p);
  const b = (body ?? {}) as { client_order_id?: string; order_id?: string; order_ids?: string[]; product_id?: string };
  faultLog.push({
    at: new Date().toISOString().slice(11, 23),
    call: `${method} ${p}`,
    kind,
    refs: [p.split("/").pop()!, b.client_order_id, b.order_id, ...(b.order_ids ?? []), b.product_id].filter(
      (r): r is string => Boolean(r),
    ),
  });
  faultsByCall.set(`${name} ${kind}`, (faultsByCall.get(`${name} ${kind}`) ?? 0) + 1);
  const internal = { error: "INTERNAL", message: "Internal server error" };
  switch (kind) {
    case "error-after-accept":
      return { path: p, afterProcessing: true, status: 500, body: internal };
    case "hang":
      return { path: p, hang: true };
    case "slow":
      return { path: p, delayMs: 1000 + Math.floor(faultRandom() * 7000) };
    case "5xx-before":
      return {
        path: p,
        status: pick(faultRandom, [500, 502, 503]),
        body: { error: "UNAVAILABLE", message: "Service unavailable" },
      };
    case "not-found":
      // Coinbase answers a cancel per order (HTTP 200) and an unknown order id with a 404.
      if (p === "/orders/batch_cancel") {
        const ids = ((body as { order_ids?: string[] } | null)?.order_ids ?? []).map((id) => ({
          success: false,
          failure_reason: "UNKNOWN_CANCEL_ORDER",
          order_id: id,
        }));
        return { path: p, status: 200, body: { results: ids } };
      }
      return {
        path: p,
        status: 404,
        body: { error: "NOT_FOUND", message: "order with this orderID was not found", error_details: "" },
      };
  }
}

// ---------------------------------------------------------------------------------------
// Processes: the fake, the database, the web process, the worker

const key = makeCdpKey("ec");
const fake: CoinbaseServer = await startCoinbaseServer({ cdpKeys: [key], chaos });
onCleanup(() => fake.stop());
const cb = fake.coinbase;
log(`fake Coinbase at ${fake.url} (seed ${seed})`);

const copy =
  typeof args["app-dir"] === "string" ? null : prepareApp({ head: Boolean(args.head), rebuild: Boolean(args.rebuild) });
if (copy) onCleanup(copy.remove);
const appDir = copy?.dir ?? path.resolve(String(args["app-dir"]));
const appSource = copy?.source ?? appDir;

const runDir = mkdtempSync(path.join(os.tmpdir(), "perpdesk-chaos-"));
let removeRunDir = true;
onCleanup(() => {
  if (removeRunDir && !keepLogs) rmSync(runDir, { recursive: true, force: true });
  else log(`logs kept in ${runDir}`);
});
let databaseUrl: string;
let databaseName: string | null = null;
if (dialect === "mysql") {
  const scratch = await scratchDatabase(true, "chaos");
  onCleanup(scratch.cleanup);
  databaseUrl = scratch.url;
  databaseName = new URL(databaseUrl).pathname.slice(1);
} else {
  databaseUrl = `sqlite:${path.join(runDir, "app.db")}`;
}

const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}`;
assertLoopback(baseUrl);
const env: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("COINBASE_")) env[k] = v;
Object.assign(env, {
  PATH: `${BIN_DIR}${path.delimiter}${process.env.PATH ?? ""}`,
  NODE_ENV: "production",
  PORT: String(port),
  HOST: "127.0.0.1",
  DATA_DIR: runDir,
  DATABASE_URL: databaseUrl,
  APP_SECRET: randomBytes(32).toString("hex"),
  ...fake.env,
});

const groups = new Set<number>();
process.on("exit", () => {
  for (const pgid of groups) if (groupAlive(pgid)) process.kill(-pgid, "SIGKILL");
});

function startProcess(name: string, entry: string, extra: Record<string, string> = {}): ChildProcess {
  const out = createWriteStream(path.join(runDir, `${name}.log`));
  const child = spawn(path.join(BIN_DIR, "bun"), [entry], {
    cwd: appDir,
    env: { ...env, ...extra } as NodeJS.ProcessEnv,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.pipe(out);
  child.stderr!.pipe(out);
  groups.add(child.pid!);
  return child;
}

// The web process is never killed on purpose: if it dies anyway, that is recorded (with its
// log's last lines) and it is started again, as a supervisor would restart the app.
let web: ChildProcess;
let webNo = 0;
let stoppingAll = false;
const webDeaths: { at: string; code: number | null; signal: string | null; logTail: string }[] = [];
function startWeb() {
  webNo += 1;
  const name = `web-${webNo}`;
  const child = startProcess(name, "server.ts");
  web = child;
  child.on("exit", (code, signal) => {
    groups.delete(child.pid!);
    if (stoppingAll) return;
    const logTail = readFileSync(path.join(runDir, `${name}.log`), "utf8")
      .split("\n")
      .slice(-12)
      .join("\n");
    webDeaths.push({ at: new Date().toISOString(), code, signal, logTail });
    log(`the web process died (code ${code}, signal ${signal}); starting it again. Its log ends:\n${logTail}`);
    setTimeout(() => !stoppingAll && startWeb(), 1000);
  });
}
log(`starting the web process (${dialect}) from ${appSource}`);
startWeb();
onCleanup(() => {
  stoppingAll = true;
  return stopGroup(web.pid!, 10_000);
});
const healthy = await waitForHealth(baseUrl);
if (!healthy) throw new Error(`the web process did not answer GET /api/health within 60 s (log: ${runDir}/web-1.log)`);

// The first account is the admin; it saves the Coinbase key (sandbox off: live trading).
const reg = await fetch(`${baseUrl}/api/register`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ username: "chaos_admin", password: `chaos-${randomBytes(8).toString("hex")}` }),
});
if (reg.status !== 201) throw new Error(`POST /api/register answered ${reg.status}`);
await reg.arrayBuffer();
const cookie = reg.headers
  .getSetCookie()
  .map((c) => c.split(";")[0]!)
  .find((c) => c.startsWith("tv_session="));
if (!cookie) throw new Error("no session cookie after registering");
const saved = await fetch(`${baseUrl}/api/exchanges`, {
  method: "POST",
  headers: { "content-type": "application/json", cookie },
  body: JSON.stringify({
    exchangeName: "COINBASE",
    accountName: "Chaos",
    apiKey: key.apiKey,
    apiSecret: key.apiSecret,
    sandbox: false,
    isEnabled: true,
  }),
});
if (saved.status !== 201)
  throw new Error(`POST /api/exchanges answered ${saved.status}: ${(await saved.text()).slice(0, 200)}`);
await saved.arrayBuffer();
const config = await fetch(`${baseUrl}/api/webhook-config`, { headers: { cookie } });
if (config.status !== 200) throw new Error(`GET /api/webhook-config answered ${config.status}`);
const secret = ((await config.json()) as { secret: string }).secret;

const db = await openReader();
onCleanup(() => db.close());

let worker: ChildProcess | null = null;
let workerNo = 0;
const kills: { at: number; worker: string }[] = [];
function startWorker() {
  workerNo += 1;
  worker = startProcess(`worker-${workerNo}`, "worker/index.ts", { WORKER_ID: `chaos-w${workerNo}` });
}
onCleanup(async () => {
  if (worker) await stopGroup(worker.pid!, 10_000);
});
startWorker();
const live = await waitUntil(
  async () =>
    Number(
      (await db.one<{ n: number }>("SELECT COUNT(*) AS n FROM market_prices WHERE source <> 'random-walk'"))?.n ?? 0,
    ) >= 4,
  60_000,
  250,
);
if (!live) throw new Error(`the worker wrote no Coinbase prices within 60 s (log: ${runDir}/worker-1.log)`);
log(
  `worker chaos-w1 trading live on the fake; ${signalCount} signals over ${durationS} s, SIGKILL every ${killEveryS} s, faults on ${faultPercent} % of private calls`,
);

// ---------------------------------------------------------------------------------------
// The run: signals, prices, kills

const SYMBOLS = ["BTC-PERP", "ETH-PERP", "SOL-PERP", "XRP-PERP"] as const;
const productOf = (symbol: string) => FAKE_PRODUCTS.find((p) => `${p.root}-PERP` === symbol)!;
const decimals = (inc: string) => (inc.split(".")[1] ?? "").length;

interface Sent {
  alertId: string;
  resend: boolean;
  status: number;
  signalId: string | null;
  outcome: string | null;
}
const sent: Sent[] = [];
const bodies: { alertId: string; body: string }[] = [];

async function post(alertId: string, body: string, resend: boolean) {
  try {
    const res = await fetch(`${baseUrl}/api/webhook/tradingview`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body,
      signal: AbortSignal.timeout(15_000),
    });
    const parsed = (await res.json().catch(() => ({}))) as { signalId?: string; status?: string; error?: string };
    sent.push({
      alertId,
      resend,
      status: res.status,
      signalId: parsed.signalId ?? null,
      outcome: parsed.status ?? parsed.error ?? null,
    });
  } catch (error) {
    sent.push({
      alertId,
      resend,
      status: 0,
      signalId: null,
      outcome: `${(error as Error).name}: ${(error as Error).message.slice(0, 60)}`,
    });
  }
}

const tag = randomBytes(3).toString("hex");
async function sendSignals(t0: number) {
  const pending: Promise<void>[] = [];
  for (let i = 0; i < signalCount; i++) {
    const due = t0 + (i * durationS * 1000) / signalCount;
    await sleep(Math.max(0, due - Date.now()));
    const symbol = pick(signalRandom, SYMBOLS);
    const contracts = 1 + Math.floor(signalRandom() * 3);
    const roll = signalRandom();
    const action = roll < 0.4 ? "buy" : roll < 0.8 ? "sell" : "close";
    const quantity = new Big(productOf(symbol).contract_size).times(contracts).toString();
    const alertId = `chaos-${tag}-${i}`;
    const body = JSON.stringify({
      secret,
      id: alertId,
      action: action === "close" ? pick(signalRandom, ["buy", "sell"]) : action,
      symbol,
      quantity,
      order_type: "market",
      strategy: "chaos",
      ...(action === "close" ? { market_position: "flat" } : {}),
    });
    bodies.push({ alertId, body });
    pending.push(post(alertId, body, false));
    // TradingView sends an alert again when it saw no answer in time: the same body, one signal.
    if (signalRandom() < 0.05) {
      const again = pick(signalRandom, bodies);
      pending.push(sleep(200 + signalRandom() * 2000).then(() => post(again.alertId, again.body, true)));
    }
  }
  await Promise.all(pending);
}

const prices = new Map(FAKE_PRODUCTS.map((p) => [p.product_id, Number(p.price)]));
let jumps = 0;
async function walkPrices(until: () => boolean) {
  while (!until()) {
    for (const p of FAKE_PRODUCTS) {
      const base = Number(p.price);
      let price = prices.get(p.product_id)!;
      // A random walk (0.1 % a second) pulled back towards the start price, and now and then
      // a jump through the 0.5 % stop-losses.
      const normal = Math.sqrt(-2 * Math.log(1 - priceRandom())) * Math.cos(2 * Math.PI * priceRandom());
      price *= Math.exp(0.001 * normal - 0.02 * Math.log(price / base));
      if (priceRandom() < 1 / 90) {
        price *= 1 + (priceRandom() < 0.5 ? -1 : 1) * (0.008 + priceRandom() * 0.012);
        jumps += 1;
      }
      const inc = Number(p.price_increment);
      const rounded = Math.max(inc, Math.round(price / inc) * inc);
      prices.set(p.product_id, rounded);
      cb.setPrice(p.product_id, rounded.toFixed(decimals(p.price_increment)));
    }
    await sleep(1000);
  }
}

async function killWorkers(until: () => boolean) {
  let next = Date.now() + killEveryS * 1000;
  while (!until()) {
    await sleep(Math.min(500, Math.max(0, next - Date.now())));
    if (until() || Date.now() < next) continue;
    next += killEveryS * 1000;
    const victim = worker!;
    const name = `chaos-w${workerNo}`;
    process.kill(-victim.pid!, "SIGKILL");
    await waitUntil(() => !groupAlive(victim.pid!), 5000, 50);
    groups.delete(victim.pid!);
    kills.push({ at: Date.now(), worker: name });
    log(`SIGKILL ${name} (kill ${kills.length}); a new worker in 1 s`);
    await sleep(1000);
    startWorker();
  }
}

const runStarted = Date.now();
chaosOn = faultPercent > 0;
let sending = true;
const walker = walkPrices(() => !sending);
const killer = killEveryS > 0 ? killWorkers(() => !sending) : Promise.resolve();
const progress = setInterval(() => {
  const faults = Object.values(faultsByKind).reduce((a, b) => a + b, 0);
  log(
    `${sent.length}/${signalCount} signals sent, ${faults} faults on ${privateCalls} private calls, ${kills.length} kills, fake orders ${cb.state.orders.length}`,
  );
}, 30_000);
await sendSignals(runStarted);
sending = false;
await Promise.all([walker, killer]);
clearInterval(progress);
const sendWallS = (Date.now() - runStarted) / 1000;

// ---------------------------------------------------------------------------------------
// The end: no more faults or price moves; the last worker drains and reconciles

chaosOn = false;
log(
  `sending done in ${sendWallS.toFixed(0)} s; faults off, prices still; waiting (<= ${settleS} s) for the jobs to finish and the book to match`,
);
const settleStarted = Date.now();
let drainedAfterS: number | null = null;
let lastCheck = await checkInvariants();
let heldSince: number | null = null;
while (Date.now() - settleStarted < settleS * 1000) {
  const active = Number(
    (await db.one<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE status IN ('created','retry','active')"))?.n ??
      0,
  );
  if (active === 0 && drainedAfterS === null) drainedAfterS = (Date.now() - settleStarted) / 1000;
  lastCheck = await checkInvariants();
  if (active === 0 && lastCheck.ok) {
    heldSince ??= Date.now();
    // Held across two order-sync passes and a reconcile tick or so: settled.
    if (Date.now() - heldSince >= 10_000) break;
  } else heldSince = null;
  await sleep(2000);
}
const settledAfterS = heldSince ? (heldSince - settleStarted) / 1000 : null;

// ---------------------------------------------------------------------------------------
// Invariants

interface SymbolRow {
  symbol: string;
  exchange: string; // signed base units
  app: string;
  appOpen: number;
  stops: number;
  stopSize: string; // base units of the resting stops
  stopOk: boolean;
  positionOk: boolean;
}

async function checkInvariants() {
  const open = await db.all<{
    id: string;
    symbol: string;
    side: string;
    remaining_quantity: string;
    stop_price: string | null;
  }>("SELECT id, symbol, side, remaining_quantity, stop_price FROM positions WHERE status = 'open'");
  const rows: SymbolRow[] = [];
  for (const symbol of SYMBOLS) {
    const product = productOf(symbol);
    const held = cb.state.positions.get(product.product_id);
    const exchange = held ? held.contracts.times(product.contract_size) : new Big(0);
    const mine = open.filter((p) => p.symbol === symbol);
    const app = mine.reduce(
      (sum, p) => sum.plus(new Big(p.remaining_quantity).times(p.side === "long" ? 1 : -1)),
      new Big(0),
    );
    const stops = cb.state.orders.filter(
      (o) =>
        o.product_id === product.product_id && o.status === "OPEN" && o.order_configuration.stop_limit_stop_limit_gtc,
    );
    const stopContracts = stops.reduce(
      (sum, o) => sum.plus(String(o.order_configuration.stop_limit_stop_limit_gtc!.base_size)),
      new Big(0),
    );
    const stopSize = stopContracts.times(product.contract_size);
    // One resting stop per open position, for all of it, on the closing side; none when flat.
    const stopSideOk = stops.every((o) => (exchange.gt(0) ? o.side === "SELL" : o.side === "BUY"));
    const stopOk =
      mine.length === 0
        ? stops.length === 0
        : stops.length === mine.length && stopSize.eq(exchange.abs()) && stopSideOk;
    rows.push({
      symbol,
      exchange: exchange.toString(),
      app: app.toString(),
      appOpen: mine.length,
      stops: stops.length,
      stopSize: stopSize.toString(),
      stopOk,
      positionOk: exchange.eq(app) && mine.length <= 1,
    });
  }
  return { rows, ok: rows.every((r) => r.stopOk && r.positionOk) };
}

const num = async (sql: string, params: unknown[] = []) => Number((await db.one<{ n: number }>(sql, params))?.n ?? 0);
const groupBy = async (sql: string) =>
  Object.fromEntries((await db.all<{ k: string; n: number }>(sql)).map((r) => [r.k ?? "null", Number(r.n)]));

// Orders per client order id on the fake: each one must have made at most one order.
const byClientId = new Map<string, number>();
for (const o of cb.state.orders) byClientId.set(o.client_order_id, (byClientId.get(o.client_order_id) ?? 0) + 1);
const doubledClientIds = [...byClientId.entries()].filter(([, n]) => n > 1).map(([id]) => id);
const postsByClientId = new Map<string, number>();
for (const r of cb.requestsTo(/^\/orders(\/close_position)?$/, "POST")) {
  const id = (r.body as { client_order_id?: string } | null)?.client_order_id;
  if (id) postsByClientId.set(id, (postsByClientId.get(id) ?? 0) + 1);
}
const resentClientIds = [...postsByClientId.values()].filter((n) => n > 1).length;

// Orders (not the stops) per signal, through the trade that carries the client order id.
const tradeRows = await db.all<{
  client_order_id: string;
  signal_id: string | null;
  status: string;
  source: string;
  symbol: string;
}>("SELECT client_order_id, signal_id, status, source, symbol FROM trades");
const tradeByClientId = new Map(tradeRows.map((t) => [t.client_order_id, t]));
const stopClientIds = new Set(
  (await db.all<{ client_order_id: string }>("SELECT client_order_id FROM exchange_stops")).map(
    (r) => r.client_order_id,
  ),
);
const ordersPerSignal = new Map<string, number>();
const unknownToApp: { clientOrderId: string; product: string; side: string; status: string; kind: string }[] = [];
for (const o of cb.state.orders) {
  const isStop = Boolean(o.order_configuration.stop_limit_stop_limit_gtc);
  const trade = tradeByClientId.get(o.client_order_id);
  if (trade?.signal_id && !isStop)
    ordersPerSignal.set(trade.signal_id, (ordersPerSignal.get(trade.signal_id) ?? 0) + 1);
  if (trade) continue;
  // Unknown to the app: an order without its trade, a stop resting without its exchange_stops
  // row, a stop that filled (even partly) without being booked. A cancelled stop needs neither.
  const filled = new Big(o.filled_size).gt(0);
  if (!isStop || filled || (o.status === "OPEN" && !stopClientIds.has(o.client_order_id))) {
    unknownToApp.push({
      clientOrderId: o.client_order_id,
      product: o.product_id,
      side: o.side,
      status: o.status,
      kind: Object.keys(o.order_configuration)[0]!,
    });
  }
}
const signalsWithTwoOrders = [...ordersPerSignal.entries()].filter(([, n]) => n > 1).map(([id]) => id);
const signalsWithTwoTrades = await num(
  "SELECT COUNT(*) AS n FROM (SELECT signal_id FROM trades WHERE signal_id IS NOT NULL GROUP BY signal_id HAVING COUNT(*) > 1) x",
);
const signalsWithTwoJobs = await num(
  "SELECT COUNT(*) AS n FROM (SELECT signal_id FROM jobs WHERE signal_id IS NOT NULL GROUP BY signal_id HAVING COUNT(*) > 1) x",
);

// Every answer to one alert id names the same signal (the resends too).
const answers = new Map<string, Set<string>>();
for (const s of sent)
  if (s.status === 200 && s.signalId)
    (answers.get(s.alertId) ?? answers.set(s.alertId, new Set()).get(s.alertId)!).add(s.signalId);
const resendMismatch = [...answers.values()].filter((ids) => ids.size > 1).length;

const storedKeys = (
  await db.all<{ dedupe_key: string }>("SELECT dedupe_key FROM signals WHERE dedupe_key LIKE ?", [`%chaos-${tag}-%`])
).map((r) => r.dedupe_key);
const storedSignals = storedKeys.length;
const accepted = new Set(sent.filter((s) => s.status === 200).map((s) => s.alertId));
const acceptedAlerts = accepted.size;
const lostAlerts = [...accepted].filter((id) => !storedKeys.some((k) => k.endsWith(`:${id}`) || k === id)).length;
const signalStatus = await groupBy("SELECT status AS k, COUNT(*) AS n FROM signals GROUP BY status");
const jobStatus = await groupBy("SELECT status AS k, COUNT(*) AS n FROM jobs GROUP BY status");
const tradeStatus = await groupBy("SELECT status AS k, COUNT(*) AS n FROM trades GROUP BY status");
const tradeSource = await groupBy("SELECT source AS k, COUNT(*) AS n FROM trades GROUP BY source");
const drifts = await groupBy(
  `SELECT ${dialect === "mysql" ? "CONCAT(kind, ' ', status)" : "kind || ' ' || status"} AS k, COUNT(*) AS n FROM drifts GROUP BY kind, status`,
).catch(() => ({}));
// Why signals were not executed (numbers masked so like reasons group), and how late the worker took them.
const reasons = groupCount(
  (
    await db.all<{ status: string; status_reason: string | null }>(
      "SELECT status, status_reason FROM signals WHERE status IN ('skipped','failed')",
    )
  ).map((r) => `${r.status}: ${(r.status_reason ?? "").replace(/\d+(\.\d+)?/g, "N").slice(0, 90)}`),
);
const lags = (
  await db.all<{ lag: number }>("SELECT processed_at - created_at AS lag FROM signals WHERE processed_at IS NOT NULL")
)
  .map((r) => Number(r.lag) / 1000)
  .sort((a, b) => a - b);
const lagS = {
  p50: lags[Math.floor(lags.length / 2)] ?? null,
  p90: lags[Math.floor(lags.length * 0.9)] ?? null,
  max: lags[lags.length - 1] ?? null,
};
const slotBusyRetries = await num(
  "SELECT COUNT(*) AS n FROM activity_logs WHERE message LIKE '%will retry%' AND message LIKE '%still in flight%'",
);
const unknownTrades = tradeStatus.unknown ?? 0;
const pendingTrades = tradeStatus.pending ?? 0;
const fakeOrders = {
  total: cb.state.orders.length,
  stopsPlaced: cb.state.orders.filter((o) => o.order_configuration.stop_limit_stop_limit_gtc).length,
  stopsFilled: cb.state.orders.filter((o) => o.order_configuration.stop_limit_stop_limit_gtc && o.status === "FILLED")
    .length,
  stopsCancelled: cb.state.orders.filter(
    (o) => o.order_configuration.stop_limit_stop_limit_gtc && o.status === "CANCELLED",
  ).length,
  market: cb.state.orders.filter((o) => o.order_configuration.market_market_ioc).length,
};

const invariants = {
  "exchange == app for every symbol": lastCheck.rows.every((r) => r.positionOk),
  "one resting stop per open position, none when flat": lastCheck.rows.every((r) => r.stopOk),
  "no client order id made two orders": doubledClientIds.length === 0,
  "no signal made two orders": signalsWithTwoOrders.length === 0,
  "no signal made two trades or jobs": signalsWithTwoTrades === 0 && signalsWithTwoJobs === 0,
  "every acknowledged alert stored once":
    lostAlerts === 0 && storedSignals === new Set(storedKeys).size && resendMismatch === 0,
  "every job finished": (jobStatus.created ?? 0) + (jobStatus.retry ?? 0) + (jobStatus.active ?? 0) === 0,
  "no order unknown to the app": unknownToApp.length === 0,
  "the web process never died": webDeaths.length === 0,
};
const ok = Object.values(invariants).every(Boolean);

// ---------------------------------------------------------------------------------------
// Report

const wallS = Math.round((Date.now() - startedAt) / 1000);
const faultsTotal = Object.values(faultsByKind).reduce((a, b) => a + b, 0);
console.log("");
console.log(
  `Chaos run: seed ${seed}, ${dialect}, ${signalCount} signals over ${durationS} s, SIGKILL every ${killEveryS} s, faults on ${faultPercent} % of private calls`,
);
console.log(`  app: ${appSource}`);
console.log(
  `  wall time ${wallS} s (sending ${sendWallS.toFixed(0)} s, drained after ${drainedAfterS ?? "-"} s, settled after ${settledAfterS ?? `never (within ${settleS} s)`})`,
);
console.log(
  `  webhooks: ${sent.length} sent (${sent.filter((s) => s.resend).length} resends), ${acceptedAlerts} alerts accepted, ${storedSignals} stored, ${lostAlerts} lost, ${resendMismatch} answered with two ids; answers ${JSON.stringify(groupCount(sent.map((s) => `${s.status} ${s.outcome ?? ""}`.trim())))}`,
);
console.log(`  signals ${JSON.stringify(signalStatus)}; jobs ${JSON.stringify(jobStatus)}`);
console.log(`  not executed: ${JSON.stringify(reasons)}`);
console.log(
  `  signal -> processed (s): p50 ${lagS.p50} p90 ${lagS.p90} max ${lagS.max}; job retries for a busy order slot ${slotBusyRetries}`,
);
console.log(
  `  trades ${JSON.stringify(tradeStatus)} by source ${JSON.stringify(tradeSource)}; unknown ${unknownTrades}, pending ${pendingTrades}`,
);
console.log(`  drift alarms ${JSON.stringify(drifts)}`);
console.log(
  `  web process deaths ${webDeaths.length}${webDeaths.length ? ` (first at ${webDeaths[0]!.at}; its log ends: ${JSON.stringify(webDeaths[0]!.logTail.slice(-300))})` : ""}`,
);
console.log(`  worker kills ${kills.length} (workers started ${workerNo}); price jumps ${jumps}`);
console.log(`  faults ${faultsTotal} on ${privateCalls} private calls: ${JSON.stringify(faultsByKind)}`);
console.log(`  fake orders ${JSON.stringify(fakeOrders)}; client ids sent more than once ${resentClientIds}`);
console.log("");
console.log("  symbol    exchange      app    open  stops  stop size  position  stop");
for (const r of lastCheck.rows) {
  console.log(
    `  ${r.symbol.padEnd(9)} ${r.exchange.padStart(8)} ${r.app.padStart(8)} ${String(r.appOpen).padStart(6)} ${String(r.stops).padStart(6)} ${r.stopSize.padStart(10)}  ${(r.positionOk ? "ok" : "FAIL").padEnd(8)}  ${r.stopOk ? "ok" : "FAIL"}`,
  );
}
console.log("");
for (const [name, held] of Object.entries(invariants)) console.log(`  ${held ? "PASS" : "FAIL"}  ${name}`);
if (doubledClientIds.length) console.log(`  doubled client order ids: ${doubledClientIds.slice(0, 10).join(", ")}`);
if (signalsWithTwoOrders.length)
  console.log(`  signals with two orders: ${signalsWithTwoOrders.slice(0, 10).join(", ")}`);
if (unknownToApp.length) console.log(`  orders unknown to the app: ${JSON.stringify(unknownToApp.slice(0, 10))}`);

// Evidence for what failed: per failing symbol its activity log, trades, stops and the fake's orders.
const failing = SYMBOLS.filter(
  (symbol) =>
    lastCheck.rows.some((r) => r.symbol === symbol && (!r.positionOk || !r.stopOk)) ||
    unknownToApp.some((o) => o.product === productOf(symbol).product_id),
);
for (const symbol of failing) {
  const product = productOf(symbol);
  console.log(`\n  --- ${symbol} evidence ---`);
  const logs = await db.all<{ created_at: number; level: string; message: string }>(
    "SELECT created_at, level, message FROM activity_logs WHERE message LIKE ? ORDER BY id DESC LIMIT 25",
    [`%${symbol}%`],
  );
  for (const l of logs.reverse())
    console.log(
      `  log ${new Date(Number(l.created_at)).toISOString().slice(11, 23)} ${l.level.padEnd(7)} ${l.message.slice(0, 220)}`,
    );
  const trades = await db.all<Record<string, unknown>>(
    "SELECT created_at, side, quantity, executed_quantity, status, source, client_order_id, reduce_only, error_message FROM trades WHERE symbol = ? ORDER BY created_at DESC LIMIT 15",
    [symbol],
  );
  for (const t of trades.reverse())
    console.log(
      `  trade ${new Date(Number(t.created_at)).toISOString().slice(11, 23)} ${t.side} ${t.quantity} exec ${t.executed_quantity} ${t.status} ${t.source} ${t.client_order_id}${t.error_message ? ` (${String(t.error_message).slice(0, 120)})` : ""}`,
    );
  const positions = await db.all<Record<string, unknown>>(
    "SELECT id, side, quantity, remaining_quantity, stop_price, status FROM positions WHERE symbol = ? ORDER BY created_at DESC LIMIT 5",
    [symbol],
  );
  for (const p of positions)
    console.log(`  position ${p.id} ${p.side} ${p.remaining_quantity}/${p.quantity} stop ${p.stop_price} ${p.status}`);
  const stops = await db.all<Record<string, unknown>>(
    "SELECT position_id, order_id, client_order_id, side, stop_price, quantity FROM exchange_stops WHERE symbol = ?",
    [symbol],
  );
  for (const s of stops)
    console.log(
      `  exchange_stops ${s.position_id} ${s.side} ${s.quantity} @ ${s.stop_price} order ${s.order_id} (${s.client_order_id})`,
    );
  const refs = new Set([
    product.product_id,
    ...cb.state.orders
      .filter((x) => x.product_id === product.product_id)
      .flatMap((x) => [x.order_id, x.client_order_id]),
  ]);
  for (const f of faultLog.filter((x) => x.refs.some((r) => refs.has(r))).slice(-15))
    console.log(
      `  fault ${f.at} ${f.kind} on ${f.call.replace(/[0-9a-f-]{36}$/, ":id")} (${f.refs.filter((r) => refs.has(r)).join(", ")})`,
    );
  for (const o of cb.state.orders.filter((x) => x.product_id === product.product_id).slice(-15)) {
    const kind = Object.keys(o.order_configuration)[0];
    const config = Object.values(o.order_configuration)[0] as Record<string, unknown>;
    console.log(
      `  fake order ${o.created_time.slice(11, 23)} ${o.order_id.slice(0, 8)} ${kind} ${o.side} ${config.base_size} ${o.status} filled ${o.filled_size}${config.stop_price ? ` stop ${config.stop_price}` : ""} ${o.client_order_id}`,
    );
  }
}
if (!ok) removeRunDir = false;

function groupCount(values: string[]) {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}

const summary = {
  bench: "chaos",
  seed,
  db: dialect,
  app: appSource,
  machine: machineInfo(),
  signals: signalCount,
  durationS,
  killEveryS,
  faultPercent,
  wallS,
  sendWallS: Math.round(sendWallS),
  drainedAfterS,
  settledAfterS,
  webhooks: {
    sent: sent.length,
    resends: sent.filter((s) => s.resend).length,
    acceptedAlerts,
    storedSignals,
    lostAlerts,
    resendMismatch,
  },
  signalStatus,
  notExecuted: reasons,
  signalLagS: lagS,
  slotBusyRetries,
  jobStatus,
  tradeStatus,
  tradeSource,
  drifts,
  kills: kills.length,
  webDeaths,
  priceJumps: jumps,
  privateCalls,
  faults: faultsByKind,
  faultsByCall: Object.fromEntries([...faultsByCall.entries()].sort((a, b) => b[1] - a[1])),
  fakeOrders,
  clientIdsSentMoreThanOnce: resentClientIds,
  symbols: lastCheck.rows,
  invariants,
  ok,
  ...(databaseName ? { database: databaseName } : {}),
};
// The processes stop first (the worker, then the web process), then the rest is removed.
await cleanupAll();
console.log(JSON.stringify(summary));
process.exit(ok ? 0 : 1);

// ---------------------------------------------------------------------------------------

/** Direct reads of the app's database (bun:sqlite on the data file, or mysql2). */
async function openReader(): Promise<DbReader> {
  if (dialect === "sqlite") {
    const { Database } = await import("bun:sqlite");
    const raw = new Database(path.join(runDir, "app.db"), { readonly: false, create: false });
    raw.exec("PRAGMA busy_timeout = 10000");
    return {
      all: async (sql, params = []) => raw.query(sql).all(...(params as never[])) as never,
      one: async (sql, params = []) => (raw.query(sql).get(...(params as never[])) ?? undefined) as never,
      close: async () => raw.close(),
    };
  }
  const mysql = await import("mysql2/promise");
  const conn = await mysql.createConnection({
    host: "127.0.0.1",
    port: 3306,
    user: "root",
    password: "",
    database: databaseName!,
    supportBigNumbers: false,
    decimalNumbers: false,
  });
  return {
    all: async (sql, params = []) => (await conn.query(sql, params))[0] as never,
    one: async (sql, params = []) => ((await conn.query(sql, params))[0] as never[])[0],
    close: async () => conn.end(),
  };
}
