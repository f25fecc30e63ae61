// The alert builder's message is only right if the real webhook parser accepts it: every
// mode x order type x sizing, TradingView's placeholders filled with sample values, then
// parsed with parseWebhookSignal into the intended action, quantity and target.
import { describe, expect, test } from "vitest";
import { parseWebhookSignal } from "../schemas/webhook-signal.ts";
import {
  ALERT_MODES,
  type AlertTemplateOptions,
  DEFAULT_ALERT_OPTIONS,
  alertBuilderSearch,
  buildAlertBody,
  buildAlertMessage,
  explainAlertFields,
  parseAlertBuilderParams,
  substitutePlaceholders,
} from "./template.ts";

/** What TradingView fills in on a strategy's order fill (a sell that leaves the strategy short 1.5). */
const SAMPLE = {
  "strategy.order.action": "sell",
  "strategy.order.contracts": "2.5",
  "strategy.market_position": "short",
  "strategy.market_position_size": "1.5",
  "strategy.order.id": "Short entry",
  ticker: "BINANCE:ETHUSDT.P",
  close: "3412.55",
  time: "2026-11-25T18:30:00Z",
  timenow: "2026-11-25T18:30:05Z",
};

const fire = (options: AlertTemplateOptions, values: Record<string, string> = SAMPLE) => {
  const message = substitutePlaceholders(buildAlertMessage(options, "s3cret"), values);
  expect(message, "no placeholder left").not.toMatch(/\{\{/);
  const body = JSON.parse(message) as Record<string, unknown>;
  return { body, parsed: parseWebhookSignal(body) };
};

const ok = (result: ReturnType<typeof parseWebhookSignal>) => {
  if (!result.ok) throw new Error(`refused: ${result.field}: ${result.error}`);
  return result.signal;
};

const cases = ALERT_MODES.flatMap((mode) =>
  (["market", "limit"] as const).flatMap((orderType) =>
    (["strategy", "fixed"] as const).map((sizing) => ({ mode, orderType, sizing })),
  ),
);

describe("every mode x order type x sizing parses with the webhook's own schema", () => {
  test.each(cases)("$mode / $orderType / $sizing", ({ mode, orderType, sizing }) => {
    const options: AlertTemplateOptions = {
      ...DEFAULT_ALERT_OPTIONS,
      mode,
      orderType,
      sizing,
      quantity: "0.75",
      direction: "short",
    };
    const { body, parsed } = fire(options);
    const signal = ok(parsed);
    expect(body.secret).toBe("s3cret");
    expect(signal.symbol).toBe("ETH-PERP");
    expect(signal.orderType).toBe(orderType);
    expect(signal.price).toBe(orderType === "limit" ? "3412.55" : null);
    expect(signal.quantity).toBe(sizing === "fixed" ? "0.75" : "2.5");
    // Dedupe key and fire time are on by default.
    expect(signal.alertId).toBe("order:Short entry@2026-11-25T18:30:00Z");
    expect(body.timenow).toBe("2026-11-25T18:30:05Z");
    switch (mode) {
      case "entry":
        expect(signal.action).toBe("sell");
        expect(signal.target).toBeNull();
        break;
      case "exit":
        expect(signal.target).toEqual({ side: "flat", size: "0" });
        break;
      case "reverse":
        expect(signal.action).toBe("sell");
        expect(signal.target).toEqual({ side: "short", size: sizing === "fixed" ? "0.75" : "1.5" });
        break;
      case "target":
        expect(signal.target).toEqual({ side: "short", size: sizing === "fixed" ? "0.75" : "1.5" });
        break;
    }
  });
});

describe("target modes follow the strategy", () => {
  test("target: long, flat (size 0) and short from the placeholders", () => {
    const options = { ...DEFAULT_ALERT_OPTIONS, mode: "target" as const };
    expect(
      ok(
        fire(options, {
          ...SAMPLE,
          "strategy.order.action": "buy",
          "strategy.market_position": "long",
          "strategy.market_position_size": "2",
        }).parsed,
      ).target,
    ).toEqual({ side: "long", size: "2" });
    expect(
      ok(fire(options, { ...SAMPLE, "strategy.market_position": "flat", "strategy.market_position_size": "0" }).parsed)
        .target,
    ).toEqual({ side: "flat", size: "0" });
    // A fixed size: the strategy decides the side, the builder the size; flat stays flat.
    const fixed = { ...options, sizing: "fixed" as const, quantity: "3" };
    expect(ok(fire(fixed, { ...SAMPLE, "strategy.market_position": "long" }).parsed).target).toEqual({
      side: "long",
      size: "3",
    });
    expect(
      ok(fire(fixed, { ...SAMPLE, "strategy.market_position": "flat", "strategy.market_position_size": "0" }).parsed)
        .target,
    ).toEqual({ side: "flat", size: "0" });
  });

  test("reverse to long is a fixed buy whose target is long", () => {
    const signal = ok(
      fire({ ...DEFAULT_ALERT_OPTIONS, mode: "reverse", direction: "long", sizing: "fixed", quantity: "1" }).parsed,
    );
    expect(signal.action).toBe("buy");
    expect(signal.target).toEqual({ side: "long", size: "1" });
  });

  test("exit closes whatever the strategy's order says", () => {
    const signal = ok(
      fire({ ...DEFAULT_ALERT_OPTIONS, mode: "exit" }, { ...SAMPLE, "strategy.order.action": "buy" }).parsed,
    );
    expect(signal.action).toBe("buy");
    expect(signal.target).toEqual({ side: "flat", size: "0" });
  });
});

describe("symbol, leverage, dedupe, fire time, strategy", () => {
  test("a fixed product is sent as is; {{ticker}} otherwise", () => {
    const fixed = fire({ ...DEFAULT_ALERT_OPTIONS, symbol: "BTC-PERP" });
    expect(fixed.body.symbol).toBe("BTC-PERP");
    expect(ok(parseWebhookSignal(fixed.body, { strict: true })).symbol).toBe("BTC-PERP");
    expect(buildAlertBody(DEFAULT_ALERT_OPTIONS, "x").symbol).toBe("{{ticker}}");
  });

  test("leverage only in entry mode and only when given", () => {
    expect(buildAlertBody({ ...DEFAULT_ALERT_OPTIONS, leverage: 3 }, "x").leverage).toBe(3);
    expect(buildAlertBody({ ...DEFAULT_ALERT_OPTIONS }, "x")).not.toHaveProperty("leverage");
    expect(buildAlertBody({ ...DEFAULT_ALERT_OPTIONS, mode: "target", leverage: 3 }, "x")).not.toHaveProperty(
      "leverage",
    );
  });

  test("without dedupe and fire time the fields are left out; the strategy name is kept", () => {
    const { body, parsed } = fire({ ...DEFAULT_ALERT_OPTIONS, dedupe: false, fireTime: false, strategy: "Trend 4h" });
    expect(body).not.toHaveProperty("order_id");
    expect(body).not.toHaveProperty("bar_time");
    expect(body).not.toHaveProperty("timenow");
    expect(ok(parsed).alertId).toBeNull();
    expect(ok(parsed).strategy).toBe("Trend 4h");
  });

  test("the message is pretty JSON in a stable field order", () => {
    expect(buildAlertMessage({ ...DEFAULT_ALERT_OPTIONS, mode: "target", orderType: "limit" }, "abc")).toBe(
      [
        "{",
        '  "secret": "abc",',
        '  "action": "{{strategy.order.action}}",',
        '  "symbol": "{{ticker}}",',
        '  "quantity": "{{strategy.order.contracts}}",',
        '  "order_type": "limit",',
        '  "price": "{{close}}",',
        '  "market_position": "{{strategy.market_position}}",',
        '  "market_position_size": "{{strategy.market_position_size}}",',
        '  "order_id": "{{strategy.order.id}}",',
        '  "bar_time": "{{time}}",',
        '  "timenow": "{{timenow}}"',
        "}",
      ].join("\n"),
    );
  });

  test("every field of the message is explained", () => {
    for (const mode of ALERT_MODES) {
      const options = { ...DEFAULT_ALERT_OPTIONS, mode, orderType: "limit" as const, leverage: 2, strategy: "S" };
      const fields = explainAlertFields(options).map((f) => f.field);
      expect(fields.sort()).toEqual(Object.keys(buildAlertBody(options, "x")).sort());
    }
  });
});

describe("the query string (a plain GET form)", () => {
  test("no parameters: the defaults, dedupe and fire time on", () => {
    const parsed = parseAlertBuilderParams(new URLSearchParams());
    expect(parsed.options).toEqual(DEFAULT_ALERT_OPTIONS);
    expect(parsed.submitted).toBe(false);
    expect(parsed.reveal).toBe(false);
  });

  test("round trip through alertBuilderSearch", () => {
    const options: AlertTemplateOptions = {
      ...DEFAULT_ALERT_OPTIONS,
      mode: "reverse",
      orderType: "limit",
      sizing: "fixed",
      quantity: "0.5",
      leverage: 4,
      symbol: "SOL-PERP",
      direction: "short",
      dedupe: false,
      fireTime: true,
    };
    const parsed = parseAlertBuilderParams(alertBuilderSearch(options, { reveal: true }), { leverageApplies: true });
    expect(parsed.options).toEqual(options);
    expect(parsed.reveal).toBe(true);
    expect(parsed.errors).toEqual({});
  });

  test("a submitted form without the checkboxes turns them off", () => {
    const parsed = parseAlertBuilderParams(new URLSearchParams("alert=1&alert_mode=target"));
    expect(parsed.options.mode).toBe("target");
    expect(parsed.options.dedupe).toBe(false);
    expect(parsed.options.fireTime).toBe(false);
  });

  test("bad values fall back; a bad fixed quantity or leverage is reported", () => {
    const parsed = parseAlertBuilderParams(
      new URLSearchParams(
        "alert=1&alert_mode=nope&alert_order=stop&alert_sizing=fixed&alert_qty=-2&alert_symbol=DOGE&alert_leverage=50",
      ),
      { leverageApplies: true },
    );
    expect(parsed.options).toMatchObject({
      mode: "entry",
      orderType: "market",
      sizing: "fixed",
      quantity: "1",
      symbol: "ticker",
      leverage: 1,
    });
    expect(parsed.errors).toEqual({
      quantity: "Quantity must be greater than 0",
      leverage: "Leverage must be a whole number from 1 to 10",
    });
    // Leverage is not sent at all when the trading config does not apply it.
    expect(parseAlertBuilderParams(new URLSearchParams("alert_leverage=5")).options.leverage).toBeNull();
  });

  test("another prefix keeps two builders apart", () => {
    const parsed = parseAlertBuilderParams(new URLSearchParams("s1_mode=exit&alert_mode=target"), { prefix: "s1" });
    expect(parsed.options.mode).toBe("exit");
  });
});
