// CSV exports neutralise formula cells (issue 10): trade history, activity log and reports
// all write through csvField.
import { describe, expect, test } from "vitest";
import { activityLogCsv } from "#app/components/activity-log/activity-log-utils.ts";
import { csvField, toCsv } from "./format.ts";

describe("csvField", () => {
  test.each([
    ['=HYPERLINK("http://evil.example","x")', `"'=HYPERLINK(""http://evil.example"",""x"")"`],
    ["+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"],
    ["-2+3", "'-2+3"],
    ["@SUM(A1:A2)", "'@SUM(A1:A2)"],
    ["\tleading tab", "'\tleading tab"],
    ["\r=1", `"'\r=1"`],
  ])("neutralises %j", (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });

  test.each([
    ["-1.02", "-1.02"],
    ["+0.5", "+0.5"],
    ["-3e-8", "-3e-8"],
    ["BTC-PERP", "BTC-PERP"],
    ["plain, with comma", '"plain, with comma"'],
    ["", ""],
  ])("leaves %j alone", (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });

  test("numbers stay numbers, signed or not", () => {
    expect(csvField(-24.76)).toBe("-24.76");
    expect(toCsv(["a"], [[-1], ["=1+1"]])).toBe("a\r\n-1\r\n'=1+1\r\n");
  });

  test("an activity-log export with a hostile message is neutralised", () => {
    const csv = activityLogCsv([
      {
        id: 1,
        type: "webhook",
        level: "warning",
        message: '=IMPORTXML("http://x")',
        data: {},
        createdAt: "2026-11-24T00:00:00.000Z",
      },
    ]);
    expect(csv).toContain(`"'=IMPORTXML(""http://x"")"`);
  });
});
