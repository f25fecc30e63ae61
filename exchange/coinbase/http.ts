// The HTTP machinery both Coinbase clients share: an outgoing rate limiter, timeouts
// (docs/spec/figures.md#defaults-and-limits: 20 s for reads, 30 s for mutations), retries where they are safe, and the
// translation of every failure into the classes of ../errors.ts with a clear message.
//
// Retry policy:
// - 429: the request was not processed, so any method is retried (at most `maxAttempts`),
//   after Retry-After or x-ratelimit-reset when given, else after a jittered backoff.
// - 5xx, timeouts, connection errors: retried for reads (GET) only. A mutation whose outcome
//   is unknown throws TemporaryError/NetworkError; the caller reconciles (for orders: by
//   client order id) before sending anything again.
// Nothing here ever puts a header value, key or secret into an error message.
import {
  AuthError,
  ExchangeError,
  InvalidOrderError,
  NetworkError,
  NotFoundError,
  RateLimitError,
  SizeRefusalError,
  TemporaryError,
} from "#app/core/exchange/errors.ts";
import { type CoinbaseRefusalCodes, coinbaseSizeCode } from "./refusals.ts";

export type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export const READ_TIMEOUT_MS = 20_000;
export const WRITE_TIMEOUT_MS = 30_000;
const MAX_RETRY_WAIT_MS = 30_000;

// ---------------------------------------------------------------------------------------
// Rate limiter: requests spaced evenly at `perSecond` (callers pass 80 % of the documented
// limit), shared by every client instance that uses the same bucket name in this process.

export class RateLimiter {
  private next = 0;
  private readonly spacingMs: number;
  constructor(readonly perSecond: number) {
    this.spacingMs = 1000 / perSecond;
  }
  /** Resolves when the caller may send; reserves the slot. */
  async take(): Promise<void> {
    const now = Date.now();
    const slot = Math.max(now, this.next);
    this.next = slot + this.spacingMs;
    if (slot > now) await new Promise((resolve) => setTimeout(resolve, slot - now));
  }
  /** After a 429: nobody sends before `until`. */
  pauseUntil(until: number) {
    this.next = Math.max(this.next, until);
  }
}

const limiters = new Map<string, RateLimiter>();
/** One limiter per bucket (e.g. "at-private:api.coinbase.com") per process. */
export function limiterFor(bucket: string, perSecond: number): RateLimiter {
  let limiter = limiters.get(bucket);
  if (!limiter) {
    limiter = new RateLimiter(perSecond);
    limiters.set(bucket, limiter);
  }
  return limiter;
}

// ---------------------------------------------------------------------------------------
// Errors

/** What the API said, whatever shape its error body has. */
export interface WireError {
  error?: string;
  message?: string;
  error_details?: string;
  errors?: { id?: string; message?: string }[];
}

export function describeWireError(body: unknown): {
  code: string | null;
  message: string | null;
  details: string | null;
} {
  if (!body || typeof body !== "object") return { code: null, message: null, details: null };
  const b = body as WireError;
  const first = Array.isArray(b.errors) ? b.errors[0] : undefined;
  return {
    code: (typeof b.error === "string" && b.error) || first?.id || null,
    message: (typeof b.message === "string" && b.message) || first?.message || null,
    details: typeof b.error_details === "string" && b.error_details ? b.error_details : null,
  };
}

/** Milliseconds to wait after a 429: Retry-After (seconds or a date), else x-ratelimit-reset (epoch s or s). */
export function retryAfterMs(headers: Headers, now = Date.now()): number | null {
  const retryAfter = headers.get("retry-after");
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, Math.min(seconds * 1000, MAX_RETRY_WAIT_MS));
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return Math.max(0, Math.min(date - now, MAX_RETRY_WAIT_MS));
  }
  const reset = headers.get("x-ratelimit-reset");
  if (reset) {
    const value = Number(reset);
    if (Number.isFinite(value)) {
      const ms = value > 1e9 ? value * 1000 - now : value * 1000; // an epoch, or seconds from now
      return Math.max(0, Math.min(ms, MAX_RETRY_WAIT_MS));
    }
  }
  return null;
}

export interface ErrorContext {
  /** "Coinbase" or "Coinbase Exchange" */
  service: string;
  method: string;
  path: string;
  status: number;
  body: unknown;
  headers: Headers;
}

/** The error an HTTP failure becomes. */
export function httpError(ctx: ErrorContext): ExchangeError {
  const { code, message, details } = describeWireError(ctx.body);
  const said = [code, message, details].filter((part, i, all) => part && all.indexOf(part) === i).join(": ");
  const what = `${ctx.method} ${ctx.path}`;
  switch (true) {
    case ctx.status === 401:
      return new AuthError(
        `${ctx.service} rejected the API key (401 Unauthorized): check the key name, the secret${ctx.service === "Coinbase Exchange" ? ", the passphrase" : ""} and that the key is active`,
      );
    case ctx.status === 403:
      if (/missing required scopes/i.test(`${message} ${details}`)) {
        return new AuthError(
          `${ctx.service} API key lacks a required permission (403 Missing required scopes) for ${what}: enable View and Trade on the key`,
        );
      }
      return new AuthError(`${ctx.service} refused access (403)${said ? `: ${said}` : ""} for ${what}`);
    case ctx.status === 404:
      return new NotFoundError(`${ctx.service} found nothing at ${what} (404)${said ? `: ${said}` : ""}`);
    case ctx.status === 429: {
      const wait = retryAfterMs(ctx.headers);
      return new RateLimitError(
        `${ctx.service} rate limit reached (429) on ${what}${wait !== null ? `; retry in ${Math.ceil(wait / 1000)} s` : ""}`,
        wait,
      );
    }
    case ctx.status >= 500:
      return new TemporaryError(
        `${ctx.service} is unavailable (HTTP ${ctx.status}) for ${what}${said ? `: ${said}` : ""}`,
      );
    case /insufficient/i.test(said):
      return new InvalidOrderError(`${ctx.service} refused ${what}: insufficient funds (${said})`);
    case ctx.body !== null &&
      typeof ctx.body === "object" &&
      coinbaseSizeCode(ctx.body as CoinbaseRefusalCodes) !== null:
      // A 4xx whose code says "size" (one table, never the message: issue 21, defect 7).
      return new SizeRefusalError(
        `${ctx.service} refused ${what} for its size (HTTP ${ctx.status}): ${said}`,
        coinbaseSizeCode(ctx.body as CoinbaseRefusalCodes)!,
      );
    default:
      return new InvalidOrderError(`${ctx.service} refused ${what} (HTTP ${ctx.status})${said ? `: ${said}` : ""}`);
  }
}

// ---------------------------------------------------------------------------------------
// One request

export interface SendOptions {
  service: string;
  fetchImpl: FetchFn;
  limiter: RateLimiter;
  method: string;
  url: URL;
  /** The path shown in messages (no host, no query). */
  path: string;
  body?: string;
  /** Fresh headers per attempt (a JWT or a signature is bound to the time). */
  headers: () => Promise<Record<string, string>>;
  timeoutMs?: number;
  maxAttempts?: number;
  /** Backoff base for retries without a server hint (tests make it small). */
  backoffMs?: number;
  /** Called after every attempt: whether the exchange answered usefully. */
  onResult?: (result: CallResult) => void;
}

/** The transport settings both Coinbase clients take (tests shorten the waits). */
export interface ClientTransportOptions {
  fetchImpl?: FetchFn;
  /** A GET's timeout. */
  readTimeoutMs?: number;
  /** The other methods' timeout. */
  writeTimeoutMs?: number;
  maxAttempts?: number;
  backoffMs?: number;
  onResult?: (result: CallResult) => void;
}

export interface CallResult {
  ok: boolean;
  at: number;
  method: string;
  path: string;
  status: number | null;
  message: string;
}

const duration = (ms: number) => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const jitter = (base: number, attempt: number) => Math.round(base * 2 ** (attempt - 1) * (0.5 + Math.random()));

export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** Sends with limiter, timeout and the retry policy; resolves with a 2xx answer, else throws. */
export async function send(options: SendOptions): Promise<HttpAnswer> {
  const isRead = options.method === "GET";
  const timeoutMs = options.timeoutMs ?? (isRead ? READ_TIMEOUT_MS : WRITE_TIMEOUT_MS);
  const maxAttempts = options.maxAttempts ?? 3;
  const backoffMs = options.backoffMs ?? 500;
  const report = (ok: boolean, status: number | null, message: string) =>
    options.onResult?.({ ok, at: Date.now(), method: options.method, path: options.path, status, message });

  for (let attempt = 1; ; attempt++) {
    await options.limiter.take();
    let error: ExchangeError;
    let waitMs: number | null = null;
    try {
      const answer = await attemptOnce(options, timeoutMs);
      if (answer.status >= 200 && answer.status < 300) {
        report(true, answer.status, "OK");
        return answer;
      }
      error = httpError({
        service: options.service,
        method: options.method,
        path: options.path,
        status: answer.status,
        body: answer.body,
        headers: answer.headers,
      });
      if (error instanceof RateLimitError) {
        waitMs = error.retryAfterMs;
        if (waitMs !== null) options.limiter.pauseUntil(Date.now() + waitMs);
      }
      // A 4xx other than 429 is an answer: the exchange works, the request was wrong.
      report(
        answer.status < 500 && answer.status !== 401 && answer.status !== 403 && answer.status !== 429,
        answer.status,
        error.message,
      );
    } catch (thrown) {
      error =
        thrown instanceof ExchangeError
          ? thrown
          : new NetworkError(
              `${options.service} could not be reached for ${options.method} ${options.path}: ${(thrown as Error).message}`,
            );
      report(false, null, error.message);
    }
    const retryable = error instanceof RateLimitError || (isRead && error instanceof TemporaryError);
    if (!retryable || attempt >= maxAttempts) throw error;
    await sleep(waitMs ?? jitter(backoffMs, attempt));
  }
}

async function attemptOnce(options: SendOptions, timeoutMs: number): Promise<HttpAnswer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const headers = await options.headers();
    let response: Response;
    try {
      response = await options.fetchImpl(options.url.toString(), {
        method: options.method,
        headers,
        body: options.body,
        signal: controller.signal,
      });
    } catch (error) {
      if (controller.signal.aborted) {
        throw new NetworkError(
          `${options.service} did not answer ${options.method} ${options.path} within ${duration(timeoutMs)}${options.method === "GET" ? "" : ": the outcome is unknown"}`,
        );
      }
      throw new NetworkError(
        `${options.service} could not be reached for ${options.method} ${options.path}: ${(error as Error).message}`,
      );
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      if (controller.signal.aborted) {
        throw new NetworkError(
          `${options.service} did not finish answering ${options.method} ${options.path} within ${duration(timeoutMs)}`,
        );
      }
      throw new NetworkError(
        `${options.service} answer to ${options.method} ${options.path} was cut off: ${(error as Error).message}`,
      );
    }
    let body: unknown = null;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = response.ok ? text : { message: text.slice(0, 200) };
      }
    }
    return { status: response.status, headers: response.headers, body };
  } finally {
    clearTimeout(timer);
  }
}

/** Appends query parameters; arrays become repeated parameters (Coinbase's convention). */
export function withQuery(
  url: URL,
  query?: Record<string, string | number | boolean | string[] | undefined | null>,
): URL {
  if (!query) return url;
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const v of value) url.searchParams.append(key, v);
    else url.searchParams.set(key, String(value));
  }
  return url;
}
