// Helpers for the JSON resource routes under /api.
import { type AppLoadContext, type LoaderFunctionArgs, json } from "@remix-run/node";

/** Answers that must never be cached (server.ts also sets it on any answer without a Cache-Control). */
export const NO_STORE = { "Cache-Control": "no-store" };

export function jsonError(status: number, error: string, extra: Record<string, unknown> = {}) {
  return json({ error, ...extra }, { status, headers: NO_STORE });
}

/** Throws a 405 unless the request uses one of the methods. */
export function requireMethod(request: Request, ...methods: string[]) {
  if (!methods.includes(request.method.toUpperCase())) {
    throw jsonError(405, `Method ${request.method} not allowed`);
  }
}

export class BodyTooLargeError extends Error {}

/**
 * Reads a request body as text with a size limit (in bytes), without trusting
 * Content-Length alone (a chunked body is cut off at the limit, not buffered whole).
 * Throws BodyTooLargeError when the body is too large.
 */
export async function readLimitedText(request: Request, limitBytes = 64 * 1024): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limitBytes) throw new BodyTooLargeError();
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limitBytes) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLargeError();
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
}

/** readLimitedText for Remix routes: too large throws a 413 JSON response. */
export async function readBodyText(request: Request, limitBytes = 64 * 1024): Promise<string> {
  try {
    return await readLimitedText(request, limitBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw jsonError(413, "Request body too large");
    throw error;
  }
}

/** Parses a JSON object body (any content type). Throws a 400 JSON response otherwise. */
export async function readJsonObject(request: Request, limitBytes = 64 * 1024): Promise<Record<string, unknown>> {
  const text = await readBodyText(request, limitBytes);
  if (!text.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw jsonError(400, "Request body must be valid JSON");
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw jsonError(400, "Request body must be a JSON object");
  }
  return parsed as Record<string, unknown>;
}

/**
 * A request body as an object, whether it came as JSON or as a form post
 * (application/x-www-form-urlencoded or multipart): contracts that take "JSON and form posts
 * alike" read it with this. Form values are strings; files are ignored.
 */
export async function readBodyObject(request: Request, limitBytes = 64 * 1024): Promise<Record<string, unknown>> {
  const type = (request.headers.get("content-type") ?? "").toLowerCase();
  if (type.startsWith("application/x-www-form-urlencoded")) {
    return Object.fromEntries(new URLSearchParams(await readBodyText(request, limitBytes)));
  }
  if (type.startsWith("multipart/form-data")) {
    const declared = Number(request.headers.get("content-length") ?? "0");
    if (declared > limitBytes) throw jsonError(413, "Request body too large");
    let form: FormData;
    try {
      form = await request.formData();
    } catch {
      throw jsonError(400, "Request body must be a valid form");
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of form) if (typeof value === "string") out[key] = value;
    return out;
  }
  return readJsonObject(request, limitBytes);
}

/**
 * The app's public origin, for links handed out (webhook URL, invite links): PUBLIC_URL when
 * set, else the one the browser used (behind a trusted proxy: the forwarded host and protocol).
 */
export function publicOrigin(request: Request, context: AppLoadContext): string {
  if (context.config.PUBLIC_URL) return context.config.PUBLIC_URL;
  const url = new URL(request.url);
  if (context.config.TRUST_PROXY) {
    const host = request.headers.get("x-forwarded-host")?.split(",")[0]?.trim();
    const proto = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim();
    if (host) return `${proto === "https" ? "https" : url.protocol.replace(":", "")}://${host}`;
  }
  return url.origin;
}

/**
 * A whole-number query parameter clamped to [min, max]: fractional values are floored, and
 * missing, non-numeric or absurd ones give the fallback (a list limit of "1.5", "-3",
 * "1e308" or "abc" is never a 500).
 */
export function queryInt(params: URLSearchParams, name: string, fallback: number, min = 1, max = 1000): number {
  const raw = params.get(name);
  if (raw == null || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(value)));
}

/** The first message of a Zod error, with the field it concerns. */
export function firstIssue(issues: { path: PropertyKey[]; message: string }[]) {
  const issue = issues[0];
  return { field: issue ? issue.path.map(String).join(".") : undefined, message: issue?.message ?? "Invalid input" };
}

/**
 * The loader of an endpoint that takes no GET: 405, after `guard` (requireUser, requireAdmin)
 * so that a visitor the guard refuses gets its answer instead.
 */
export function getNotAllowedLoader(guard: (request: Request, context: AppLoadContext) => Promise<unknown>) {
  return async ({ request, context }: LoaderFunctionArgs) => {
    await guard(request, context);
    return jsonError(405, "Method GET not allowed");
  };
}

/** A service's outcome as the answer: { success: true, message }, or { success: false, error, title } with its status; never cached. */
export function outcomeJson(
  outcome: { success: true; message: string } | { success: false; title: string; error: string; status: number },
) {
  if (!outcome.success)
    return json(
      { success: false, error: outcome.error, title: outcome.title },
      { status: outcome.status, headers: { "Cache-Control": "no-store" } },
    );
  return json({ success: true, message: outcome.message }, { headers: { "Cache-Control": "no-store" } });
}

/** ?before=<id>&limit=<n> of a list paged by id (the audit trail, the delivery log); limit 50 when absent. */
export function cursorPageParams(url: URL): { before: number | null; limit: number } {
  const before = Number(url.searchParams.get("before"));
  const limit = Number(url.searchParams.get("limit"));
  return {
    before: Number.isInteger(before) && before > 0 ? before : null,
    limit: Number.isInteger(limit) && limit > 0 ? limit : 50,
  };
}
