// Integration harness: the real Hono app + the built Remix bundle over a fresh database of
// the given dialect, driven with in-process requests (no socket). Needs `npm run build`.
import { existsSync } from "node:fs";
import path from "node:path";
import type { ServerBuild } from "@remix-run/node";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, expect } from "vitest";
import { D } from "#app/core/decimal.ts";
import { type AppConfig, loadConfig } from "#app/core/env.ts";
import type { ExchangeAdapter } from "#app/core/exchange/types.ts";
import type { Dialect } from "#db/client.ts";
import { createInvite } from "#db/queries/invites.ts";
import { type Role, countUsers } from "#db/queries/users.ts";
import type { DB, PositionRow, SignalRow, TradeRow } from "#db/schema.ts";
import { createApp } from "../../server.ts";
import { type TestDatabase, createTestDatabase } from "./db.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { type Runner, startRunner } from "#worker/runner.ts";

const BUILD = path.resolve("build/index.js");
export const ORIGIN = "http://localhost:5000";

let buildPromise: Promise<ServerBuild> | undefined;
export function loadBuild(): Promise<ServerBuild> {
  if (!existsSync(BUILD)) throw new Error("build/index.js is missing: run `npm run build` (npm test does it first)");
  return (buildPromise ??= import(BUILD) as Promise<ServerBuild>);
}

export interface TestApp {
  database: TestDatabase;
  config: AppConfig;
  fetch(
    pathname: string,
    init?: RequestInit & { cookie?: string; json?: unknown; form?: Record<string, string> },
  ): Promise<Response>;
  cleanup(): Promise<void>;
}

export async function createTestApp(
  dialect: Dialect,
  env: Record<string, string> = {},
  dbOptions: { file?: boolean } = {},
): Promise<TestApp> {
  const database = await createTestDatabase(dialect, dbOptions);
  const config = loadConfig({
    NODE_ENV: "production",
    APP_SECRET: "integration-secret-0123456789abcdef0123456789",
    DATA_DIR: "/tmp/perpdesk-test-unused",
    ...env,
  });
  const app = createApp({ config, database, build: await loadBuild(), mode: "production" });
  return {
    database,
    config,
    async fetch(pathname, init = {}) {
      const { cookie, json, form, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (cookie) headers.set("Cookie", cookie);
      let body = rest.body;
      if (json !== undefined) {
        headers.set("Content-Type", "application/json");
        body = JSON.stringify(json);
      } else if (form) {
        headers.set("Content-Type", "application/x-www-form-urlencoded");
        body = new URLSearchParams(form).toString();
      }
      return app.request(new URL(pathname, ORIGIN).toString(), { ...rest, headers, body, redirect: "manual" });
    },
    cleanup: () => database.cleanup(),
  };
}

/**
 * The one test-app lifecycle for a describe block: createTestApp before its tests, cleanup
 * after them. The answer stands for that app (read it inside hooks and tests only).
 */
export function freshApp(
  dialect: Dialect,
  env: Record<string, string> = {},
  dbOptions: { file?: boolean } = {},
): TestApp {
  let app: TestApp | undefined;
  beforeAll(async () => {
    app = await createTestApp(dialect, env, dbOptions);
  });
  afterAll(async () => {
    await app?.cleanup();
  });
  const made = () => {
    if (!app) throw new Error("the test app exists once the describe block's beforeAll ran");
    return app;
  };
  return {
    get database() {
      return made().database;
    },
    get config() {
      return made().config;
    },
    fetch: (pathname, init) => made().fetch(pathname, init),
    cleanup: () => made().cleanup(),
  };
}

/** The `name=value` pair of a Set-Cookie header, for sending back. */
export function cookieFrom(response: Response, name = "tv_session"): string | undefined {
  for (const header of response.headers.getSetCookie()) {
    const [pair] = header.split(";");
    if (pair?.startsWith(`${name}=`)) return pair;
  }
  return undefined;
}

/**
 * Registers through the JSON API and returns the user and its session cookie. The first
 * account becomes admin; later ones register with an invitation (made straight in the
 * database) granting `role`, `trader` unless said otherwise.
 */
export async function registerVia(app: TestApp, username: string, password = "secret123", role: Role = "trader") {
  const invite =
    (await countUsers(app.database.db)) > 0
      ? (await createInvite(app.database.db, { role, createdBy: null })).code
      : undefined;
  const response = await app.fetch("/api/register", {
    method: "POST",
    json: { username, password, ...(invite ? { invite } : {}) },
  });
  if (response.status !== 201) throw new Error(`register ${username}: ${response.status} ${await response.text()}`);
  return {
    user: (await response.json()) as { id: string; username: string; role: string },
    cookie: cookieFrom(response)!,
  };
}

/**
 * Accounts registered through registerVia before a describe block's tests, in the order given
 * (the first becomes admin; the others trader, or the role given): their session cookies by key.
 */
export function registeredAccounts<K extends string>(
  app: TestApp,
  accounts: Record<K, string | [username: string, role: Role]>,
): Record<K, string> {
  const cookies = {} as Record<K, string>;
  beforeAll(async () => {
    for (const [key, account] of Object.entries(accounts) as [K, string | [string, Role]][]) {
      const [username, role] = typeof account === "string" ? [account, "trader" as const] : account;
      cookies[key] = (await registerVia(app, username, "secret123", role)).cookie;
    }
  });
  return cookies;
}

/** Polls `probe` every `stepMs` until it answers something truthy, and returns that; throws after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 15_000,
  stepMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** Waits until no job is queued, retrying or running: the worker has done all it was given. */
export function jobsIdle(app: TestApp): Promise<true> {
  return waitFor(
    "jobs finished",
    async () => {
      const row = await app.database.db
        .selectFrom("jobs")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("status", "in", ["created", "retry", "active"])
        .executeTakeFirst();
      return Number(row!.n) === 0;
    },
    15_000,
    10,
  );
}

/** Waits until no notification delivery is queued, sending or retrying (each sent or given up). */
export function deliveriesSettled(app: TestApp): Promise<true> {
  return waitFor(
    "deliveries settled",
    async () =>
      (
        await app.database.db
          .selectFrom("notification_deliveries")
          .select("id")
          .where("status", "in", ["queued", "sending", "retrying"])
          .execute()
      ).length === 0,
    30_000,
  );
}

type RowsByStatus = { trades: TradeRow; signals: SignalRow; positions: PositionRow };

/** Row `id` of `table` once its status is `status`; throws after `timeoutMs`. */
export function rowInStatus<T extends keyof RowsByStatus>(
  app: TestApp,
  table: T,
  id: string,
  status: string,
  timeoutMs = 15_000,
): Promise<RowsByStatus[T]> {
  const db = app.database.db as unknown as Kysely<Pick<DB, keyof RowsByStatus>>;
  return waitFor(
    `${table} ${id} ${status}`,
    () =>
      db
        .selectFrom(table as keyof RowsByStatus)
        .selectAll()
        .where("id", "=", id)
        .where("status", "=", status)
        .executeTakeFirst() as Promise<RowsByStatus[T] | undefined>,
    timeoutMs,
    10,
  );
}

/** The one manual trade a place-order post queued, checked to be tied to its place-order job. */
export async function queuedManualTrade(app: TestApp) {
  const trade = await app.database.db
    .selectFrom("trades")
    .selectAll()
    .where("source", "=", "manual")
    .executeTakeFirstOrThrow();
  const job = await app.database.db
    .selectFrom("jobs")
    .selectAll()
    .where("task", "=", "place-order")
    .executeTakeFirstOrThrow();
  expect(trade.client_order_id).toMatch(/^pd-[0-9a-f-]{36}$/);
  expect(Number(trade.job_id)).toBe(Number(job.id));
  return trade;
}

/** How many rows `table` holds. */
export async function rowCount(app: TestApp, table: keyof DB): Promise<number> {
  const db = app.database.db as unknown as Kysely<DB>;
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A runner of notification sends only, as the worker runs them (worker/index.ts): their own runner, 2 at a time. */
export function notificationRunner(app: TestApp, workerId: string): Runner {
  const db = app.database.db;
  return startRunner({
    db,
    exchange: new SimulatorAdapter(db),
    workerId,
    pollMs: 5,
    concurrency: 2,
    tasks: ["send-notification"],
  });
}

/** The newest audit entry whose `column` is `value` (throws when there is none). */
export function latestAudit(app: TestApp, column: "action" | "target" | "actor", value: string) {
  return app.database.db
    .selectFrom("audit_entries")
    .selectAll()
    .where(column, "=", value)
    .orderBy("id", "desc")
    .executeTakeFirstOrThrow();
}

/** Text as React renders it into HTML (quotes, ampersands and angle brackets escaped). */
export const html = (text: string) =>
  text
    .replace(/&/g, "&amp;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#x27;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");

/** The webhook secret, as the admin reads it from GET /api/webhook-config. */
export async function webhookSecret(app: TestApp, adminCookie: string): Promise<string> {
  return ((await (await app.fetch("/api/webhook-config", { cookie: adminCookie })).json()) as { secret: string })
    .secret;
}

/** A TradingView alert with this secret, sent as TradingView sends it (JSON as text/plain). */
export function sendSignal(app: TestApp, secret: string, body: Record<string, unknown>): Promise<Response> {
  return app.fetch("/api/webhook/tradingview", {
    method: "POST",
    body: JSON.stringify({ secret, ...body }),
    headers: { "Content-Type": "text/plain" },
  });
}

/** Sends an alert (as sendSignal) and answers the id of the signal the webhook recorded; with `status`, checks the webhook answered that. */
export async function sendSignalId(
  app: TestApp,
  secret: string,
  body: Record<string, unknown>,
  status?: number,
): Promise<string> {
  const response = await sendSignal(app, secret, body);
  if (status !== undefined) expect(response.status).toBe(status);
  return ((await response.json()) as { signalId: string }).signalId;
}

/** The trade of signal `signalId` once the worker has booked it `status` (executed unless said); throws after `timeoutMs`. */
export function signalTrade(app: TestApp, signalId: string, status = "executed", timeoutMs = 15_000) {
  return waitFor(
    `trade of signal ${signalId} ${status}`,
    () =>
      app.database.db
        .selectFrom("trades")
        .selectAll()
        .where("signal_id", "=", signalId)
        .where("status", "=", status)
        .executeTakeFirst(),
    timeoutMs,
  );
}

/** Sends an alert (as sendSignal) and waits until its trade is executed; answers the signal's id and that trade. */
export async function sendSignalExecuted(
  app: TestApp,
  secret: string,
  body: Record<string, unknown>,
  timeoutMs = 15_000,
) {
  const signalId = await sendSignalId(app, secret, body);
  return { signalId, trade: await signalTrade(app, signalId, "executed", timeoutMs) };
}

/** The open position on `symbol` once there is one; throws after `timeoutMs`. */
export function openPositionOn(app: TestApp, symbol: string, timeoutMs = 15_000) {
  return waitFor(
    `open position on ${symbol}`,
    () =>
      app.database.db
        .selectFrom("positions")
        .selectAll()
        .where("symbol", "=", symbol)
        .where("status", "=", "open")
        .executeTakeFirst(),
    timeoutMs,
    10,
  );
}

/** The trade of signal `signalId` once it rests on the exchange: pending, with the exchange's order id. */
export function restingTrade(app: TestApp, signalId: string, timeoutMs = 15_000) {
  return waitFor(
    `trade of signal ${signalId} resting`,
    () =>
      app.database.db
        .selectFrom("trades")
        .selectAll()
        .where("signal_id", "=", signalId)
        .where("status", "=", "pending")
        .where("order_id", "is not", null)
        .executeTakeFirst(),
    timeoutMs,
    10,
  );
}

/** The ids of `symbol`'s trades still pending (orders resting or not yet answered). */
export function pendingTrades(app: TestApp, symbol: string) {
  return app.database.db
    .selectFrom("trades")
    .select("id")
    .where("symbol", "=", symbol)
    .where("status", "=", "pending")
    .execute();
}

/**
 * From a long 2 position: target-position alerts to long 1, short 1 and then flat, each
 * executed, each met on the exchange and in the app (signed sizes, long +).
 */
export async function walkTargetsToFlat(
  target: (side: "buy" | "sell", position: string, size: string) => Promise<{ signal: unknown }>,
  sizes: () => Promise<{ exchange: string; app: string }>,
) {
  for (const [side, position, size, signed] of [
    ["sell", "long", "1", "1"],
    ["sell", "short", "1", "-1"],
    ["buy", "flat", "0", "0"],
  ] as const) {
    expect((await target(side, position, size)).signal, `target ${position} ${size}`).toMatchObject({
      status: "executed",
    });
    expect(await sizes()).toEqual({ exchange: signed, app: signed });
  }
}

/** Signal `signalId`'s row once the worker has decided it (no longer queued); throws after `timeoutMs`. */
export function signalFinal(app: TestApp, signalId: string, timeoutMs = 15_000) {
  return waitFor(
    `signal ${signalId} final`,
    async () => {
      const row = await app.database.db.selectFrom("signals").selectAll().where("id", "=", signalId).executeTakeFirst();
      return row && row.status !== "queued" ? row : null;
    },
    timeoutMs,
    10,
  );
}

/** Signed size of `symbol` on the exchange and in the app (long +, "0" when flat). */
export async function signedSizes(app: TestApp, exchange: Pick<ExchangeAdapter, "getPositions">, symbol: string) {
  const onExchange = (await exchange.getPositions()).find((p) => p.symbol === symbol);
  const mine = await app.database.db
    .selectFrom("positions")
    .select(["side", "remaining_quantity"])
    .where("symbol", "=", symbol)
    .where("status", "=", "open")
    .executeTakeFirst();
  const signed = (side: string | undefined, q: string | number | undefined) =>
    side ? (side === "short" ? D(String(q)).neg() : D(String(q))).toString() : "0";
  return {
    exchange: signed(onExchange?.side, onExchange?.quantity),
    app: signed(mine?.side, mine?.remaining_quantity),
  };
}

/**
 * An alert sender for one test file: each call sends `defaults` plus `body` with the next
 * `alert_id` (`${idPrefix}-1`, -2, ...) and answers the webhook's body and, unless the alert was
 * skipped there (or `wait` is off), the signal's final status and reason.
 */
export function alertSender(
  app: TestApp,
  secret: () => string,
  idPrefix: string,
  defaults: Record<string, unknown> = {},
) {
  let sent = 0;
  return async (body: Record<string, unknown>, { wait = true } = {}) => {
    const response = await sendSignal(app, secret(), {
      order_type: "market",
      alert_id: `${idPrefix}-${++sent}`,
      ...defaults,
      ...body,
    });
    if (response.status !== 200) throw new Error(`webhook answered ${response.status}: ${await response.text()}`);
    const answer = (await response.json()) as { signalId: string; status: string; reason?: string };
    if (answer.status !== "queued" || !wait) return { answer, signal: null };
    const final = await signalFinal(app, answer.signalId);
    return { answer, signal: { status: final.status, reason: final.status_reason } };
  };
}

/**
 * One row of an access matrix: `path` asked as anonymous, as the user and as the admin answers
 * each its status, in JSON, with an `error` text from 400 on. `session` may swap a cookie for
 * the call (e.g. a fresh session where the call ends it).
 */
export async function expectJsonAccess(
  app: TestApp,
  [method, path, anonymous, asUser, asAdmin]: [
    method: string,
    path: string,
    anonymous: number,
    user: number,
    admin: number,
  ],
  cookies: { user: string; admin: string },
  session: (who: "user" | "admin", cookie: string) => Promise<string> = async (_who, cookie) => cookie,
): Promise<void> {
  for (const [who, expected] of [
    ["anonymous", anonymous],
    ["user", asUser],
    ["admin", asAdmin],
  ] as const) {
    const response = await app.fetch(path, {
      method,
      cookie: who === "anonymous" ? undefined : await session(who, cookies[who]),
    });
    expect(response.status, `${method} ${path} as ${who}`).toBe(expected);
    expect(response.headers.get("content-type")).toMatch(/application\/json/);
    const body = (await response.json()) as Record<string, unknown>;
    if (expected >= 400) expect(typeof body.error).toBe("string");
  }
}

/** A plain form post (no JavaScript) the page refuses: 400, the page again with `message`. */
export async function expectFormRefused(
  app: TestApp,
  path: string,
  cookie: string,
  form: Record<string, string>,
  message: string,
): Promise<void> {
  const response = await app.fetch(path, { method: "POST", cookie, form });
  expect(response.status).toBe(400);
  expect(await response.text()).toContain(message);
}

/** The page a redirect leads to, with the flash toast it carries (follows it with the flash cookie). */
export async function toastAfter(app: TestApp, response: Response, cookie: string): Promise<string> {
  if (response.status !== 302) throw new Error(`expected a redirect, got ${response.status}: ${await response.text()}`);
  const flash = response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .filter((c) => !c.startsWith("tv_session="));
  const page = await app.fetch(response.headers.get("location")!, { cookie: [cookie, ...flash].join("; ") });
  if (page.status !== 200) throw new Error(`the redirect's page answered ${page.status}`);
  return page.text();
}
