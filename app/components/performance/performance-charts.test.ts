// The equity and drawdown charts' time axis: dates from two days on, times below, and seconds
// under 15 minutes, so no two ticks of a short curve read the same minute.
import { describe, expect, test } from "vitest";
import { tickUnit } from "./performance-charts.client.tsx";

describe("the curves' time ticks", () => {
  test("dates, times or times with seconds by the curve's span", () => {
    expect(tickUnit(0)).toBe("seconds");
    expect(tickUnit(6 * 60_000)).toBe("seconds"); // six ticks a minute apart at most
    expect(tickUnit(15 * 60_000 - 1)).toBe("seconds");
    expect(tickUnit(15 * 60_000)).toBe("time");
    expect(tickUnit(2 * 86_400_000 - 1)).toBe("time");
    expect(tickUnit(2 * 86_400_000)).toBe("date");
    expect(tickUnit(30 * 86_400_000)).toBe("date");
  });
});
