// Shared helpers for the benchmarks (bench/*.ts, run with `bun`).
//
// - prepareApp(): a private, frozen copy of the app to run (sources and build copied,
//   node_modules symlinked), so edits or builds in the working tree during a run change
//   nothing; `--app-dir DIR` reuses one made by `bun bench/prepare.ts`.
// - startInstance(): the app as `npm start` runs it (`bun scripts/start.ts`: migrations,
//   then `bun server.ts` + `bun worker/index.ts`) in its own process group, on a free
//   loopback port, over a fresh SQLite DATA_DIR or a fresh MariaDB database bench_<hex>;
//   waits for GET /api/health, registers the admin, reads the webhook secret, and opens a
//   direct read connection to the database for the counts.
// - percentiles, a paced (open-loop) request loop, a bounded-concurrency burst.
// - cleanup: the process group is killed, the temp dirs removed, the MariaDB database
//   dropped, also on Ctrl-C and on the global watchdog.
//
// Every request goes to 127.0.0.1 (assertLoopback), every loop is bounded in count and time.
import { type ChildProcess, execFileSync, execSync, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { groupAlive, stopGroup, waitUntil } from "../tests/support/process-group.ts";

export const ROOT = path.resolve(import.meta.dir, "..");
export const BIN_DIR = path.join(ROOT, "node_modules/.bin");
export const MYSQL_ADMIN = { host: "127.0.0.1", port: 3306, user: "root", password: "" };

// ---------------------------------------------------------------------------------------
// Arguments, clock, output
// ---------------------------------------------------------------------------------------

/** `--mysql --duration 20 --app-dir /tmp/x` → { mysql: true, duration: "20", "app-dir": "/tmp/x" } */
export function parseArgs(argv = process.argv.slice(2)): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) continue;
    const [key, inline] = arg.slice(2).split("=", 2) as [string, string | undefined];
    if (inline !== undefined) out[key] = inline;
    else if (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith("--")) out[key] = argv[++i]!;
    else out[key] = true;
  }
  return out;
}

export function numArg(args: Record<string, string | boolean>, key: string, fallback: number): number {
  const value = args[key];
  if (value === undefined || value === true) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${key} must be a number >= 0, got ${value}`);
  return n;
}

/** Wall clock in epoch milliseconds with sub-millisecond resolution (comparable to the DB's Date.now() stamps). */
export const wallMs = () => performance.timeOrigin + performance.now();
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
export const log = (...parts: unknown[]) => console.log(`[bench ${new Date().toISOString().slice(11, 23)}]`, ...parts);

export function machineInfo() {
  const cpus = os.cpus();
  return {
    nproc: cpus.length,
    cpu: cpus[0]?.model ?? "unknown",
    memGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    kernel: os.release(),
    bun: Bun.version,
  };
}

// ---------------------------------------------------------------------------------------
// Statistics
// ---------------------------------------------------------------------------------------

export interface Stats {
  n: number;
  min: number | null;
  p10: number | null;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  p999: number | null;
  max: number | null;
  mean: number | null;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1]!;
}

const r2 = (v: number | null) => (v === null ? null : Math.round(v * 100) / 100);

export function stats(values: number[]): Stats {
  const sorted = Float64Array.from(values).sort();
  const arr = Array.from(sorted);
  const sum = arr.reduce((a, b) => a + b, 0);
  return {
    n: arr.length,
    min: r2(arr[0] ?? null),
    p10: r2(percentile(arr, 0.1)),
    p50: r2(percentile(arr, 0.5)),
    p90: r2(percentile(arr, 0.9)),
    p99: r2(percentile(arr, 0.99)),
    p999: r2(percentile(arr, 0.999)),
    max: r2(arr[arr.length - 1] ?? null),
    mean: r2(arr.length ? sum / arr.length : null),
  };
}

export const fmtStats = (s: Stats, unit = "ms") =>
  s.n === 0
    ? "n=0"
    : `n=${s.n} p50=${s.p50}${unit} p90=${s.p90}${unit} p99=${s.p99}${unit} p99.9=${s.p999}${unit} max=${s.max}${unit}`;

/** PASS / MISS of a figure against a limit (null figure = MISS: nothing to show). */
export const verdict = (value: number | null, limit: number) => (value !== null && value <= limit ? "PASS" : "MISS");

// ---------------------------------------------------------------------------------------
// The app copy
// ---------------------------------------------------------------------------------------

const SKIP = new Set(["node_modules", "build", "public", "data", "test-results", ".git", ".cache", "bench", "docs"]);

function pathWithoutBunNode(): string {
  return (process.env.PATH ?? "")
    .split(path.delimiter)
    .filter((dir) => {
      try {
        const real = execFileSync("readlink", ["-f", path.join(dir, "node")], { encoding: "utf8" }).trim();
        return existsSync(real) && !/bun(\.exe)?$/.test(path.basename(real));
      } catch {
        return true;
      }
    })
    .join(path.delimiter);
}

/** `npx remix build` inside `dir` (never in the working tree others use), with the copy's own node_modules. */
function buildIn(dir: string) {
  log(`building the app in ${dir} (remix build)...`);
  execSync(`${path.join(dir, "node_modules/.bin/remix")} build`, {
    cwd: dir,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, PATH: pathWithoutBunNode(), NODE_ENV: "production" },
  });
}

export interface AppCopy {
  dir: string;
  /** What was copied: "working tree" or "HEAD <sha>". */
  source: string;
  remove(): void;
}

/**
 * A private copy of the app: sources copied (from the working tree, or `git archive HEAD`
 * when head is true), node_modules symlinked, and the build copied from the working tree
 * (or built inside the copy when it is missing, when head is true, or when rebuild is set).
 */
export function prepareApp(options: { head?: boolean; rebuild?: boolean } = {}): AppCopy {
  const dir = mkdtempSync(path.join(os.tmpdir(), "perpdesk-bench-app-"));
  const remove = () => {
    rmSync(path.join(dir, "node_modules"), { force: true }); // the symlink only
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const sha = execSync("git rev-parse --short=12 HEAD", { cwd: ROOT, encoding: "utf8" }).trim();
    const dirty =
      execSync("git --no-optional-locks status --porcelain --untracked-files=no", {
        cwd: ROOT,
        encoding: "utf8",
      }).trim() !== "";
    let source = `working tree at ${sha}${dirty ? " (with uncommitted changes)" : ""}`;
    if (options.head) {
      execSync(`git archive --format=tar HEAD | tar -x -C ${JSON.stringify(dir)}`, { cwd: ROOT, shell: "/bin/bash" });
      for (const entry of ["bench", "docs", "tests"]) rmSync(path.join(dir, entry), { recursive: true, force: true });
      source = `HEAD ${sha}`;
    } else {
      for (const entry of readdirSync(ROOT)) {
        if (SKIP.has(entry)) continue;
        cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true });
      }
      mkdirSync(path.join(dir, "public"), { recursive: true });
      for (const entry of readdirSync(path.join(ROOT, "public"))) {
        if (entry !== "build")
          cpSync(path.join(ROOT, "public", entry), path.join(dir, "public", entry), { recursive: true });
      }
    }
    symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
    const haveBuild = existsSync(path.join(ROOT, "build/index.js")) && existsSync(path.join(ROOT, "public/build"));
    if (options.head || options.rebuild || !haveBuild) {
      buildIn(dir);
    } else {
      cpSync(path.join(ROOT, "build"), path.join(dir, "build"), { recursive: true });
      cpSync(path.join(ROOT, "public/build"), path.join(dir, "public/build"), { recursive: true });
      // Complete only if every asset the server build names was copied.
      const serverBuild = readFileSync(path.join(dir, "build/index.js"), "utf8");
      const assets = [...new Set(serverBuild.match(/"\/build\/[^"]+\.js"/g) ?? [])].map((a) => a.slice(1, -1));
      if (assets.some((a) => !existsSync(path.join(dir, "public", a)))) buildIn(dir);
    }
    return { dir, source, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

const ROUTER_DIST = "node_modules/@remix-run/router/dist/router.cjs.js";
const ROUTER_PATCH_MARK = "perpdesk (patches/README.md)";
const ROUTER_PATCH_FILE = "patches/@remix-run+router+1.23.3.patch";

/**
 * node_modules for a revision: the working tree's when the revision's package-lock.json is the
 * working tree's, else `npm ci` from that lockfile in /tmp/perpdesk-bench-nm-<hash> (kept for
 * the next run). `router`: a hard-linked copy of it whose @remix-run/router server file is the
 * pristine one ("pristine": the patch of decision 037 reversed if it was applied) or the
 * patched one ("patched": applied if it was not), in /tmp/perpdesk-bench-nm-<router>-<hash>.
 * The patch is `patchText` (patches/@remix-run+router+1.23.3.patch).
 */
function nodeModulesFor(sha: string, router: "pristine" | "patched", patchText: string | null): string {
  const lock = execSync(`git show ${sha}:package-lock.json`, { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 2 ** 20 });
  const hash = createHash("sha256").update(lock).digest("hex").slice(0, 12);
  let modules = path.join(ROOT, "node_modules");
  if (lock !== readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) {
    const base = path.join(os.tmpdir(), `perpdesk-bench-nm-${hash}`);
    modules = path.join(base, "node_modules");
    if (!existsSync(path.join(base, ".complete"))) {
      rmSync(base, { recursive: true, force: true });
      mkdirSync(base, { recursive: true });
      execSync(`git archive --format=tar ${sha} | tar -x -C ${JSON.stringify(base)}`, {
        cwd: ROOT,
        shell: "/bin/bash",
      });
      log(`npm ci for ${sha} in ${base} (its package-lock.json differs from the working tree's)...`);
      execSync("npm ci --no-audit --no-fund", {
        cwd: base,
        stdio: ["ignore", "inherit", "inherit"],
        env: { ...process.env, PATH: pathWithoutBunNode() },
      });
      writeFileSync(path.join(base, ".complete"), `${sha}\n`);
    }
  }
  const copy = path.join(os.tmpdir(), `perpdesk-bench-nm-${router}-${hash}`);
  if (!existsSync(path.join(copy, ".complete"))) {
    rmSync(copy, { recursive: true, force: true });
    mkdirSync(copy, { recursive: true });
    execFileSync("cp", ["-al", modules, path.join(copy, "node_modules")]);
    const file = path.join(copy, ROUTER_DIST);
    const text = readFileSync(file, "utf8");
    rmSync(file); // a hard link to the original: write a file of its own
    writeFileSync(file, text);
    if (text.includes(ROUTER_PATCH_MARK) !== (router === "patched")) {
      if (!patchText) throw new Error("no patches/@remix-run+router+1.23.3.patch in the revision or the working tree");
      execFileSync("patch", [...(router === "pristine" ? ["-R"] : []), "-p1", "-s", "--no-backup-if-mismatch"], {
        cwd: copy,
        input: patchText,
      });
    }
    if (readFileSync(file, "utf8").includes(ROUTER_PATCH_MARK) !== (router === "patched"))
      throw new Error(`${file} is not ${router}`);
    writeFileSync(path.join(copy, ".complete"), `${sha}\n`);
  }
  return path.join(copy, "node_modules");
}

/**
 * A frozen copy of one revision for bench/compare.ts: `<rev>` (its router as its own `npm ci`
 * leaves it), `<rev>:router-patch` or `<rev>:no-router-patch` (nodeModulesFor).
 * `git archive <rev>`, its own node_modules (nodeModulesFor), built inside the copy.
 */
export function prepareVariant(spec: string): AppCopy {
  const [rev, flag] = spec.split(":") as [string, string | undefined];
  if (flag !== undefined && flag !== "no-router-patch" && flag !== "router-patch")
    throw new Error(`unknown variant flag ${flag} (:router-patch or :no-router-patch)`);
  const sha = execFileSync("git", ["rev-parse", "--short=12", "--verify", `${rev}^{commit}`], {
    cwd: ROOT,
    encoding: "utf8",
  }).trim();
  const dir = mkdtempSync(path.join(os.tmpdir(), "perpdesk-bench-app-"));
  const remove = () => {
    rmSync(path.join(dir, "node_modules"), { force: true }); // the symlink only
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    execSync(`git archive --format=tar ${sha} | tar -x -C ${JSON.stringify(dir)}`, { cwd: ROOT, shell: "/bin/bash" });
    for (const entry of ["bench", "docs", "tests"]) rmSync(path.join(dir, entry), { recursive: true, force: true });
    // Without a flag, the router as `npm ci` of that revision leaves it: patched (postinstall)
    // when the revision has the patch, else pristine, whatever the working tree's install holds.
    const revisionPatch = existsSync(path.join(dir, ROUTER_PATCH_FILE))
      ? readFileSync(path.join(dir, ROUTER_PATCH_FILE), "utf8")
      : null;
    const patchText =
      revisionPatch ??
      (existsSync(path.join(ROOT, ROUTER_PATCH_FILE))
        ? readFileSync(path.join(ROOT, ROUTER_PATCH_FILE), "utf8")
        : null);
    const router = flag === "router-patch" || (!flag && revisionPatch) ? "patched" : "pristine";
    const modules = nodeModulesFor(sha, router, patchText);
    symlinkSync(modules, path.join(dir, "node_modules"));
    const patched = readFileSync(path.join(modules, "@remix-run/router/dist/router.cjs.js"), "utf8").includes(
      ROUTER_PATCH_MARK,
    );
    buildIn(dir);
    const source = `${rev} ${sha}, router ${patched ? "patched" : "pristine"}`;
    writeFileSync(path.join(dir, SOURCE_MARKER), `${source}\n`);
    return { dir, source, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

// ---------------------------------------------------------------------------------------
// Cleanup registry (also run on Ctrl-C and by the watchdog)
// ---------------------------------------------------------------------------------------

const cleanups: (() => Promise<void> | void)[] = [];
/** Synchronous fallbacks run on process exit (kill the group, remove temp dirs). */
const exitCleanups: (() => void)[] = [];
let cleaning: Promise<void> | null = null;

export function onCleanup(fn: () => Promise<void> | void) {
  cleanups.push(fn);
}

export function cleanupAll(): Promise<void> {
  cleaning ??= (async () => {
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch (error) {
        console.error(`[bench] cleanup step failed: ${(error as Error).message}`);
      }
    }
  })();
  return cleaning;
}

/** Ctrl-C / SIGTERM and a global time limit both clean up and exit. */
export function installGuards(maxTotalMs: number) {
  for (const name of ["SIGINT", "SIGTERM"] as const) {
    process.on(name, async () => {
      console.error(`[bench] ${name}: cleaning up`);
      await cleanupAll();
      process.exit(130);
    });
  }
  for (const name of ["uncaughtException", "unhandledRejection"] as const) {
    process.on(name, async (error: unknown) => {
      console.error(`[bench] ${name}:`, error);
      await cleanupAll();
      process.exit(1);
    });
  }
  // Last resort (an exit without the async cleanup): kill what was started, synchronously.
  process.on("exit", () => {
    for (const fn of exitCleanups) {
      try {
        fn();
      } catch {}
    }
  });
  setTimeout(async () => {
    console.error(`[bench] watchdog: still running after ${Math.round(maxTotalMs / 1000)} s, cleaning up`);
    await cleanupAll();
    process.exit(3);
  }, maxTotalMs).unref();
}

// ---------------------------------------------------------------------------------------
// The app instance
// ---------------------------------------------------------------------------------------

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen({ port: 0, host: "127.0.0.1", exclusive: true }, () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

export function assertLoopback(url: string) {
  const host = new URL(url).hostname;
  if (host !== "127.0.0.1") throw new Error(`refusing to send benchmark traffic to ${host}: loopback only`);
}

/** Direct read access to the app's database (bun:sqlite on the data file, or mysql2). */
export interface DbReader {
  all<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  one<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T | undefined>;
  close(): Promise<void>;
}

export interface Instance {
  baseUrl: string;
  port: number;
  dialect: "sqlite" | "mysql";
  dataDir: string;
  databaseName: string | null;
  cookie: string; // "tv_session=..."
  secret: string;
  db: DbReader;
  log(): string;
  /** Pids of the app's processes (start.ts, web, worker) for CPU sampling. */
  pids(): number[];
  /** False once start.ts has exited (the app stopped under the benchmark). */
  alive(): boolean;
  stop(): Promise<void>;
}

async function mysqlAdmin() {
  const mysql = await import("mysql2/promise");
  return mysql.createConnection({ ...MYSQL_ADMIN, connectTimeout: 5000 });
}

/**
 * An empty database for a bench that opens the app's data layer itself (monitor.ts,
 * price-tick.ts): a SQLite file in a temp dir, or with `mysql` a fresh MariaDB database
 * bench_<hex> on 127.0.0.1:3306; `cleanup` removes it.
 */
export async function scratchDatabase(
  mysql: boolean,
  label: string,
): Promise<{ url: string; cleanup: () => Promise<void> }> {
  if (!mysql) {
    const dir = mkdtempSync(path.join(os.tmpdir(), `bench-${label}-`));
    return {
      url: `sqlite:${path.join(dir, "app.db")}`,
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `bench_${randomBytes(4).toString("hex")}`;
  const admin = await mysqlAdmin();
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await admin.end();
  return {
    url: `mysql://root@127.0.0.1:3306/${name}`,
    cleanup: async () => {
      const conn = await mysqlAdmin();
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await conn.end();
    },
  };
}

async function openReader(dialect: "sqlite" | "mysql", target: string): Promise<DbReader> {
  if (dialect === "sqlite") {
    const { Database } = await import("bun:sqlite");
    const raw = new Database(target, { readonly: false, create: false });
    raw.exec("PRAGMA busy_timeout = 10000");
    return {
      async all(sql, params = []) {
        return raw.query(sql).all(...(params as never[])) as never;
      },
      async one(sql, params = []) {
        return (raw.query(sql).get(...(params as never[])) ?? undefined) as never;
      },
      async close() {
        raw.close();
      },
    };
  }
  const mysql = await import("mysql2/promise");
  const conn = await mysql.createConnection({
    ...MYSQL_ADMIN,
    database: target,
    supportBigNumbers: false,
    decimalNumbers: false,
  });
  return {
    async all(sql, params = []) {
      const [rows] = await conn.query(sql, params);
      return rows as never;
    },
    async one(sql, params = []) {
      const [rows] = await conn.query(sql, params);
      return (rows as never[])[0];
    },
    async close() {
      await conn.end();
    },
  };
}

/** Reads the app's processes (the group leader and its children) from /proc. */
function groupPids(pgid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

export async function startInstance(options: {
  mysql: boolean;
  appDir: string;
  label: string;
  cpuProfileDir?: string;
}): Promise<Instance> {
  const dialect = options.mysql ? "mysql" : "sqlite";
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `perpdesk-bench-${options.label}-`));
  onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  exitCleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  let databaseName: string | null = null;
  let databaseUrl: string | undefined;
  if (options.mysql) {
    databaseName = `bench_${randomBytes(6).toString("hex")}`;
    const admin = await mysqlAdmin();
    await admin.query(`CREATE DATABASE \`${databaseName}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await admin.end();
    const name = databaseName;
    onCleanup(async () => {
      const conn = await mysqlAdmin();
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await conn.end();
    });
    databaseUrl = `mysql://root@127.0.0.1:3306/${databaseName}`;
  }

  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  delete env.APP_SECRET;
  delete env.DATABASE_URL;
  Object.assign(env, {
    PATH: `${BIN_DIR}${path.delimiter}${process.env.PATH ?? ""}`,
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    NODE_ENV: "production",
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    // --cpu-prof DIR: every Bun process of the app writes a CPU profile (and its markdown
    // summary) into DIR when it exits.
    ...(options.cpuProfileDir
      ? { BUN_OPTIONS: `--cpu-prof --cpu-prof-md --cpu-prof-dir=${options.cpuProfileDir}` }
      : {}),
  });

  let output = "";
  const child: ChildProcess = spawn(path.join(BIN_DIR, "bun"), ["scripts/start.ts"], {
    cwd: options.appDir,
    env: env as NodeJS.ProcessEnv,
    detached: true, // its own process group: start.ts, the web server and the worker
    stdio: ["ignore", "pipe", "pipe"],
  });
  const pgid = child.pid!;
  exitCleanups.unshift(() => {
    if (groupAlive(pgid)) process.kill(-pgid, "SIGKILL");
  });
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  let exited = false;
  child.on("exit", (code, signal) => {
    exited = true;
    output += `\n[bench] start.ts exited (code ${code}, signal ${signal})\n`;
  });

  let reader: DbReader | null = null;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await reader?.close().catch(() => undefined);
    await stopGroup(pgid, 10_000);
  };
  onCleanup(stop);

  const healthy = await waitForHealth(baseUrl, () => exited);
  if (!healthy || exited) {
    await stop();
    throw new Error(`the app did not answer GET /api/health with 200 within 60 s. Log:\n${output}`);
  }

  // The first account becomes the admin; its session opens /ws and reads the webhook secret.
  const reg = await fetch(`${baseUrl}/api/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "bench_admin", password: `bench-${randomBytes(8).toString("hex")}` }),
  });
  if (reg.status !== 201) throw new Error(`POST /api/register answered ${reg.status}: ${await reg.text()}`);
  await reg.arrayBuffer();
  const setCookie = reg.headers.getSetCookie?.() ?? [reg.headers.get("set-cookie") ?? ""];
  const session = setCookie.map((c) => c.split(";")[0]!).find((c) => c.startsWith("tv_session="));
  if (!session) throw new Error(`no tv_session cookie in ${JSON.stringify(setCookie)}`);
  const cfg = await fetch(`${baseUrl}/api/webhook-config`, { headers: { cookie: session } });
  if (cfg.status !== 200) throw new Error(`GET /api/webhook-config answered ${cfg.status}`);
  const { secret } = (await cfg.json()) as { secret: string };

  reader = await openReader(dialect, options.mysql ? databaseName! : path.join(dataDir, "app.db"));
  return {
    baseUrl,
    port,
    dialect,
    dataDir,
    databaseName,
    cookie: session,
    secret,
    db: reader,
    log: () => output,
    pids: () => groupPids(pgid),
    alive: () => !exited,
    stop,
  };
}

/** Waits until the worker's price loop has written a price for every product. */
export async function waitForPrices(inst: Instance, timeoutMs = 30_000): Promise<number> {
  const started = Date.now();
  const ok = await waitUntil(
    async () => {
      const row = await inst.db.one<{ n: number }>("SELECT COUNT(*) AS n FROM market_prices");
      return Number(row?.n ?? 0) >= 4;
    },
    timeoutMs,
    100,
  );
  if (!ok) throw new Error(`no market prices after ${timeoutMs} ms (the worker's price loop did not run)`);
  return Date.now() - started;
}

/** Waits until no job is runnable or running; returns how long it took, or null on timeout. */
export async function waitForDrain(
  inst: Instance,
  timeoutMs: number,
  label: string,
): Promise<{ ms: number | null; left: number }> {
  const started = Date.now();
  let left = 0;
  let lastLog = 0;
  while (Date.now() - started < timeoutMs) {
    const row = await inst.db.one<{ n: number }>(
      "SELECT COUNT(*) AS n FROM jobs WHERE status IN ('created','retry','active')",
    );
    left = Number(row?.n ?? 0);
    if (left === 0) return { ms: Date.now() - started, left: 0 };
    if (Date.now() - lastLog > 10_000) {
      lastLog = Date.now();
      log(`${label}: waiting for the worker to drain, ${left} jobs left`);
    }
    await sleep(100);
  }
  return { ms: null, left };
}

// ---------------------------------------------------------------------------------------
// CPU sampling (where the time goes: web vs worker vs load generator vs MariaDB)
// ---------------------------------------------------------------------------------------

const CLK_TCK = 100;

function cpuTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]); // utime + stime
  } catch {
    return 0;
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
  } catch {
    return "";
  }
}

function mariadbPid(): number | null {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cmd = commandOf(Number(entry));
    if (/(^|\/)(mariadbd|mysqld)( |$)/.test(cmd)) return Number(entry);
  }
  return null;
}

/** Busy and total jiffies of the whole machine (all cores), from /proc/stat. */
function machineTicks(): { busy: number; total: number } {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0]!;
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number) as number[];
  const busy = user! + nice! + system! + irq! + softirq! + steal!;
  return { busy, total: busy + idle! + iowait! };
}

/**
 * CPU used by each process between start() and stop(), as % of one core (200 % = both
 * cores), plus the whole machine's busy CPU and what other processes (not this benchmark,
 * its app or MariaDB) used: the machine is shared, so that figure says how clean a run was.
 */
export function cpuSampler(inst: Instance) {
  const named = () => {
    const map: Record<string, number> = {};
    let webs = 0;
    for (const pid of inst.pids()) {
      const cmd = commandOf(pid);
      // Several web processes (WEB_PROCESSES > 1): web, web 2, web 3, ...
      const web = () => (++webs === 1 ? "web" : `web ${webs}`);
      const name = cmd.includes("worker/index.ts")
        ? "worker"
        : cmd.includes("server.ts")
          ? web()
          : cmd.includes("start.ts")
            ? "start.ts"
            : `pid${pid}`;
      map[name] = pid;
    }
    map["load generator (bench)"] = process.pid;
    const db = inst.dialect === "mysql" ? mariadbPid() : null;
    if (db) map.mariadb = db;
    return map;
  };
  let pids: Record<string, number> = {};
  let before: Record<string, number> = {};
  let machine0 = { busy: 0, total: 0 };
  let t0 = 0;
  return {
    start() {
      pids = named();
      before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuTicks(pid)]));
      machine0 = machineTicks();
      t0 = performance.now();
    },
    stop(): Record<string, number> {
      const seconds = (performance.now() - t0) / 1000;
      const out: Record<string, number> = {};
      let ours = 0;
      for (const [k, pid] of Object.entries(pids)) {
        const ticks = cpuTicks(pid) - before[k]!;
        ours += ticks;
        out[k] = Math.round((ticks / CLK_TCK / seconds) * 1000) / 10; // % of one core
      }
      const m = machineTicks();
      const cores = os.cpus().length;
      const busyPct = ((m.busy - machine0.busy) / Math.max(1, m.total - machine0.total)) * 100 * cores;
      out["machine busy"] = Math.round(busyPct * 10) / 10;
      out["other processes"] = Math.max(0, Math.round((busyPct - (ours / CLK_TCK / seconds) * 100) * 10) / 10);
      return out;
    },
  };
}

export const fmtCpu = (cpu: Record<string, number>) =>
  Object.entries(cpu)
    .filter(([k, v]) => k !== "start.ts" && !(k.startsWith("pid") && v === 0))
    .map(([k, v]) => `${k} ${v}%`)
    .join(", ");

// ---------------------------------------------------------------------------------------
// Webhooks and request loops
// ---------------------------------------------------------------------------------------

/** Symbols and sizes that pass the minimum notional; sides alternate so positions stay small. */
const ORDER_MIX = [
  { symbol: "ETH-PERP", quantity: "0.01" },
  { symbol: "SOL-PERP", quantity: "0.1" },
  { symbol: "BTC-PERP", quantity: "0.0002" },
  { symbol: "XRP-PERP", quantity: "5" },
];

export function webhookBody(secret: string, alertId: string, n: number): string {
  const mix = ORDER_MIX[n % ORDER_MIX.length]!;
  const action = Math.floor(n / ORDER_MIX.length) % 2 === 0 ? "buy" : "sell";
  return JSON.stringify({
    secret,
    id: alertId,
    action,
    symbol: mix.symbol,
    quantity: mix.quantity,
    order_type: "market",
    strategy: "bench",
  });
}

export interface WebhookResult {
  alertId: string;
  intendedAt: number; // wallMs the request was due
  sentAt: number; // wallMs just before fetch()
  ackAt: number | null; // wallMs the full answer was read
  status: number; // HTTP status, 0 = network error / timeout
  signalId: string | null;
  outcome: string | null; // queued | skipped | duplicate | error text
}

export async function postWebhook(
  inst: Instance,
  alertId: string,
  n: number,
  intendedAt = wallMs(),
): Promise<WebhookResult> {
  const url = `${inst.baseUrl}/api/webhook/tradingview`;
  assertLoopback(url);
  const body = webhookBody(inst.secret, alertId, n);
  const sentAt = wallMs();
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    const ackAt = wallMs();
    let parsed: { success?: boolean; signalId?: string; status?: string; error?: string } = {};
    try {
      parsed = JSON.parse(text);
    } catch {}
    return {
      alertId,
      intendedAt,
      sentAt,
      ackAt,
      status: res.status,
      signalId: parsed.signalId ?? null,
      outcome: parsed.status ?? parsed.error ?? text.slice(0, 80),
    };
  } catch (error) {
    return { alertId, intendedAt, sentAt, ackAt: null, status: 0, signalId: null, outcome: (error as Error).name };
  }
}

export interface PacedResult<T> {
  results: T[];
  elapsedMs: number;
  /** Requests actually started per second over the sending window. */
  achievedRate: number;
  /** Largest delay between a request's due time and its start (load-generator lag). */
  maxStartLagMs: number;
  /** Requests that had to wait for the in-flight cap. */
  cappedStarts: number;
  stoppedBy: "count" | "time";
}

/**
 * Open-loop pacing: request i is due at t0 + i / rate and is started then, whether or
 * not earlier ones have answered (up to maxInFlight outstanding). Stops after `count`
 * requests or `maxMs`, then waits (bounded) for the ones in flight.
 */
export async function pacedLoop<T>(options: {
  rate: number;
  count: number;
  maxMs: number;
  maxInFlight?: number;
  fire: (i: number, intendedAt: number) => Promise<T>;
}): Promise<PacedResult<T>> {
  const { rate, count, maxMs } = options;
  const maxInFlight = options.maxInFlight ?? 1000;
  const results: T[] = [];
  const pending = new Set<Promise<void>>();
  const t0 = wallMs();
  let next = 0;
  let maxStartLagMs = 0;
  let cappedStarts = 0;
  let stoppedBy: "count" | "time" = "count";
  while (next < count) {
    const now = wallMs();
    if (now - t0 > maxMs) {
      stoppedBy = "time";
      break;
    }
    const due = Math.min(count, Math.floor(((now - t0) * rate) / 1000) + 1);
    while (next < due) {
      if (pending.size >= maxInFlight) {
        cappedStarts++;
        await Promise.race(pending);
        continue;
      }
      const i = next++;
      const intendedAt = t0 + (i * 1000) / rate;
      maxStartLagMs = Math.max(maxStartLagMs, wallMs() - intendedAt);
      const p: Promise<void> = options.fire(i, intendedAt).then((r) => {
        results.push(r);
        pending.delete(p);
      });
      pending.add(p);
    }
    if (next >= count) break;
    const wait = t0 + (next * 1000) / rate - wallMs();
    await sleep(Math.max(0, Math.min(wait, 50)));
  }
  const sendWindowMs = wallMs() - t0;
  await Promise.race([Promise.all(pending), sleep(30_000)]);
  return {
    results,
    elapsedMs: wallMs() - t0,
    achievedRate: Math.round((next / (sendWindowMs / 1000)) * 10) / 10,
    maxStartLagMs: Math.round(maxStartLagMs * 100) / 100,
    cappedStarts,
    stoppedBy,
  };
}

/** `count` tasks released at once, at most `concurrency` in flight. */
export async function burst<T>(count: number, concurrency: number, fire: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count) {
      const i = next++;
      results.push(await fire(i));
    }
  });
  await Promise.all(lanes);
  return results;
}

/** `count` webhooks with the alert ids `${prefix}0`, `${prefix}1`, ... at `rate` per second (pacedLoop), given up after `maxMs`. */
export function pacedWebhooks(
  inst: Instance,
  prefix: string,
  rate: number,
  count: number,
  maxMs: number,
): Promise<PacedResult<WebhookResult>> {
  return pacedLoop({ rate, count, maxMs, fire: (i, due) => postWebhook(inst, `${prefix}${i}`, i, due) });
}

export const runTag = () => randomBytes(4).toString("hex");

/** "?" placeholders for an IN list. */
export const placeholders = (n: number) => Array.from({ length: n }, () => "?").join(",");

// ---------------------------------------------------------------------------------------
// Integrity: acknowledged vs stored, jobs and orders per signal
// ---------------------------------------------------------------------------------------

export interface Integrity {
  acked: number; // distinct alert ids answered 200 success
  stored: number; // signals stored with this phase's alert ids
  lost: number; // acked but not stored
  ackIdMismatch: number; // alert ids whose answers named different signal ids, or not the stored one
  signalsWithoutJob: number;
  duplicateJobs: number; // signals with more than one job
  duplicateTrades: number; // signals with more than one trade
  duplicateOrders: number; // signals with more than one order at the simulated exchange
  signalStatus: Record<string, number>;
  jobStatus: Record<string, number>;
  orderStatus: Record<string, number>;
}

export async function checkIntegrity(inst: Instance, prefix: string, results: WebhookResult[]): Promise<Integrity> {
  const like = `id:${prefix}%`;
  const answered = new Map<string, Set<string>>();
  for (const r of results) {
    if (r.status !== 200 || !r.signalId) continue;
    let set = answered.get(r.alertId);
    if (!set) answered.set(r.alertId, (set = new Set()));
    set.add(r.signalId);
  }
  const rows = await inst.db.all<{ id: string; dedupe_key: string }>(
    "SELECT id, dedupe_key FROM signals WHERE dedupe_key LIKE ?",
    [like],
  );
  const byKey = new Map(rows.map((r) => [r.dedupe_key.slice(3), r.id]));
  let lost = 0;
  let mismatch = 0;
  for (const [alertId, ids] of answered) {
    const stored = byKey.get(alertId);
    if (!stored) lost++;
    else if (ids.size !== 1 || !ids.has(stored)) mismatch++;
  }
  const count = async (sql: string) => Number((await inst.db.one<{ n: number }>(sql, [like]))?.n ?? 0);
  const group = async (sql: string) =>
    Object.fromEntries((await inst.db.all<{ k: string; n: number }>(sql, [like])).map((r) => [r.k, Number(r.n)]));
  return {
    acked: answered.size,
    stored: rows.length,
    lost,
    ackIdMismatch: mismatch,
    signalsWithoutJob: await count(
      "SELECT COUNT(*) AS n FROM signals s WHERE s.dedupe_key LIKE ? AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.signal_id = s.id)",
    ),
    duplicateJobs: await count(
      "SELECT COUNT(*) AS n FROM (SELECT j.signal_id FROM jobs j JOIN signals s ON s.id = j.signal_id WHERE s.dedupe_key LIKE ? GROUP BY j.signal_id HAVING COUNT(*) > 1) x",
    ),
    duplicateTrades: await count(
      "SELECT COUNT(*) AS n FROM (SELECT t.signal_id FROM trades t JOIN signals s ON s.id = t.signal_id WHERE s.dedupe_key LIKE ? GROUP BY t.signal_id HAVING COUNT(*) > 1) x",
    ),
    duplicateOrders: await count(
      "SELECT COUNT(*) AS n FROM (SELECT t.signal_id FROM trades t JOIN sim_orders o ON o.client_order_id = t.client_order_id JOIN signals s ON s.id = t.signal_id WHERE s.dedupe_key LIKE ? GROUP BY t.signal_id HAVING COUNT(*) > 1) x",
    ),
    signalStatus: await group("SELECT status AS k, COUNT(*) AS n FROM signals WHERE dedupe_key LIKE ? GROUP BY status"),
    jobStatus: await group(
      "SELECT j.status AS k, COUNT(*) AS n FROM jobs j JOIN signals s ON s.id = j.signal_id WHERE s.dedupe_key LIKE ? GROUP BY j.status",
    ),
    orderStatus: await group(
      "SELECT o.status AS k, COUNT(*) AS n FROM sim_orders o JOIN trades t ON t.client_order_id = o.client_order_id JOIN signals s ON s.id = t.signal_id WHERE s.dedupe_key LIKE ? GROUP BY o.status",
    ),
  };
}

export const fmtIntegrity = (i: Integrity) =>
  `acked ${i.acked}, stored ${i.stored}, lost ${i.lost}, ack/id mismatch ${i.ackIdMismatch}, without job ${i.signalsWithoutJob}, ` +
  `duplicate jobs ${i.duplicateJobs}, duplicate trades ${i.duplicateTrades}, duplicate orders ${i.duplicateOrders}\n` +
  `    signals ${JSON.stringify(i.signalStatus)} jobs ${JSON.stringify(i.jobStatus)} orders ${JSON.stringify(i.orderStatus)}`;

export const integrityOk = (i: Integrity) =>
  i.lost === 0 &&
  i.ackIdMismatch === 0 &&
  i.signalsWithoutJob === 0 &&
  i.duplicateJobs === 0 &&
  i.duplicateTrades === 0 &&
  i.duplicateOrders === 0;

// ---------------------------------------------------------------------------------------
// Seed: executed trades written straight into the database
// ---------------------------------------------------------------------------------------

const SEED_SYMBOLS = [
  { symbol: "BTC-PERP", quantity: "0.001", price: 60_000, step: 50 },
  { symbol: "ETH-PERP", quantity: "0.05", price: 3_000, step: 3 },
  { symbol: "SOL-PERP", quantity: "1", price: 150, step: 0.2 },
  { symbol: "XRP-PERP", quantity: "50", price: 0.6, step: 0.0005 },
];

async function insertRows(inst: Instance, table: string, columns: string[], rows: unknown[][]) {
  const chunk = Math.max(1, Math.floor(5000 / columns.length));
  for (let i = 0; i < rows.length; i += chunk) {
    const part = rows.slice(i, i + chunk);
    const values = part.map(() => `(${columns.map(() => "?").join(",")})`).join(",");
    await inst.db.all(`INSERT INTO ${table} (${columns.join(",")}) VALUES ${values}`, part.flat());
  }
}

/**
 * Seeds `count` executed trades straight into the app's database (bench/pages.ts, bench/compare.ts):
 * round trips on the four perps over the last 60 days (every one a FIFO match), one signal per
 * trade and one closed position per round trip. The columns are the ones every revision since
 * 7978aa8 has, so two revisions get the same rows.
 */
export async function seedRoundTrips(
  inst: Instance,
  count: number,
): Promise<{ trades: number; signals: number; positions: number; ms: number }> {
  const started = Date.now();
  const tag = randomBytes(3).toString("hex");
  const now = Date.now();
  const span = 60 * 24 * 60 * 60 * 1000;
  const roundTrips = Math.floor(count / 2);
  const signals: unknown[][] = [];
  const trades: unknown[][] = [];
  const positions: unknown[][] = [];
  let state = 12345;
  const rand = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  for (let i = 0; i < roundTrips; i++) {
    const s = SEED_SYMBOLS[i % SEED_SYMBOLS.length]!;
    const long = i % 3 !== 0;
    const openAt = now - span + Math.floor((i / roundTrips) * (span - 3_600_000));
    const closeAt = openAt + 60_000 + Math.floor(rand() * 1_800_000);
    const entry = s.price + (rand() - 0.5) * 40 * s.step;
    const exit = entry + (rand() - 0.45) * 20 * s.step;
    const digits = s.step < 0.01 ? 4 : 2;
    const entryText = entry.toFixed(digits);
    const exitText = exit.toFixed(digits);
    const fee = (Number(s.quantity) * entry * 0.0006).toFixed(6);
    const positionId = `seed-${tag}-p${i}`;
    for (const [leg, side, at, price] of [
      ["o", long ? "buy" : "sell", openAt, entryText],
      ["c", long ? "sell" : "buy", closeAt, exitText],
    ] as const) {
      const id = `seed-${tag}-${i}${leg}`;
      const action = side;
      signals.push([
        `sig-${id}`,
        action,
        s.symbol,
        "market",
        null,
        s.quantity,
        JSON.stringify({ action, symbol: s.symbol, quantity: s.quantity }),
        "seed",
        at,
        `seed:${id}`,
        1,
        "executed",
        null,
        at,
        at,
      ]);
      trades.push([
        id,
        s.symbol,
        side,
        "market",
        s.quantity,
        null,
        price,
        s.quantity,
        fee,
        "executed",
        "signal",
        `ord-${id}`,
        `cid-${id}`,
        "simulator",
        `sig-${id}`,
        positionId,
        null,
        1,
        "cross",
        leg === "c" ? 1 : 0,
        null,
        null,
        at,
        at,
        at,
      ]);
    }
    const pnl = ((long ? exit - entry : entry - exit) * Number(s.quantity)).toFixed(6);
    positions.push([
      positionId,
      s.symbol,
      long ? "long" : "short",
      s.quantity,
      "0",
      entryText,
      exitText,
      `seed-${tag}-${i}o`,
      "0",
      "0",
      "closed",
      0,
      0,
      null,
      null,
      null,
      null,
      pnl,
      (Number(fee) * 2).toFixed(6),
      1,
      "cross",
      "signal",
      `sig-seed-${tag}-${i}o`,
      openAt,
      closeAt,
      closeAt,
    ]);
  }
  await insertRows(
    inst,
    "signals",
    [
      "id",
      "action",
      "symbol",
      "order_type",
      "price",
      "quantity",
      "payload",
      "strategy",
      "signal_time",
      "dedupe_key",
      "processed",
      "status",
      "status_reason",
      "created_at",
      "processed_at",
    ],
    signals,
  );
  // Positions before trades: trades.position_id references them (enforced on MariaDB).
  await insertRows(
    inst,
    "positions",
    [
      "id",
      "symbol",
      "side",
      "quantity",
      "remaining_quantity",
      "entry_price",
      "current_price",
      "entry_trade_id",
      "max_drawdown",
      "portfolio_percent",
      "status",
      "break_even_triggered",
      "trailing_stop_active",
      "trailing_best_price",
      "stop_price",
      "advanced_controls",
      "rule_state",
      "realized_pnl",
      "fees",
      "leverage",
      "margin_type",
      "source",
      "signal_id",
      "created_at",
      "updated_at",
      "closed_at",
    ],
    positions,
  );
  await insertRows(
    inst,
    "trades",
    [
      "id",
      "symbol",
      "side",
      "order_type",
      "quantity",
      "price",
      "executed_price",
      "executed_quantity",
      "fee",
      "status",
      "source",
      "order_id",
      "client_order_id",
      "exchange",
      "signal_id",
      "position_id",
      "job_id",
      "leverage",
      "margin_type",
      "reduce_only",
      "error_message",
      "realized_pnl",
      "created_at",
      "executed_at",
      "updated_at",
    ],
    trades,
  );
  return { trades: trades.length, signals: signals.length, positions: positions.length, ms: Date.now() - started };
}

// ---------------------------------------------------------------------------------------
// Boot: app copy + instance + prices
// ---------------------------------------------------------------------------------------

export const SOURCE_MARKER = ".bench-source";

export async function boot(args: Record<string, string | boolean>, label: string, maxTotalMs: number) {
  installGuards(maxTotalMs);
  let appDir = typeof args["app-dir"] === "string" ? path.resolve(args["app-dir"]) : null;
  let appSource: string;
  if (appDir) {
    if (!existsSync(path.join(appDir, "build/index.js")))
      throw new Error(`${appDir} has no build/index.js (make one with bun bench/prepare.ts)`);
    appSource = existsSync(path.join(appDir, SOURCE_MARKER))
      ? readFileSync(path.join(appDir, SOURCE_MARKER), "utf8").trim()
      : appDir;
  } else {
    const copy = prepareApp({ head: Boolean(args.head), rebuild: Boolean(args.rebuild) });
    onCleanup(copy.remove);
    exitCleanups.push(copy.remove);
    appDir = copy.dir;
    appSource = copy.source;
  }
  const mysql = Boolean(args.mysql);
  log(`starting the app (${mysql ? "MariaDB" : "SQLite"}) from ${appSource}`);
  const cpuProfileDir = typeof args["cpu-prof"] === "string" ? path.resolve(args["cpu-prof"]) : undefined;
  if (cpuProfileDir) mkdirSync(cpuProfileDir, { recursive: true });
  const inst = await startInstance({ mysql, appDir, label, cpuProfileDir });
  log(
    `app up at ${inst.baseUrl}${inst.databaseName ? ` (database ${inst.databaseName})` : ` (DATA_DIR ${inst.dataDir})`}`,
  );
  const priceWait = await waitForPrices(inst);
  log(`market prices present (waited ${priceWait} ms)`);
  // What leads every bench's JSON line after its name: the database, the app and the machine.
  const runInfo = { db: inst.dialect, app: appSource, machine: machineInfo() };
  return { inst, appSource, dialect: inst.dialect, runInfo };
}

/** Prints the JSON line last, after the instance is gone. */
export async function finish(summary: Record<string, unknown>, ok: boolean) {
  await cleanupAll();
  console.log(JSON.stringify(summary));
  process.exit(ok ? 0 : 1);
}

// ---------------------------------------------------------------------------------------
// Profiling: bench/sampler.ts on the web and worker main threads (--profile)
// ---------------------------------------------------------------------------------------

export function startProfile(inst: Instance, maxMs: number) {
  const targets: string[] = [];
  for (const pid of inst.pids()) {
    const cmd = commandOf(pid);
    if (cmd.includes("worker/index.ts")) targets.push(`worker=${pid}`);
    else if (cmd.includes("server.ts")) targets.push(`web=${pid}`);
  }
  const proc = Bun.spawn(
    [
      path.join(BIN_DIR, "bun"),
      path.join(import.meta.dir, "sampler.ts"),
      "--ms",
      String(maxMs),
      "--every",
      "2",
      ...targets,
    ],
    {
      stdout: "pipe",
      stderr: "inherit",
    },
  );
  onCleanup(() => {
    if (proc.exitCode === null) proc.kill("SIGKILL");
  });
  const mysqlProfile = inst.dialect === "mysql" ? startMysqlProfile(inst.databaseName!) : null;
  return {
    async stop(): Promise<Record<string, unknown> | null> {
      proc.kill("SIGINT");
      const text = await new Response(proc.stdout).text();
      await proc.exited;
      let out: Record<string, unknown> | null = null;
      try {
        out = JSON.parse(text.trim().split("\n").pop() ?? "null");
      } catch {}
      if (mysqlProfile) out = { ...(out ?? {}), mariadb: await mysqlProfile.stop() };
      return out;
    },
  };
}

/**
 * What the app's MariaDB connections are doing: every 25 ms, the non-idle threads of the
 * app's database in information_schema.PROCESSLIST by state and statement kind, plus
 * InnoDB lock waits. Reported as the average number of connections in each state.
 */
function startMysqlProfile(database: string) {
  const states = new Map<string, number>();
  let lockWaits = 0;
  let samples = 0;
  let running = true;
  const loop = (async () => {
    const conn = await mysqlAdmin();
    try {
      while (running) {
        const [rows] = await conn.query(
          "SELECT STATE AS s, LOWER(SUBSTRING_INDEX(TRIM(INFO), ' ', 1)) AS verb, INFO AS q FROM information_schema.PROCESSLIST WHERE DB = ? AND COMMAND <> 'Sleep' AND ID <> CONNECTION_ID()",
          [database],
        );
        for (const r of rows as { s: string; verb: string | null; q: string | null }[]) {
          const table = /(?:into|from|update)\s+`(\w+)`/i.exec(r.q ?? "")?.[1];
          const key = `${r.s || "(none)"} | ${r.verb ?? ""}${table ? ` ${table}` : ""}`;
          states.set(key, (states.get(key) ?? 0) + 1);
        }
        const [lw] = await conn.query("SELECT COUNT(*) AS n FROM information_schema.INNODB_LOCK_WAITS");
        lockWaits += Number((lw as { n: number }[])[0]?.n ?? 0);
        samples++;
        await sleep(25);
      }
    } finally {
      await conn.end();
    }
  })();
  return {
    async stop() {
      running = false;
      await loop.catch(() => undefined);
      const avg = (n: number) => Math.round((n / Math.max(1, samples)) * 1000) / 1000;
      return {
        samples,
        avgLockWaits: avg(lockWaits),
        avgConnectionsByState: Object.fromEntries(
          [...states.entries()]
            .sort((a, b) => b[1] - a[1])
            .slice(0, 12)
            .map(([k, v]) => [k, avg(v)]),
        ),
      };
    },
  };
}

export function fmtProfile(profile: Record<string, unknown> | null): string {
  if (!profile) return "(no profile)";
  const parts: string[] = [];
  for (const name of ["web", "worker"]) {
    const p = profile[name] as
      | { mainThreadPercent: Record<string, number>; cpuPercent: number; runQueueWaitPercent: number }
      | undefined;
    if (!p) continue;
    const top = Object.entries(p.mainThreadPercent)
      .slice(0, 6)
      .map(([k, v]) => `${k} ${v}%`)
      .join(", ");
    parts.push(`${name} main thread: ${top}; cpu ${p.cpuPercent}%, waiting for a core ${p.runQueueWaitPercent}%`);
  }
  const m = profile.mariadb as { avgLockWaits: number; avgConnectionsByState: Record<string, number> } | undefined;
  if (m) {
    const top = Object.entries(m.avgConnectionsByState)
      .slice(0, 6)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ");
    parts.push(`mariadb busy connections (avg): ${top}; lock waits ${m.avgLockWaits}`);
  }
  return parts.join("\n    ");
}

// ---------------------------------------------------------------------------------------
// The machine is shared: wait (bounded) for other processes to quieten before a phase
// ---------------------------------------------------------------------------------------

/**
 * Samples the CPU that processes other than this benchmark, its app and MariaDB use, in
 * 3 s windows, until it is below --quiet-threshold (% of one core, default 25) or
 * --quiet-wait seconds (default 300) have passed. Returns the last reading.
 */
export async function awaitQuiet(
  inst: Instance,
  args: Record<string, string | boolean>,
  label: string,
): Promise<number> {
  const threshold = numArg(args, "quiet-threshold", 25);
  const maxWaitMs = numArg(args, "quiet-wait", 300) * 1000;
  const started = Date.now();
  let other = 0;
  let lastLog = 0;
  for (;;) {
    const cpu = cpuSampler(inst);
    cpu.start();
    await sleep(3000);
    other = cpu.stop()["other processes"] ?? 0;
    if (other <= threshold) break;
    if (Date.now() - started >= maxWaitMs) {
      log(
        `${label}: other processes still use ${other}% CPU after ${Math.round((Date.now() - started) / 1000)} s; running anyway`,
      );
      break;
    }
    if (Date.now() - lastLog > 30_000) {
      lastLog = Date.now();
      log(`${label}: other processes use ${other}% CPU (threshold ${threshold}%), waiting for a quieter machine...`);
    }
  }
  return other;
}

/**
 * One measured phase: waits for a quiet machine (awaitQuiet), then runs `body` under the CPU
 * sampler and, with --profile, the main-thread sampler; returns what each of them saw.
 */
export async function measuredPhase<T>(
  inst: Instance,
  args: Record<string, string | boolean>,
  label: string,
  body: () => Promise<T>,
) {
  const quietBefore = await awaitQuiet(inst, args, label);
  const cpu = cpuSampler(inst);
  const prof = args.profile ? startProfile(inst, 900_000) : null;
  cpu.start();
  const result = await body();
  const cpuUse = cpu.stop();
  const profile = prof ? await prof.stop() : null;
  return { result, quietBefore, cpuUse, profile };
}

/** Switches auto trading through the app's own API (admin): off = signals stored as skipped, no orders. */
export async function setAutoTrading(inst: Instance, enabled: boolean): Promise<void> {
  const url = `${inst.baseUrl}/api/trading-config`;
  assertLoopback(url);
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: inst.cookie },
    body: JSON.stringify({ autoTradingEnabled: enabled }),
  });
  const body = (await res.json()) as { config?: { autoTradingEnabled?: boolean }; error?: string };
  if (res.status !== 200 || body.config?.autoTradingEnabled !== enabled) {
    throw new Error(`POST /api/trading-config answered ${res.status}: ${JSON.stringify(body)}`);
  }
}

/** Stops the benchmark if the app went away under it (its figures would be meaningless). */
export function assertAlive(inst: Instance, where: string) {
  if (inst.alive()) return;
  throw new Error(
    `the app stopped during ${where} (start.ts exited; something else may have signalled it). Log tail:\n${inst.log().slice(-2000)}`,
  );
}

/**
 * Warm-up before anything is measured (--warmup S, default 5): webhooks at 50/s so the
 * JIT has compiled the web and worker paths, then wait for the worker to drain. Its alert
 * ids start with "w-" and are excluded from every figure.
 */
export async function warmup(inst: Instance, args: Record<string, string | boolean>): Promise<void> {
  const seconds = numArg(args, "warmup", 5);
  if (seconds === 0) return;
  const tag = runTag();
  const run = await pacedWebhooks(inst, `w-${tag}-`, 50, Math.round(50 * seconds), seconds * 1000 + 5000);
  const drain = await waitForDrain(inst, 60_000, "warm-up");
  log(
    `warm-up: ${run.results.length} webhooks at 50/s, ${run.results.filter((r) => r.status !== 200).length} errors, drained in ${drain.ms ?? "-"} ms`,
  );
}

/** Waits (up to 60 s) until GET /api/health answers 200, or `gaveUp()` says to stop waiting. */
export function waitForHealth(baseUrl: string, gaveUp: () => boolean = () => false): Promise<boolean> {
  return waitUntil(
    async () => {
      if (gaveUp()) return true;
      try {
        const res = await fetch(`${baseUrl}/api/health`, { signal: AbortSignal.timeout(2000) });
        await res.arrayBuffer();
        return res.status === 200;
      } catch {
        return false;
      }
    },
    60_000,
    250,
  );
}
