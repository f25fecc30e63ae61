import { describe, expect, test } from "vitest";
import { parseWebhookSignal } from "./webhook-signal.ts";

describe("parseWebhookSignal: ticker mapping", () => {
  const parse = (symbol: string, strict?: boolean) =>
    parseWebhookSignal({ action: "buy", symbol, quantity: "0.1", order_type: "market" }, { strict });

  test("TradingView tickers map to the perpetual of their base asset", () => {
    for (const ticker of ["BINANCE:ETHUSDT", "ETHUSDT.P", "ETH-PERP", "eth-perp"]) {
      const parsed = parse(ticker);
      expect(parsed.ok && parsed.signal.symbol).toBe("ETH-PERP");
    }
    expect(parse("DOGEUSDT")).toMatchObject({ ok: false, field: "symbol" });
  });

  test("strict: only the products' own symbols, every other ticker refused with the reason", () => {
    const exact = parse(" eth-perp ", true);
    expect(exact.ok && exact.signal.symbol).toBe("ETH-PERP");
    for (const ticker of ["BINANCE:ETHUSDT", "ETHUSDT.P", "BTCUSD"]) {
      const parsed = parse(ticker, true);
      expect(parsed.ok).toBe(false);
      expect(!parsed.ok && parsed.error).toBe(
        `symbol ${ticker} is not one of BTC-PERP, ETH-PERP, SOL-PERP, XRP-PERP (strict ticker mapping is on)`,
      );
    }
  });
});

describe("parseWebhookSignal: TradingView strategy fields", () => {
  const base = { action: "buy", symbol: "ETH-PERP", quantity: "1", order_type: "market" };
  test("market_position and market_position_size become the target; flat or size 0 is flat", () => {
    const long = parseWebhookSignal({ ...base, market_position: "Long", market_position_size: "2" });
    expect(long.ok && long.signal.target).toEqual({ side: "long", size: "2" });
    const flat = parseWebhookSignal({ ...base, market_position: "flat", market_position_size: "5" });
    expect(flat.ok && flat.signal.target).toEqual({ side: "flat", size: "0" });
    const zero = parseWebhookSignal({ ...base, market_position: "short", market_position_size: 0 });
    expect(zero.ok && zero.signal.target).toEqual({ side: "flat", size: "0" });
    const none = parseWebhookSignal(base);
    expect(none.ok && none.signal.target).toBeNull();
  });

  test("a bad target names its field", () => {
    expect(parseWebhookSignal({ ...base, market_position: "sideways" })).toMatchObject({
      ok: false,
      field: "market_position",
    });
    expect(parseWebhookSignal({ ...base, market_position: "long" })).toMatchObject({
      ok: false,
      field: "market_position_size",
    });
    expect(parseWebhookSignal({ ...base, market_position: "long", market_position_size: "-1" })).toMatchObject({
      ok: false,
      field: "market_position_size",
    });
  });

  test("order_id with bar_time names the alert (dedupe) when it carries no id", () => {
    const parsed = parseWebhookSignal({ ...base, order_id: "Long", bar_time: "2026-11-25T10:00:00Z" });
    expect(parsed.ok && parsed.signal.alertId).toBe("order:Long@2026-11-25T10:00:00Z");
    const withId = parseWebhookSignal({ ...base, id: "a1", order_id: "Long" });
    expect(withId.ok && withId.signal.alertId).toBe("a1");
  });
});
