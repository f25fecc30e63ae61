// A strategy's break-even offset override as typed on the Strategies form (issue 25, decision 046).
import { describe, expect, test } from "vitest";
import { formToStrategy, parseBreakEvenOffsetText } from "./strategy-form.ts";

describe("break-even offset override", () => {
  test("ticks or a percent of the entry; blank is Trading Rules'", () => {
    expect(parseBreakEvenOffsetText("5 ticks")).toEqual({ unit: "ticks", value: 5 });
    expect(parseBreakEvenOffsetText("1 tick")).toEqual({ unit: "ticks", value: 1 });
    expect(parseBreakEvenOffsetText("12t")).toEqual({ unit: "ticks", value: 12 });
    expect(parseBreakEvenOffsetText("0.1%")).toEqual({ unit: "percent", value: 0.001 });
    expect(parseBreakEvenOffsetText(" 0.05 % ")).toEqual({ unit: "percent", value: 0.0005 });
    expect(parseBreakEvenOffsetText("")).toBeNull();
    for (const bad of ["2.5 ticks", "1001 ticks", "6%", "abc", "5"])
      expect(parseBreakEvenOffsetText(bad)).toBe("invalid");
  });

  test("it reaches the strategy's rules, or the message at its field", () => {
    const base = { name: "Rho", enabled: true, allowedSymbols: [], amountType: "multiplier", amountValue: "1" };
    expect(formToStrategy({ ...base, breakEvenOffset: "3 ticks" }).input?.rules).toEqual({
      breakEvenOffset: { unit: "ticks", value: 3 },
    });
    expect(formToStrategy({ ...base, breakEvenOffset: "" }).input?.rules).toEqual({});
    expect(formToStrategy({ ...base, breakEvenOffset: "lots" }).issues).toEqual([
      {
        path: ["breakEvenOffset"],
        message:
          "Break-even offset: whole ticks (e.g. 5 ticks, 0 to 1000) or a percent of the entry (e.g. 0.1%, 0 to 5%)",
      },
    ]);
  });
});
