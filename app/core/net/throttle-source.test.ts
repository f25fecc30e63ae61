// Login throttle sources (issue 23): IPv6 counts by /64, IPv4-mapped IPv6 as its IPv4.
import { describe, expect, test } from "vitest";
import { throttleSource } from "./throttle-source.ts";

describe("throttleSource", () => {
  test.each([
    ["203.0.113.7", "203.0.113.7"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    ["::FFFF:203.0.113.7", "203.0.113.7"],
    ["::ffff:cb00:7107", "203.0.113.7"],
    ["0:0:0:0:0:ffff:203.0.113.7", "203.0.113.7"],
    ["2001:db8:1:2::1", "2001:db8:1:2::/64"],
    ["2001:db8:1:2:ffff:eeee:dddd:cccc", "2001:db8:1:2::/64"],
    ["2001:0DB8:0001:0002:0000:0000:0000:0009", "2001:db8:1:2::/64"],
    ["[2001:db8:1:2::1]", "2001:db8:1:2::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["2001:db8::", "2001:db8:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["64:ff9b::192.0.2.33", "64:ff9b:0:0::/64"],
    ["not-an-address", "not-an-address"],
  ])("%s counts as %s", (ip, source) => {
    expect(throttleSource(ip)).toBe(source);
  });

  test("every address of one /64 is one source; the next /64 is another", () => {
    const sources = new Set(
      Array.from({ length: 100 }, (_, i) => throttleSource(`2001:db8:aa:bb:${i.toString(16)}:1:2:3`)),
    );
    expect([...sources]).toEqual(["2001:db8:aa:bb::/64"]);
    expect(throttleSource("2001:db8:aa:bc::1")).not.toBe(throttleSource("2001:db8:aa:bb::1"));
  });

  test("no address is no source", () => {
    expect(throttleSource(null)).toBeNull();
    expect(throttleSource("")).toBeNull();
  });
});
