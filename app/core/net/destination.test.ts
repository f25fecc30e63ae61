import { describe, expect, test } from "vitest";
import { checkDestination, isPrivateAddress } from "./destination.ts";

describe("notification destinations (docs/security.md, Outgoing notifications)", () => {
  test("loopback, private, link-local, metadata, unique-local and unspecified addresses are private", () => {
    for (const address of [
      "127.0.0.1",
      "127.9.9.9",
      "::1",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.10",
      "169.254.169.254",
      "169.254.0.1",
      "0.0.0.0",
      "::",
      "fc00::1",
      "fd12:3456::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "[::1]",
      "100.64.0.1",
      "not-an-address",
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of [
      "93.184.215.14",
      "172.32.0.1",
      "172.15.255.255",
      "8.8.8.8",
      "2606:4700::1111",
      "::ffff:8.8.8.8",
    ]) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });

  test("names are resolved and refused when any address they resolve to is private; the admin setting allows them", async () => {
    const resolve = (answers: Record<string, string[]>) => async (host: string) => {
      if (!answers[host]) throw new Error("ENOTFOUND");
      return answers[host]!;
    };
    const dns = resolve({
      "hooks.example.com": ["93.184.215.14"],
      "rebind.example.com": ["93.184.215.14", "127.0.0.1"],
      "meta.example.com": ["169.254.169.254"],
    });
    expect(await checkDestination("hooks.example.com", { allowPrivate: false, resolve: dns })).toEqual({ ok: true });
    expect((await checkDestination("rebind.example.com", { allowPrivate: false, resolve: dns })).ok).toBe(false);
    expect((await checkDestination("meta.example.com", { allowPrivate: false, resolve: dns })).ok).toBe(false);
    expect(await checkDestination("nowhere.example.com", { allowPrivate: false, resolve: dns })).toEqual({
      ok: false,
      reason: "cannot be resolved (DNS)",
    });
    expect((await checkDestination("localhost", { allowPrivate: false, resolve: dns })).ok).toBe(false);
    expect((await checkDestination("[::1]", { allowPrivate: false, resolve: dns })).ok).toBe(false);
    expect(await checkDestination("meta.example.com", { allowPrivate: true, resolve: dns })).toEqual({ ok: true });
  });
});
