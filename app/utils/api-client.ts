// Browser calls to the JSON API (docs/spec/api.md, api.md#errors, figures.md#defaults-and-limits): cookies included, a JSON content type
// only with a body, timeouts of 20 s (queries) and 30 s (mutations), and errors whose text
// is "{status}: {body text or status text}".
export const QUERY_TIMEOUT_MS = 20_000;
export const MUTATION_TIMEOUT_MS = 30_000;
export const QUERY_TIMEOUT_MESSAGE = "Query timeout after 20 seconds - check network connection";
export const MUTATION_TIMEOUT_MESSAGE = "Request timeout after 30 seconds - server may be overloaded";

export class ApiError extends Error {
  constructor(
    message: string,
    public status: number,
    public body: string,
  ) {
    super(message);
  }

  /** The server's `error` field when the body is JSON, else the whole message. */
  get serverMessage(): string {
    try {
      const parsed = JSON.parse(this.body) as { error?: unknown; message?: unknown };
      if (typeof parsed.error === "string") return parsed.error;
      if (typeof parsed.message === "string") return parsed.message;
    } catch {
      // not JSON
    }
    return this.message;
  }
}

async function call(
  method: string,
  url: string,
  body: unknown,
  timeoutMs: number,
  timeoutMessage: string,
): Promise<Response> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetch(url, {
      method,
      credentials: "include",
      headers: body === undefined ? undefined : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: controller.signal,
    });
    if (!response.ok) {
      const text = await response.text();
      throw new ApiError(`${response.status}: ${text || response.statusText}`, response.status, text);
    }
    return response;
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw new ApiError(timeoutMessage, 0, "");
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

export async function getJson<T>(url: string): Promise<T> {
  const response = await call("GET", url, undefined, QUERY_TIMEOUT_MS, QUERY_TIMEOUT_MESSAGE);
  return (await response.json()) as T;
}

export async function apiRequest<T = unknown>(
  method: "POST" | "PUT" | "DELETE",
  url: string,
  body?: unknown,
): Promise<T> {
  const response = await call(method, url, body, MUTATION_TIMEOUT_MS, MUTATION_TIMEOUT_MESSAGE);
  const text = await response.text();
  return (text ? JSON.parse(text) : {}) as T;
}

/** The message to show for a failed call: the server's words when it gave some. */
export function errorText(error: unknown, fallback: string): string {
  if (error instanceof ApiError) return error.serverMessage || fallback;
  if (error instanceof Error && error.message) return error.message;
  return fallback;
}
