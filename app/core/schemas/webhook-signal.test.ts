import { describe, expect, test } from "vitest";
import { parseWebhookSignal } from "./webhook-signal.ts";

describe("parseWebhookSignal: ticker mapping", () => {
  const parse = (symbol: string, strict?: boolean) => parseWebhookSignal({ action: "buy", symbol, quantity: "0.1", order_type: "market" }, { strict });

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
      expect(!parsed.ok && parsed.error).toBe(`symbol ${ticker} is not one of BTC-PERP, ETH-PERP, SOL-PERP, XRP-PERP (strict ticker mapping is on)`);
    }
  });
});
