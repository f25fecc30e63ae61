import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { EnvError, databaseUrlFor, loadConfig, parseEnv, resolveAppSecret } from "#app/core/env.ts";

/** The EnvError parseEnv throws for `source`, or a failure when it does not throw. */
function envError(source: Record<string, string | undefined>): EnvError {
  try {
    parseEnv(source);
  } catch (error) {
    expect(error).toBeInstanceOf(EnvError);
    expect(error).toBeInstanceOf(Error);
    return error as EnvError;
  }
  throw new Error("expected parseEnv to throw");
}

describe("parseEnv", () => {
  test("defaults", () => {
    expect(parseEnv({})).toEqual({
      NODE_ENV: "development",
      PORT: 5000,
      HOST: "0.0.0.0",
      DATA_DIR: "./data",
      COINBASE_SANDBOX: true,
      TRUST_PROXY: false,
      WEB_PROCESSES: 1,
      EVENTS_RETENTION_HOURS: 24,
      RECONCILE_INTERVAL_SECONDS: 30,
      PRICE_MAX_AGE_SECONDS: 15,
      SIM_FUNDING_RATE: "0.0001",
      SIM_FUNDING_INTERVAL_SECONDS: 3600,
      JOBS_RETENTION_DAYS: 7,
      CANDLES_RETENTION_DAYS: 30,
    });
  });

  test("SIM_FUNDING_RATE: a decimal within ±0.01; 0 disables", () => {
    expect(parseEnv({ SIM_FUNDING_RATE: "0" }).SIM_FUNDING_RATE).toBe("0");
    expect(parseEnv({ SIM_FUNDING_RATE: "-0.0003", SIM_FUNDING_INTERVAL_SECONDS: "60" })).toMatchObject({
      SIM_FUNDING_RATE: "-0.0003",
      SIM_FUNDING_INTERVAL_SECONDS: 60,
    });
    expect(envError({ SIM_FUNDING_RATE: "1e-4" }).message).toMatch(/\bSIM_FUNDING_RATE: must be a decimal rate/);
    expect(envError({ SIM_FUNDING_RATE: "0.5" }).message).toMatch(/\bSIM_FUNDING_RATE: must be between -0.01 and 0.01/);
    expect(envError({ SIM_FUNDING_INTERVAL_SECONDS: "0" }).message).toMatch(/\bSIM_FUNDING_INTERVAL_SECONDS\b/);
  });

  test.each(["0", "33", "1.5", "two"])("WEB_PROCESSES=%s throws EnvError naming it", (n) => {
    expect(envError({ WEB_PROCESSES: n }).message).toMatch(/\bWEB_PROCESSES: must be a whole number from 1 to 32/);
  });

  test("empty strings count as unset", () => {
    const env = parseEnv({ PORT: "", DATA_DIR: "", DATABASE_URL: "", COINBASE_SANDBOX: "", APP_SECRET: "" });
    expect(env.PORT).toBe(5000);
    expect(env.DATA_DIR).toBe("./data");
    expect(env.COINBASE_SANDBOX).toBe(true);
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.APP_SECRET).toBeUndefined();
  });

  test("reads and converts given values", () => {
    const env = parseEnv({
      NODE_ENV: "production",
      PORT: "8080",
      DATA_DIR: "/var/lib/app",
      DATABASE_URL: "mysql://app:pw@db:3306/app",
      COINBASE_SANDBOX: "false",
      TRUST_PROXY: "yes",
      WORKER_ID: "worker-7",
      WEB_PROCESSES: "2",
    });
    expect(env).toMatchObject({
      NODE_ENV: "production",
      PORT: 8080,
      DATA_DIR: "/var/lib/app",
      DATABASE_URL: "mysql://app:pw@db:3306/app",
      COINBASE_SANDBOX: false,
      TRUST_PROXY: true,
      WORKER_ID: "worker-7",
      WEB_PROCESSES: 2,
    });
    expect(parseEnv({ DATABASE_URL: "sqlite:./data/other.db" }).DATABASE_URL).toBe("sqlite:./data/other.db");
  });

  test.each([
    ["true", true],
    ["1", true],
    ["yes", true],
    ["false", false],
    ["0", false],
    ["no", false],
  ])("COINBASE_SANDBOX=%s is %s", (raw, expected) => {
    expect(parseEnv({ COINBASE_SANDBOX: raw }).COINBASE_SANDBOX).toBe(expected);
  });

  test.each(["abc", "0", "65536", "70000", "80.5", "-1"])("PORT=%s throws EnvError naming PORT", (port) => {
    const error = envError({ PORT: port });
    expect(error.message).toMatch(/^Invalid environment configuration:/);
    expect(error.message).toMatch(/\bPORT: /);
  });

  test("a bad DATABASE_URL throws EnvError naming it without echoing the URL or its password", () => {
    const url = "postgres://admin:S3cr3tPassw0rd@db.example.com:5432/app";
    const error = envError({ DATABASE_URL: url, COINBASE_API_SECRET: "cb-api-secret-value" });
    expect(error.message).toContain("DATABASE_URL: must start with mysql:// (or sqlite: for a SQLite file)");
    expect(error.message).not.toContain("S3cr3tPassw0rd");
    expect(error.message).not.toContain("postgres://");
    expect(error.message).not.toContain("db.example.com");
    expect(error.message).not.toContain("cb-api-secret-value");
  });

  test("a short APP_SECRET is refused without being echoed", () => {
    const error = envError({ APP_SECRET: "short-but-secret" });
    expect(error.message).toContain("APP_SECRET: must be at least 32 characters");
    expect(error.message).not.toContain("short-but-secret");
  });

  test("every bad variable is named in one message", () => {
    const error = envError({ PORT: "nope", COINBASE_SANDBOX: "maybe", NODE_ENV: "staging", DATABASE_URL: "redis://x" });
    for (const name of ["PORT", "COINBASE_SANDBOX", "NODE_ENV", "DATABASE_URL"])
      expect(error.message).toContain(`${name}: `);
    expect(error.message).toContain("COINBASE_SANDBOX: must be true or false");
    expect(error.message).not.toContain("maybe");
    expect(error.message).not.toContain("redis://x");
  });
});

describe("resolveAppSecret, databaseUrlFor and loadConfig", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), "env-test-"));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  test("APP_SECRET from the environment wins, and no file is written", () => {
    const secret = "s".repeat(40);
    const dataDir = path.join(root, "data");
    expect(resolveAppSecret(parseEnv({ APP_SECRET: secret, DATA_DIR: dataDir }))).toBe(secret);
    expect(existsSync(path.join(dataDir, "app-secret"))).toBe(false);
  });

  test("without APP_SECRET, DATA_DIR/app-secret is created once (0600) and reused", () => {
    const dataDir = path.join(root, "nested", "data");
    const env = parseEnv({ DATA_DIR: dataDir });
    const file = path.join(dataDir, "app-secret");

    const first = resolveAppSecret(env);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(file, "utf8").trim()).toBe(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const written = statSync(file).mtimeMs;
    expect(resolveAppSecret(env)).toBe(first);
    expect(resolveAppSecret(parseEnv({ DATA_DIR: dataDir }))).toBe(first);
    expect(statSync(file).mtimeMs).toBe(written);
  });

  test("an existing secret file is used as is (trimmed); one too short is replaced", () => {
    const dataDir = path.join(root, "data");
    mkdirSync(dataDir, { recursive: true });
    const file = path.join(dataDir, "app-secret");
    const env = parseEnv({ DATA_DIR: dataDir });

    writeFileSync(file, `  ${"k".repeat(36)}  \n`);
    expect(resolveAppSecret(env)).toBe("k".repeat(36));

    writeFileSync(file, "too-short\n");
    const replaced = resolveAppSecret(env);
    expect(replaced).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(file, "utf8").trim()).toBe(replaced);
  });

  test("databaseUrlFor uses DATABASE_URL, else an absolute SQLite file in DATA_DIR", () => {
    expect(databaseUrlFor(parseEnv({ DATABASE_URL: "mysql://root@127.0.0.1:3306/app" }))).toBe(
      "mysql://root@127.0.0.1:3306/app",
    );
    expect(databaseUrlFor(parseEnv({ DATA_DIR: root }))).toBe(`sqlite:${path.join(root, "app.db")}`);
    expect(databaseUrlFor(parseEnv({}))).toBe(`sqlite:${path.resolve("./data", "app.db")}`);
  });

  test("loadConfig combines the environment, the secret and the dialect", () => {
    const sqlite = loadConfig({ DATA_DIR: root });
    expect(sqlite).toMatchObject({ PORT: 5000, dialect: "sqlite", databaseUrl: `sqlite:${path.join(root, "app.db")}` });
    expect(sqlite.appSecret).toBe(readFileSync(path.join(root, "app-secret"), "utf8").trim());

    const mysql = loadConfig({ DATA_DIR: root, DATABASE_URL: "mysql://u:p@h/db", APP_SECRET: "a".repeat(32) });
    expect(mysql).toMatchObject({ dialect: "mysql", databaseUrl: "mysql://u:p@h/db", appSecret: "a".repeat(32) });

    expect(() => loadConfig({ PORT: "x" })).toThrow(EnvError);
  });
});
