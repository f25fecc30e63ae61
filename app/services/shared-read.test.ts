// sharedRead (decision 037): callers that ask before the read starts share it; a caller that
// asks once it has started gets a read of its own, which starts after it asked, so it sees
// everything written before it asked. Keys and scopes never mix; a failure is not kept.
import { describe, expect, test } from "vitest";
import { nextMacrotask, sharedRead } from "./shared-read.server.ts";

describe("sharedRead", () => {
  test("callers in the same turn share one read; a caller after it started gets a new one that sees later writes", async () => {
    const scope = {};
    let value = 1;
    let reads = 0;
    const read = async () => {
      reads++;
      return { value };
    };
    const [a, b, c] = await Promise.all([
      sharedRead(scope, "k", read),
      sharedRead(scope, "k", read),
      sharedRead(scope, "k", read),
    ]);
    expect(reads).toBe(1);
    expect(a).toBe(b);
    expect(b).toBe(c);
    expect(a.value).toBe(1);

    // A read has started (not finished): a caller now must not get its result.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = sharedRead(scope, "slow", async () => {
      const seen = value; // what the database held when the read ran
      await gate;
      return seen;
    });
    await nextMacrotask(); // the slow read is running now
    value = 2; // written after the read started, before the next caller asks
    const late = sharedRead(scope, "slow", async () => value);
    release();
    expect(await slow).toBe(1);
    expect(await late).toBe(2);
  });

  test("the read starts after every caller asked: a write before the last caller asked is seen", async () => {
    const scope = {};
    let value = "before";
    const first = sharedRead(scope, "k", async () => value);
    value = "written before the second caller asked";
    const second = sharedRead(scope, "k", async () => "never run");
    expect(await first).toBe("written before the second caller asked");
    expect(await second).toBe("written before the second caller asked");
  });

  test("different keys and different scopes read separately", async () => {
    const one = {};
    const two = {};
    let reads = 0;
    const read = async () => ++reads;
    const results = await Promise.all([
      sharedRead(one, "a", read),
      sharedRead(one, "b", read),
      sharedRead(two, "a", read),
    ]);
    expect(new Set(results).size).toBe(3);
    expect(reads).toBe(3);
  });

  test("a failed read fails its callers only; the next caller reads again", async () => {
    const scope = {};
    let fail = true;
    const read = async () => {
      if (fail) throw new Error("database unavailable");
      return "ok";
    };
    const both = [sharedRead(scope, "k", read), sharedRead(scope, "k", read)];
    for (const call of both) await expect(call).rejects.toThrow("database unavailable");
    fail = false;
    expect(await sharedRead(scope, "k", read)).toBe("ok");
  });
});
