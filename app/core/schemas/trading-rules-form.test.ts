// The Trading Rules form → trading config conversion (docs/spec/api.md#validation, figures.md#defaults-and-limits): percent inputs
// stored as fractions, clamping, the take-profit total, the multiplier fallback, the
// per-type signal amount rules, and switched-off sections left as stored.
import { describe, expect, test } from "vitest";
import {
  DEFAULT_TRADING_CONFIG,
  TradingConfigSchema,
  parseTradingConfigBody,
} from "#app/core/schemas/trading-config.ts";
import {
  clampPortfolioPercent,
  configToFormValues,
  enabledTotalPercent,
  firstFormError,
  fractionToPercent,
  normalizeMultiplier,
  parseTradingRulesForm,
  percentToFraction,
  signalAmountValueError,
} from "./trading-rules-form.ts";
import { PERCENT_INPUTS, PERCENT_INPUTS_STORED } from "#tests/setup/fixtures.ts";

type Values = ReturnType<typeof configToFormValues>;

/** What a browser posts for these values: checked boxes as "on", unchecked ones absent. */
function post(values: Values, overrides: Record<string, string | null> = {}): URLSearchParams {
  const body = new URLSearchParams();
  const add = (name: string, value: unknown) => {
    if (value === true) body.set(name, "on");
    else if (typeof value === "string") body.set(name, value);
  };
  for (const [key, value] of Object.entries(values)) {
    if (key === "takeProfits") {
      values.takeProfits.forEach((level, i) => {
        add(`takeProfits[${i}].portfolio`, level.portfolio);
        add(`takeProfits[${i}].priceDeviation`, level.priceDeviation);
        add(`takeProfits[${i}].enabled`, level.enabled);
      });
    } else if (key === "trailingStop") {
      add("trailingStop.activation", values.trailingStop.activation);
      add("trailingStop.execute", values.trailingStop.execute);
    } else if (key === "breakEvenOffset") {
      add("breakEvenOffset.unit", values.breakEvenOffset.unit);
      add("breakEvenOffset.value", values.breakEvenOffset.value);
    } else add(key, value);
  }
  for (const [name, value] of Object.entries(overrides)) {
    if (value === null) body.delete(name);
    else body.set(name, value);
  }
  return body;
}

const defaults = () => configToFormValues(DEFAULT_TRADING_CONFIG);

function parse(body: URLSearchParams) {
  const submission = parseTradingRulesForm(body);
  return submission;
}

function ok(body: URLSearchParams) {
  const submission = parse(body);
  if (submission.status !== "success") throw new Error(`expected success, got ${JSON.stringify(submission.error)}`);
  return submission.value;
}

function errors(body: URLSearchParams) {
  const submission = parse(body);
  if (submission.status === "success") throw new Error("expected errors");
  return submission.error as Record<string, string[]>;
}

describe("percent ⇄ fraction", () => {
  test("exact decimal conversion both ways", () => {
    expect(percentToFraction("0.5")).toBe(0.005);
    expect(percentToFraction("0.7")).toBe(0.007);
    expect(percentToFraction("33.3")).toBe(0.333);
    expect(percentToFraction("1.2")).toBe(0.012);
    expect(percentToFraction("100")).toBe(1);
    expect(fractionToPercent(0.005)).toBe("0.5");
    expect(fractionToPercent(0.012)).toBe("1.2");
    expect(fractionToPercent(0.3)).toBe("30");
    expect(fractionToPercent(0.007)).toBe("0.7");
  });

  test("the form starts from the stored config, in percent (docs/spec/figures.md#defaults-and-limits defaults)", () => {
    const values = defaults();
    expect(values.takeProfits).toEqual([
      { portfolio: "20", priceDeviation: "0.5", enabled: true },
      { portfolio: "30", priceDeviation: "1", enabled: true },
      { portfolio: "50", priceDeviation: "1.5", enabled: true },
    ]);
    expect(values.stopLossOffset).toBe("0.5");
    expect(values.trailingStop).toEqual({ activation: "1.2", execute: "0.6" });
    expect(values.orderSizeMultiplier).toBe("1");
  });

  test("posting the defaults back gives the default config (amount control off keeps its stored fields)", () => {
    const value = ok(post(defaults()));
    const { signalAmountType, signalAmountValue, ...rest } = DEFAULT_TRADING_CONFIG;
    expect(value).toEqual(rest);
    expect(value.signalAmountType).toBeUndefined();
    expect(signalAmountType).toBe("multiplier");
    expect(signalAmountValue).toBe("1");
    // …and it passes the config's own schema once merged onto the stored config.
    expect(parseTradingConfigBody(value, DEFAULT_TRADING_CONFIG)).toEqual({
      success: true,
      config: DEFAULT_TRADING_CONFIG,
    });
  });

  test("percent inputs are stored as fractions", () => {
    const value = ok(post(defaults(), PERCENT_INPUTS));
    expect({
      takeProfits: value.takeProfits,
      stopLossOffset: value.stopLossOffset,
      trailingStop: value.trailingStop,
    }).toEqual(PERCENT_INPUTS_STORED);
    expect(TradingConfigSchema.safeParse({ ...DEFAULT_TRADING_CONFIG, ...value }).success).toBe(true);
  });
});

describe("break-even offset (decision 046)", () => {
  test("shown in the unit chosen: percent of the entry, or whole ticks; stored as a fraction or a count", () => {
    expect(defaults().breakEvenOffset).toEqual({ unit: "percent", value: "0.1" });
    expect(
      ok(post(defaults(), { "breakEvenOffset.unit": "ticks", "breakEvenOffset.value": "3" })).breakEvenOffset,
    ).toEqual({ unit: "ticks", value: 3 });
    expect(ok(post(defaults(), { "breakEvenOffset.value": "0.1" })).breakEvenOffset).toEqual({
      unit: "percent",
      value: 0.001,
    });
    expect(ok(post(defaults(), { "breakEvenOffset.value": "" })).breakEvenOffset).toEqual({
      unit: "percent",
      value: 0,
    });
  });

  test("out of range: the message at the field", () => {
    expect(
      errors(post(defaults(), { "breakEvenOffset.unit": "ticks", "breakEvenOffset.value": "2.5" }))[
        "breakEvenOffset.value"
      ],
    ).toEqual(["Break-even offset must be a whole number of ticks from 0 to 1000"]);
    expect(errors(post(defaults(), { "breakEvenOffset.value": "6" }))["breakEvenOffset.value"]).toEqual([
      "Break-even offset must be from 0% to 5%",
    ]);
  });
});

describe("switches", () => {
  test("a checked switch posts 'on' (true); an unchecked one posts nothing (false)", () => {
    const value = ok(
      post(defaults(), { autoTradingEnabled: null, applyStopLossToManual: null, applyLeverageToSignals: "on" }),
    );
    expect(value.autoTradingEnabled).toBe(false);
    expect(value.applyStopLossToManual).toBe(false);
    expect(value.applyLeverageToSignals).toBe(true);
    expect(value.emergencyStopEnabled).toBe(true);
  });

  test("a take-profit level that is not enabled does not count toward the total", () => {
    const value = ok(post(defaults(), { "takeProfits[0].enabled": null, "takeProfits[1].portfolio": "50" }));
    expect(value.takeProfits!.map((l) => l.enabled)).toEqual([false, true, true]);
  });
});

describe("take-profit allocation (docs/spec/api.md#validation)", () => {
  test("enabled levels must total 100%: the exact message", () => {
    const e = errors(post(defaults(), { "takeProfits[0].portfolio": "30" }));
    expect(e.takeProfits).toEqual([
      "Invalid Portfolio Allocation: Enabled Take Profit levels must total 100%, currently 110%",
    ]);
    expect(firstFormError(e)).toBe(
      "Invalid Portfolio Allocation: Enabled Take Profit levels must total 100%, currently 110%",
    );
  });

  test("tolerance 0.1 around 100", () => {
    expect(parse(post(defaults(), { "takeProfits[0].portfolio": "20.1" })).status).toBe("success");
    expect(parse(post(defaults(), { "takeProfits[0].portfolio": "19.9" })).status).toBe("success");
    expect(errors(post(defaults(), { "takeProfits[0].portfolio": "19.85" })).takeProfits).toEqual([
      "Invalid Portfolio Allocation: Enabled Take Profit levels must total 100%, currently 99.85%",
    ]);
  });

  test("no enabled level is valid (no take profit)", () => {
    const value = ok(
      post(defaults(), {
        "takeProfits[0].enabled": null,
        "takeProfits[1].enabled": null,
        "takeProfits[2].enabled": null,
      }),
    );
    expect(value.takeProfits!.every((l) => !l.enabled)).toBe(true);
  });

  test("each level's portfolio percent is clamped to 0..100 before the total is checked", () => {
    expect(clampPortfolioPercent("150")).toBe("100");
    expect(clampPortfolioPercent("-10")).toBe("0");
    expect(clampPortfolioPercent("42.5")).toBe("42.5");
    expect(clampPortfolioPercent("abc")).toBeNull();
    const value = ok(
      post(defaults(), {
        "takeProfits[0].portfolio": "150",
        "takeProfits[1].portfolio": "-10",
        "takeProfits[1].enabled": null,
        "takeProfits[2].enabled": null,
      }),
    );
    expect(value.takeProfits!.map((l) => l.portfolio)).toEqual([1, 0, 0.5]);
    expect(
      enabledTotalPercent([
        { portfolio: "150", enabled: true },
        { portfolio: "-5", enabled: true },
      ]),
    ).toBe("100");
  });

  test("a level needs a number and a positive price deviation", () => {
    const e = errors(post(defaults(), { "takeProfits[0].portfolio": "", "takeProfits[1].priceDeviation": "0" }));
    expect(e["takeProfits[0].portfolio"]).toEqual(["Portfolio % is required"]);
    expect(e["takeProfits[1].priceDeviation"]).toEqual(["Price deviation must be more than 0% and at most 1000%"]);
  });
});

describe("order size multiplier: 0.01 to 10, else 1", () => {
  test.each([
    ["2.5", "2.5"],
    ["0.01", "0.01"],
    ["10", "10"],
    ["", "1"],
    ["abc", "1"],
    ["0", "1"],
    ["-2", "1"],
    ["0.001", "1"],
    ["11", "1"],
  ])("%s → %s", (input, stored) => {
    expect(normalizeMultiplier(input)).toBe(stored);
    expect(ok(post(defaults(), { orderSizeMultiplier: input })).orderSizeMultiplier).toBe(stored);
  });
});

describe("signal amount value per type (docs/spec/api.md#validation)", () => {
  test.each([
    ["multiplier", "0.01", null],
    ["multiplier", "0.005", "Multiplier must be at least 0.01"],
    ["multiplier", "3.333", null],
    ["usd", "1", null],
    ["usd", "0.5", "USD amount must be at least 1"],
    ["usd", "10.25", null],
    ["usd", "10.255", "USD amount must be a multiple of 0.01"],
    ["percentage", "0.1", null],
    ["percentage", "0.05", "Percentage of balance must be between 0.1 and 100"],
    ["percentage", "100", null],
    ["percentage", "100.5", "Percentage of balance must be between 0.1 and 100"],
    ["percentage", "12.55", "Percentage of balance must be a multiple of 0.1"],
    ["contracts", "3", null],
    ["contracts", "0", "Contracts must be at least 1"],
    ["contracts", "1.5", "Contracts must be a whole number"],
    ["usd", "", "Signal amount value is required"],
    ["usd", "ten", "Signal amount value must be a number"],
  ] as const)("%s %s", (type, value, message) => {
    expect(signalAmountValueError(type, value)).toBe(message);
    const body = post(defaults(), {
      applyAmountControlToSignals: "on",
      signalAmountType: type,
      signalAmountValue: value,
    });
    if (message === null) {
      expect(ok(body)).toMatchObject({
        applyAmountControlToSignals: true,
        signalAmountType: type,
        signalAmountValue: value,
      });
    } else {
      expect(errors(body).signalAmountValue).toEqual([message]);
    }
  });

  test("percentage stays in percent (the sizing reads it as percent of the balance)", () => {
    expect(
      ok(
        post(defaults(), {
          applyAmountControlToSignals: "on",
          signalAmountType: "percentage",
          signalAmountValue: "12.5",
        }),
      ).signalAmountValue,
    ).toBe("12.5");
  });

  test("an unknown type is refused", () => {
    expect(
      errors(post(defaults(), { applyAmountControlToSignals: "on", signalAmountType: "lots", signalAmountValue: "1" }))
        .signalAmountType,
    ).toBeTruthy();
  });

  test("amount control off: its type and value are neither checked nor saved", () => {
    const value = ok(post(defaults(), { signalAmountType: "contracts", signalAmountValue: "1.5" }));
    expect(value.applyAmountControlToSignals).toBe(false);
    expect("signalAmountType" in value).toBe(false);
    expect("signalAmountValue" in value).toBe(false);
  });
});

describe("stop loss, trailing stop", () => {
  test("the stop-loss offset is required, above 0 and at most 100%", () => {
    expect(errors(post(defaults(), { stopLossOffset: "" })).stopLossOffset).toEqual(["Stop-loss offset is required"]);
    expect(errors(post(defaults(), { stopLossOffset: "0" })).stopLossOffset).toEqual([
      "Stop-loss offset must be more than 0% and at most 100%",
    ]);
    expect(errors(post(defaults(), { stopLossOffset: "x" })).stopLossOffset).toEqual([
      "Stop-loss offset must be a number",
    ]);
  });

  test("trailing stop on: activation and execute are checked and saved", () => {
    const e = errors(post(defaults(), { "trailingStop.activation": "0", "trailingStop.execute": "" }));
    expect(e["trailingStop.activation"]).toEqual(["Activation must be more than 0% and at most 100%"]);
    expect(e["trailingStop.execute"]).toEqual(["Trailing distance is required"]);
  });

  test("trailing stop off: its details keep their stored values", () => {
    const value = ok(post(defaults(), { trailingStopEnabled: null, "trailingStop.activation": "garbage" }));
    expect(value.trailingStopEnabled).toBe(false);
    expect("trailingStop" in value).toBe(false);
  });
});
