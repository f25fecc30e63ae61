// Where the app may connect on an admin's say-so (issue 23, item 6; docs/security.md,
// "Outgoing notifications"): a notification webhook or SMTP host must not reach the server's
// own loopback, the private network or a cloud metadata service unless the admin allowed
// private destinations. The host is resolved and every address it resolves to is checked,
// when the channel is saved and again before each delivery (DNS rebinding).
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

/** IPv4 ranges refused: [network, prefix length]. */
const PRIVATE_V4: [string, number][] = [
  ["0.0.0.0", 8], // "this network", 0.0.0.0 reaches loopback
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, 169.254.169.254 is the cloud metadata service
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
];

function v4ToInt(address: string): number {
  return address.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

function privateV4(address: string): boolean {
  const value = v4ToInt(address);
  return PRIVATE_V4.some(([network, bits]) => {
    const size = 2 ** (32 - bits);
    const start = v4ToInt(network);
    return value >= start && value < start + size;
  });
}

/** The 8 groups of an IPv6 address as numbers (an embedded IPv4 tail included). */
function v6Groups(address: string): number[] | null {
  let text = address
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/%.*$/, "");
  const v4Tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4Tail) {
    const n = v4ToInt(v4Tail[1]!);
    text = `${text.slice(0, -v4Tail[1]!.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const parse = (part: string) => (part ? part.split(":").map((g) => Number.parseInt(g, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? left.length !== 8 : missing < 0) return null;
  const groups = [...left, ...Array(tail === undefined ? 0 : missing).fill(0), ...right];
  return groups.some((g) => !Number.isFinite(g)) ? null : groups;
}

/** True for loopback, private, link-local, unique-local, metadata and unspecified addresses. */
export function isPrivateAddress(address: string): boolean {
  const version = isIP(address.replace(/^\[|\]$/g, "").replace(/%.*$/, ""));
  if (version === 4) return privateV4(address);
  if (version !== 6) return true; // not an address at all: refuse
  const g = v6Groups(address);
  if (!g) return true;
  if (g.every((x) => x === 0)) return true; // ::
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return true; // ::1
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible: judge the IPv4 address.
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) {
    return privateV4(`${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`);
  }
  if ((g[0]! & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((g[0]! & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((g[0]! & 0xff00) === 0xff00) return true; // multicast
  if (g[0] === 0x64 && g[1] === 0xff9b) return privateV4(`${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`); // NAT64
  return false;
}

export type DestinationCheck = { ok: true } | { ok: false; reason: string };

/** The explanation shown when a destination is refused (the screen and the delivery log). */
export const PRIVATE_DESTINATION_REASON =
  "points to a loopback, private, link-local or metadata address; an admin can allow private destinations under Notifications → General (docs/security.md)";

/**
 * Whether the app may connect to `host` (a name or an IP literal, IPv6 with or without
 * brackets). With `allowPrivate` everything is allowed (a self-hosted mail server on the LAN).
 */
export async function checkDestination(
  host: string,
  options: { allowPrivate: boolean; resolve?: (host: string) => Promise<string[]> },
): Promise<DestinationCheck> {
  if (options.allowPrivate) return { ok: true };
  const bare = host
    .trim()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
  if (!bare) return { ok: false, reason: "has no host" };
  let addresses: string[];
  if (isIP(bare)) addresses = [bare];
  else if (/^localhost$|\.localhost$/i.test(bare)) addresses = ["127.0.0.1"];
  else {
    try {
      addresses = await (options.resolve ?? resolveAll)(bare);
    } catch {
      return { ok: false, reason: "cannot be resolved (DNS)" };
    }
    if (addresses.length === 0) return { ok: false, reason: "cannot be resolved (DNS)" };
  }
  return addresses.some(isPrivateAddress) ? { ok: false, reason: PRIVATE_DESTINATION_REASON } : { ok: true };
}

async function resolveAll(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
}

/** The host of an http(s) URL ("" when it is not one). */
export function urlHost(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "";
  }
}
