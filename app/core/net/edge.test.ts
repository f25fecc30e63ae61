// The request-edge rules (issue 10): Origin parsing that never throws, the Host allowlist
// against DNS rebinding, and the client address behind a proxy (right-most untrusted hop).
import { describe, expect, test } from "vitest";
import { allowedHosts, forwardedClient, hostAllowed, hostName, isPrivateAddress, originHost } from "./edge.ts";

describe("originHost", () => {
  test.each([
    ["http://localhost:5000", "localhost:5000"],
    ["https://trade.example.com", "trade.example.com"],
    ["https://TRADE.example.com:8443", "trade.example.com:8443"],
  ])("%s → %s", (origin, host) => expect(originHost(origin)).toBe(host));
  test.each([undefined, null, "", "null"])("absent %j → null", (origin) => expect(originHost(origin)).toBeNull());
  test.each(["http://[", "not a url", "file:///etc/passwd", "javascript:alert(1)", "ftp://x.example", "http://"])(
    "malformed %j → undefined (refused, never thrown)",
    (origin) => {
      expect(originHost(origin)).toBeUndefined();
    },
  );
});

describe("hostAllowed", () => {
  test("without configuration: IP literals, localhost and single-label LAN names; no dotted domain", () => {
    for (const host of ["localhost:5000", "127.0.0.1:5000", "[::1]:5000", "192.168.1.20", "tradebox", "app.localhost"])
      expect(hostAllowed(host, []), host).toBe(true);
    for (const host of ["attacker.example", "evil.example.com:5000", "", null, undefined])
      expect(hostAllowed(host, []), String(host)).toBe(false);
  });

  test("with PUBLIC_URL / ALLOWED_HOSTS: exactly those names (and IP literals)", () => {
    const allowed = allowedHosts({
      PUBLIC_URL: "https://trade.example.com",
      ALLOWED_HOSTS: "Other.Example:8080, tradebox.lan",
    });
    expect(allowed.sort()).toEqual(["other.example", "trade.example.com", "tradebox.lan"]);
    for (const host of ["trade.example.com", "TRADE.example.com:443", "other.example:5000", "203.0.113.5"])
      expect(hostAllowed(host, allowed), host).toBe(true);
    for (const host of ["localhost", "attacker.example", "trade.example.com.attacker.example", "tradebox"])
      expect(hostAllowed(host, allowed), host).toBe(false);
  });

  test("hostName strips the port and IPv6 brackets", () => {
    expect(hostName("[::1]:5000")).toBe("::1");
    expect(hostName("Example.COM:80")).toBe("example.com");
  });
});

describe("forwardedClient (TRUST_PROXY)", () => {
  test.each([
    ["203.0.113.9", "203.0.113.9"],
    // The client may send any left part: the right-most public hop is the one the proxy saw.
    ["1.2.3.4, 203.0.113.9", "203.0.113.9"],
    ["1.2.3.4, 203.0.113.9, 10.0.0.2", "203.0.113.9"],
    ["8.8.8.8, 198.51.100.7, 172.16.0.1, 192.168.0.1", "198.51.100.7"],
    // Only private hops: the left-most is the client on the LAN.
    ["192.168.1.50, 10.0.0.2", "192.168.1.50"],
    ["2001:db8::1", "2001:db8::1"],
    ["[2001:db8::2]", "2001:db8::2"],
  ])("%j → %s", (header, client) => expect(forwardedClient(header)).toBe(client));

  test.each([undefined, null, "", "unknown", "1.2.3.4, garbage", "<script>, 10.0.0.1"])(
    "%j → null (nothing usable)",
    (header) => {
      expect(forwardedClient(header)).toBeNull();
    },
  );

  test("private ranges", () => {
    for (const a of [
      "10.1.2.3",
      "127.0.0.1",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.0.1",
      "169.254.1.1",
      "::1",
      "fd00::1",
      "fe80::1",
      "::ffff:10.0.0.1",
    ])
      expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ["172.32.0.1", "8.8.8.8", "203.0.113.1", "2001:db8::1", "not-an-ip"])
      expect(isPrivateAddress(a), a).toBe(false);
  });
});
