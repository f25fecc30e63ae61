import { describe, expect, test } from "vitest";
import {
  EMPTY_STAMPS,
  STEPS,
  formatMs,
  parseFireTime,
  percentile,
  plausibleFireTime,
  summariseTimelines,
  toTimeline,
} from "./timeline.ts";

describe("percentile (nearest rank)", () => {
  test("known values", () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 1..100, unsorted
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile(values, 0)).toBe(1);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNull();
    // 10 values: p50 is the 5th, p99 the 10th (the maximum), p90 the 9th.
    const ten = [10, 20, 30, 40, 50, 60, 70, 80, 90, 1000];
    expect(percentile(ten, 50)).toBe(50);
    expect(percentile(ten, 90)).toBe(90);
    expect(percentile(ten, 99)).toBe(1000);
    expect(ten).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 1000]); // input untouched
  });
});

describe("a signal's timeline", () => {
  const stamps = { fired: 1000, received: 1200, committed: 1203, claimed: 1210, sent: 1212, acked: 1215, filled: 1220 };
  test("deltas from the previous hop, total from receipt, monotonic", () => {
    const t = toTimeline("s1", stamps);
    expect(t.steps.map((s) => s.deltaMs)).toEqual([null, 200, 3, 7, 2, 3, 5]);
    expect(t.steps.map((s) => s.sinceStartMs)).toEqual([0, 200, 203, 210, 212, 215, 220]);
    expect(t.totalMs).toBe(20);
    expect(t.monotonic).toBe(true);
    expect(t.lastHop).toBe("filled");
    expect(t.steps[3]!.at).toBe(new Date(1210).toISOString());
  });
  test("missing hops are skipped: the next delta counts from the last hop that happened", () => {
    const t = toTimeline("s2", { ...EMPTY_STAMPS, received: 100, committed: 104, claimed: 110 });
    expect(t.steps.map((s) => s.deltaMs)).toEqual([null, null, 4, 6, null, null, null]);
    expect(t.lastHop).toBe("claimed");
    expect(t.totalMs).toBe(10);
  });
  test("out of order is reported, except TradingView's clock ahead of ours", () => {
    expect(toTimeline("s3", { ...stamps, fired: 1300 }).monotonic).toBe(true);
    expect(toTimeline("s3", { ...stamps, fired: 1300 }).steps[1]!.deltaMs).toBe(-100);
    expect(toTimeline("s4", { ...stamps, claimed: 1201 }).monotonic).toBe(false);
  });
});

describe("the summary", () => {
  test("p50 / p99 per step; limit orders leave the fill step and the total out", () => {
    const rows = Array.from({ length: 200 }, (_, k) => {
      const i = k + 1;
      return {
        stamps: {
          fired: null,
          received: 0,
          committed: i,
          claimed: 2 * i,
          sent: 2 * i,
          acked: 2 * i + 1,
          filled: 2 * i + 1 + (i % 10),
        },
      };
    });
    rows.push({
      stamps: { fired: null, received: 0, committed: 1, claimed: 2, sent: 3, acked: 4, filled: 99_999 },
      limit: true,
    } as never);
    const s = summariseTimelines(rows, 0);
    expect(s.signals).toBe(201);
    const step = (from: string) => s.steps.find((x) => x.from === from)!;
    expect(s.steps).toHaveLength(STEPS.length);
    expect(step("fired").count).toBe(0);
    expect(step("fired").p50Ms).toBeNull();
    expect(step("received")).toMatchObject({ count: 201, p50Ms: 100, p99Ms: 198, maxMs: 200 });
    expect(step("sent")).toMatchObject({ p50Ms: 1, p99Ms: 1 });
    expect(step("acked")).toMatchObject({ count: 200, p50Ms: 4, p99Ms: 9, maxMs: 9 });
    expect(s.total.count).toBe(200);
    expect(s.total.maxMs).toBe(2 * 199 + 1 + 9);
  });
});

test("fire time and durations", () => {
  expect(parseFireTime("2026-11-25T18:30:05Z")).toBe(Date.UTC(2026, 10, 25, 18, 30, 5));
  expect(parseFireTime(1764095405)).toBe(1764095405000);
  expect(parseFireTime("1764095405123")).toBe(1764095405123);
  expect(parseFireTime("{{timenow}}")).toBeNull();
  expect(parseFireTime(undefined)).toBeNull();
  expect([0.5, 3, 12.4, 999, 1234, 12_345, 185_000].map(formatMs)).toEqual([
    "0.5 ms",
    "3 ms",
    "12 ms",
    "999 ms",
    "1.23 s",
    "12.3 s",
    "3 min 5 s",
  ]);
});

describe("a fire time worth storing", () => {
  test("whole epoch ms within a week before and a day after now; anything else is no fired hop", () => {
    const now = 1_764_000_000_000;
    expect(plausibleFireTime(now - 1000, now)).toBe(now - 1000);
    expect(plausibleFireTime(now - 8 * 86_400_000, now)).toBeNull();
    expect(plausibleFireTime(now + 2 * 86_400_000, now)).toBeNull();
    expect(plausibleFireTime(1e308, now)).toBeNull();
    expect(plausibleFireTime(now + 0.5, now)).toBeNull();
    expect(plausibleFireTime(null, now)).toBeNull();
  });
});
