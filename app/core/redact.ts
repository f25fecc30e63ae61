// Removes secrets from anything that is about to be logged or stored as log data.
const SECRET_KEY = /(secret|password|passphrase|token|api[_-]?key|private[_-]?key|authorization|cookie|jwt)/i;

export const REDACTED = "[redacted]";

export function redact<T>(value: T, depth = 0): T {
  if (depth > 8 || value == null) return value;
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
