// Process configuration: one Zod schema over process.env, checked at start by the web
// server, the worker and the scripts. A bad value stops the process with a message that
// names the variable (never its value: some of them are secrets).
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

const booleanString = z
  .enum(["true", "false", "1", "0", "yes", "no"], { error: "must be true or false" })
  .transform((v) => v === "true" || v === "1" || v === "yes");

export const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number({ error: "must be a port number" }).int().min(1).max(65535).default(5000),
  HOST: z.string().min(1).default("0.0.0.0"),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z
    .string()
    .refine((v) => v === "" || v.startsWith("mysql://") || v.startsWith("sqlite:"), {
      message: "must start with mysql:// (or sqlite: for a SQLite file)",
    })
    .optional(),
  APP_SECRET: z.string().min(32, { message: "must be at least 32 characters" }).optional(),
  COINBASE_API_KEY: z.string().optional(),
  COINBASE_API_SECRET: z.string().optional(),
  COINBASE_SANDBOX: booleanString.default(true),
  /** Base URL of every Advanced Trade call (tests point it at a fake Coinbase). */
  COINBASE_API_URL: z.url({ message: "must be an http(s) URL" }).optional(),
  /** Base URL of every Coinbase Exchange API call (profiles, reports). */
  COINBASE_EXCHANGE_API_URL: z.url({ message: "must be an http(s) URL" }).optional(),
  TRUST_PROXY: booleanString.default(false),
  // The address users and TradingView reach the app at (https://trade.example.com): invite
  // links and the webhook URL are built from it, and its host is allowed (docs/security.md).
  PUBLIC_URL: z
    .url({ message: "must be an http(s) URL" })
    .refine((v) => /^https?:\/\//i.test(v), { message: "must be an http(s) URL" })
    .transform((v) => v.replace(/\/+$/, ""))
    .optional(),
  // More host names the app answers besides PUBLIC_URL's (comma separated), against DNS rebinding.
  ALLOWED_HOSTS: z.string().optional(),
  // Only these senders may post to the webhook: "tradingview" (its published addresses) and/or addresses, comma separated.
  WEBHOOK_ALLOWLIST: z.string().optional(),
  /** Live events older than this are pruned by the worker (the feed replays at most 500). */
  EVENTS_RETENTION_HOURS: z.coerce.number({ error: "must be a number of hours" }).positive().default(24),
  /** Finished jobs older than this are pruned by the worker. */
  RECONCILE_INTERVAL_SECONDS: z.coerce.number({ error: "must be a number of seconds" }).min(2).max(3600).default(30),
  /** A price older than this never triggers a protection order (issue 15, app/core/price-source.ts). */
  PRICE_MAX_AGE_SECONDS: z.coerce.number({ error: "must be a number of seconds" }).min(2).max(600).default(15),
  /** Paper funding (decision 024): rate per interval on each open simulator position's notional at the mark; longs pay shorts when positive, 0 disables. */
  SIM_FUNDING_RATE: z
    .string()
    .regex(/^-?(\d+(\.\d*)?|\.\d+)$/, { message: "must be a decimal rate such as 0.0001" })
    .refine((v) => Math.abs(Number(v)) <= 0.01, { message: "must be between -0.01 and 0.01" })
    .default("0.0001"),
  /** Paper funding interval (boundaries on the epoch: 3600 = every hour on the hour). */
  SIM_FUNDING_INTERVAL_SECONDS: z.coerce
    .number({ error: "must be a number of seconds" })
    .int()
    .min(1)
    .max(86400)
    .default(3600),
  JOBS_RETENTION_DAYS: z.coerce.number({ error: "must be a number of days" }).positive().default(7),
  /** 1-minute price candles (charts, Market Data's 24 h change) older than this are pruned; open positions keep theirs (decision 032). */
  CANDLES_RETENTION_DAYS: z.coerce.number({ error: "must be a number of days" }).positive().max(3650).default(30),
  WORKER_ID: z.string().optional(),
  WORKER_WAKE_HOST: z.string().optional(),
  /** How many web server processes `npm start` runs on the one port (SO_REUSEPORT; docs/operations.md). */
  WEB_PROCESSES: z.coerce.number({ error: "must be a whole number from 1 to 32" }).int().min(1).max(32).default(1),
});

export type Env = z.infer<typeof EnvSchema>;

export type AppConfig = Env & {
  appSecret: string;
  databaseUrl: string;
  dialect: "sqlite" | "mysql";
};

export class EnvError extends Error {}

/** Parse and validate the environment; throws EnvError naming each bad variable. */
export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const result = EnvSchema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new EnvError(`Invalid environment configuration:\n${lines.join("\n")}`);
  }
  return result.data;
}

/** APP_SECRET from the environment, else from DATA_DIR/app-secret (created on first start). */
export function resolveAppSecret(env: Env): string {
  if (env.APP_SECRET) return env.APP_SECRET;
  const dir = path.resolve(env.DATA_DIR);
  const file = path.join(dir, "app-secret");
  if (existsSync(file)) {
    const stored = readFileSync(file, "utf8").trim();
    if (stored.length >= 32) return stored;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    chmodSync(dir, 0o700); // the data directory holds the secret and the database: owner-only
  } catch {
    // not ours to change
  }
  const secret = randomBytes(32).toString("hex");
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

export function databaseUrlFor(env: Env): string {
  if (env.DATABASE_URL) return env.DATABASE_URL;
  return `sqlite:${path.join(path.resolve(env.DATA_DIR), "app.db")}`;
}

let cached: AppConfig | undefined;

/** Load the whole configuration once per process. */
export function loadConfig(source: Record<string, string | undefined> = process.env): AppConfig {
  if (cached && source === process.env) return cached;
  const env = parseEnv(source);
  const databaseUrl = databaseUrlFor(env);
  const config: AppConfig = {
    ...env,
    appSecret: resolveAppSecret(env),
    databaseUrl,
    dialect: databaseUrl.startsWith("mysql://") ? "mysql" : "sqlite",
  };
  if (source === process.env) cached = config;
  return config;
}

/** Same as loadConfig, but prints the error and exits: for process entry points. */
export function loadConfigOrExit(): AppConfig {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}
