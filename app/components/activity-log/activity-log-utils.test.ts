import { describe, expect, test } from "vitest";
import {
  type ActivityLog,
  CSV_HEADER,
  activityLogCsv,
  activityLogCsvRows,
  activityLogFileName,
  dataPreview,
  hasFilters,
  levelColor,
  logsUrl,
  newestFirst,
  previewValue,
  utcTimeText,
} from "./activity-log-utils.ts";

const log = (over: Partial<ActivityLog> = {}): ActivityLog => ({
  id: 1,
  type: "signal",
  level: "info",
  message: "Signal received: BUY 0.01 BTC-PERP",
  data: {},
  createdAt: "2025-03-04T05:06:07.000Z",
  ...over,
});

describe("logsUrl", () => {
  test("limit only without filters", () => {
    expect(logsUrl(20)).toBe("/api/logs?limit=20");
    expect(logsUrl(100, { type: "", level: "" })).toBe("/api/logs?limit=100");
  });
  test("type and level when set", () => {
    expect(logsUrl(20, { type: "trade", level: "" })).toBe("/api/logs?limit=20&type=trade");
    expect(logsUrl(20, { type: "", level: "error" })).toBe("/api/logs?limit=20&level=error");
    expect(logsUrl(100, { type: "webhook", level: "warning" })).toBe("/api/logs?limit=100&type=webhook&level=warning");
  });
  test("hasFilters", () => {
    expect(hasFilters({ type: "", level: "" })).toBe(false);
    expect(hasFilters({ type: "auth", level: "" })).toBe(true);
    expect(hasFilters({ type: "", level: "info" })).toBe(true);
  });
});

test("level colours: error, warning, success; info and anything else neutral", () => {
  expect(levelColor("error")).toBe("error");
  expect(levelColor("warning")).toBe("warning");
  expect(levelColor("success")).toBe("success");
  expect(levelColor("info")).toBe("default");
  expect(levelColor("debug")).toBe("default");
});

describe("dataPreview", () => {
  test("at most 3 entries and how many more", () => {
    const preview = dataPreview({ a: 1, b: "two", c: true, d: null, e: { x: 1 } });
    expect(preview.entries).toEqual([
      { key: "a", value: "1" },
      { key: "b", value: "two" },
      { key: "c", value: "true" },
    ]);
    expect(preview.more).toBe(2);
  });
  test("three or fewer entries: no more", () => {
    expect(dataPreview({ symbol: "BTC-PERP", qty: "0.5", side: "buy" })).toEqual({
      entries: [
        { key: "symbol", value: "BTC-PERP" },
        { key: "qty", value: "0.5" },
        { key: "side", value: "buy" },
      ],
      more: 0,
    });
  });
  test("empty, missing or non-object data has no entries", () => {
    expect(dataPreview({})).toEqual({ entries: [], more: 0 });
    expect(dataPreview(null)).toEqual({ entries: [], more: 0 });
    expect(dataPreview(undefined)).toEqual({ entries: [], more: 0 });
    expect(dataPreview([1, 2] as unknown as Record<string, unknown>)).toEqual({ entries: [], more: 0 });
  });
  test("values: null, objects as JSON, long text shortened", () => {
    expect(previewValue(null)).toBe("null");
    expect(previewValue({ a: [1, 2] })).toBe('{"a":[1,2]}');
    const long = previewValue("x".repeat(200));
    expect(long).toHaveLength(60);
    expect(long.endsWith("…")).toBe(true);
    expect(dataPreview({ a: undefined, b: 2 }).entries).toEqual([{ key: "b", value: "2" }]);
  });
});

test("newestFirst orders by time, then id", () => {
  const logs = [
    log({ id: 1, createdAt: "2025-03-04T05:00:00.000Z" }),
    log({ id: 3, createdAt: "2025-03-04T06:00:00.000Z" }),
    log({ id: 2, createdAt: "2025-03-04T06:00:00.000Z" }),
  ];
  expect(newestFirst(logs).map((l) => l.id)).toEqual([3, 2, 1]);
  expect(logs.map((l) => l.id)).toEqual([1, 3, 2]); // not mutated
});

describe("CSV export", () => {
  test("columns Timestamp, Type, Level, Message, Data with Data as JSON", () => {
    expect(CSV_HEADER).toEqual(["Timestamp", "Type", "Level", "Message", "Data"]);
    const rows = activityLogCsvRows([
      log({ data: { symbol: "BTC-PERP", qty: "0.01" } }),
      log({ id: 2, level: "error", type: "trade", message: "Order failed", data: {} }),
    ]);
    expect(rows).toEqual([
      [
        "2025-03-04T05:06:07.000Z",
        "signal",
        "info",
        "Signal received: BUY 0.01 BTC-PERP",
        '{"symbol":"BTC-PERP","qty":"0.01"}',
      ],
      ["2025-03-04T05:06:07.000Z", "trade", "error", "Order failed", "{}"],
    ]);
  });
  test("the CSV text quotes commas and quotes", () => {
    const csv = activityLogCsv([log({ message: 'Rejected: "price", too low', data: { a: 1, b: "x" } })]);
    expect(csv).toBe(
      "Timestamp,Type,Level,Message,Data\r\n" +
        '2025-03-04T05:06:07.000Z,signal,info,"Rejected: ""price"", too low","{""a"":1,""b"":""x""}"\r\n',
    );
  });
  test("an empty export is just the header", () => {
    expect(activityLogCsv([])).toBe("Timestamp,Type,Level,Message,Data\r\n");
  });
  test("file name activity-logs-YYYY-MM-DD.csv with the local date", () => {
    expect(activityLogFileName(new Date(2025, 0, 5, 23, 59))).toBe("activity-logs-2025-01-05.csv");
    expect(activityLogFileName(new Date(2024, 11, 31, 0, 1))).toBe("activity-logs-2024-12-31.csv");
  });
});

test("utcTimeText is the same everywhere", () => {
  expect(utcTimeText("2025-03-04T05:06:07.000Z")).toBe("2025-03-04 05:06:07 UTC");
  expect(utcTimeText(null)).toBe("—");
  expect(utcTimeText("nope")).toBe("—");
});
