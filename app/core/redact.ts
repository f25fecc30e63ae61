// Removes secrets from anything that is about to be logged or stored as log data.
const SECRET_KEY = /(secret|password|passphrase|token|api[_-]?key|private[_-]?key|authorization|cookie|jwt)/i;

export const REDACTED = "[redacted]";

const MAX_DEPTH = 8;

export function redact<T>(value: T, depth = 0): T {
  if (value == null) return value;
  if (value instanceof Date) return value.toISOString() as T;
  if (value instanceof Error) return { name: value.name, message: value.message } as T;
  // Deeper than we walk: drop it rather than risk passing a secret through.
  if (depth > MAX_DEPTH) return (typeof value === "object" ? "[truncated]" : value) as T;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1)) as T;
  if (typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] = SECRET_KEY.test(k) ? REDACTED : redact(v, depth + 1);
    }
    return out as T;
  }
  return value;
}
