// The "source" the login throttle counts against (docs/security.md, "Login throttle";
// docs/decisions/040-login-throttle-v3.md). One IPv6 customer gets a whole /64 (often more) and
// can rotate through its 2^64 addresses at will, so an IPv6 address counts as its /64; an
// IPv4-mapped IPv6 address ("::ffff:192.0.2.1", as a dual-stack socket reports IPv4 clients)
// counts as the IPv4 address it carries. IPv4 addresses count one by one.
import { isIPv4, isIPv6 } from "node:net";

/** The eight 16-bit groups of an IPv6 address (zone and brackets already removed), or null. */
function ipv6Groups(address: string): number[] | null {
  let text = address;
  const tail: number[] = [];
  // An embedded IPv4 tail ("::ffff:192.0.2.1") is two groups.
  const v4 = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    if (!isIPv4(v4[2]!)) return null;
    const [a, b, c, d] = v4[2]!.split(".").map(Number) as [number, number, number, number];
    tail.push((a << 8) | b, (c << 8) | d);
    text = v4[1]!.endsWith("::") ? v4[1]! : v4[1]!.slice(0, -1);
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string) =>
    part === "" ? [] : part.split(":").map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? Number.parseInt(g, 16) : Number.NaN));
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  const known = head.length + rest.length + tail.length;
  if ([...head, ...rest].some(Number.isNaN)) return null;
  if (halves.length === 1 ? known !== 8 : known > 7) return null;
  return [...head, ...Array(8 - known).fill(0), ...rest, ...tail];
}

/**
 * The throttle key part for a client address: IPv4 as is, IPv4-mapped IPv6 as its IPv4,
 * any other IPv6 as its /64 ("2001:db8:1:2::/64"). Anything else (no address, a name) as given.
 */
export function throttleSource(ip: string | null | undefined): string | null {
  if (!ip) return null;
  const address = ip
    .trim()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/%.*$/, "")
    .toLowerCase();
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return ip;
  const groups = ipv6Groups(address);
  if (!groups) return ip;
  // ::ffff:a.b.c.d (IPv4-mapped).
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join(".");
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}
