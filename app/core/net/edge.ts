// Request-edge rules for a public server (issue 10): which Host names the app answers, which
// address a request came from behind a proxy, and a parsed Origin that never throws.
import { isIP } from "node:net";

/** The Origin header's host, or null when it is absent or "null"; undefined when malformed. */
export function originHost(origin: string | undefined | null): string | null | undefined {
  if (!origin || origin === "null") return null;
  try {
    const url = new URL(origin);
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
    return url.host || undefined;
  } catch {
    return undefined;
  }
}

/** "Host:port" → host, lower-cased, IPv6 brackets removed. */
export function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(1, h.indexOf("]") > 0 ? h.indexOf("]") : undefined);
  return h.replace(/:\d+$/, "");
}

/**
 * The Host names the app answers (against DNS rebinding: a page on attacker.example whose
 * name is made to point at 127.0.0.1 sends `Host: attacker.example`). With PUBLIC_URL or
 * ALLOWED_HOSTS set, exactly those names (and IP literals); without, IP literals, localhost
 * and single-label LAN names, so a fresh install works at http://localhost:5000 and by its
 * LAN address, and a dotted domain name must be configured.
 */
export function hostAllowed(host: string | undefined | null, allowed: readonly string[]): boolean {
  if (!host) return false;
  const name = hostName(host);
  if (!name) return false;
  if (isIP(name)) return true;
  if (allowed.length > 0) return allowed.includes(name);
  return name === "localhost" || name.endsWith(".localhost") || !name.includes(".");
}

/** The configured host names: PUBLIC_URL's host plus ALLOWED_HOSTS (comma separated). */
export function allowedHosts(config: { PUBLIC_URL?: string; ALLOWED_HOSTS?: string }): string[] {
  const names = (config.ALLOWED_HOSTS ?? "")
    .split(",")
    .map((h) => hostName(h))
    .filter(Boolean);
  if (config.PUBLIC_URL) names.push(hostName(new URL(config.PUBLIC_URL).host));
  return [...new Set(names)];
}

/** Loopback, private and link-local addresses: where a reverse proxy on the same host or network sits. */
export function isPrivateAddress(address: string): boolean {
  const a = address.replace(/^::ffff:/i, "");
  if (isIP(a) === 4) {
    const [p, q] = a.split(".").map(Number) as [number, number];
    if (p === 10 || p === 127) return true;
    if (p === 172 && q >= 16 && q <= 31) return true;
    if (p === 192 && q === 168) return true;
    if (p === 169 && q === 254) return true;
    return false;
  }
  if (isIP(a) === 6) {
    const l = a.toLowerCase();
    return l === "::1" || l.startsWith("fc") || l.startsWith("fd") || l.startsWith("fe80:");
  }
  return false;
}

/**
 * The client behind a trusted proxy: X-Forwarded-For read from the right, skipping the
 * proxies (private addresses); the left-most entries are whatever the client chose to send,
 * so they are never taken while an untrusted hop stands to their right. Invalid entries end
 * the walk. Null when there is nothing usable.
 */
export function forwardedClient(header: string | undefined | null): string | null {
  if (!header) return null;
  const hops = header
    .split(",")
    .map((h) => h.trim())
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!.replace(/^\[|\]$/g, "");
    if (!isIP(hop)) return null;
    if (!isPrivateAddress(hop) || i === 0) return hop;
  }
  return null;
}
