import { describe, expect, test } from "vitest";
import { LIVE_PRICE_SOURCE, acceptsSource, judgePrice, sourceLabel } from "./price-source.ts";

describe("which prices the rules may act on", () => {
  const now = 1_000_000;
  test("live Coinbase: only its futures prices, fresh", () => {
    expect(judgePrice({ source: LIVE_PRICE_SOURCE, updatedAt: now - 15_000 }, "coinbase", now)).toEqual({
      usable: true,
      reason: null,
    });
    expect(judgePrice({ source: LIVE_PRICE_SOURCE, updatedAt: now - 15_001 }, "coinbase", now)).toEqual({
      usable: false,
      reason: "the last price is 15 s old (limit 15 s)",
    });
    for (const source of ["coinbase", "random-walk", "manual"]) {
      expect(judgePrice({ source, updatedAt: now }, "coinbase", now).usable).toBe(false);
    }
    expect(judgePrice({ source: "random-walk", updatedAt: now }, "coinbase", now).reason).toBe(
      "the last price comes from simulated prices (random walk, offline simulator), not Coinbase's futures market",
    );
    expect(judgePrice(null, "coinbase", now)).toEqual({ usable: false, reason: "no price yet" });
  });

  test("the simulator: its feed (spot or walk), never the live futures prices; the age limit is a parameter", () => {
    expect(acceptsSource("simulator", "coinbase")).toBe(true);
    expect(acceptsSource("simulator", "random-walk")).toBe(true);
    expect(acceptsSource("simulator", LIVE_PRICE_SOURCE)).toBe(false);
    expect(judgePrice({ source: "random-walk", updatedAt: now - 4_000 }, "simulator", now, 3_000).usable).toBe(false);
    expect(judgePrice({ source: "random-walk", updatedAt: now - 4_000 }, "simulator", now, 5_000).usable).toBe(true);
  });

  test("labels name the random walk wherever a price is shown", () => {
    expect(sourceLabel("random-walk")).toMatch(/random walk/);
    expect(sourceLabel("coinbase")).toBe("Coinbase public spot prices");
    expect(sourceLabel(LIVE_PRICE_SOURCE)).toBe("Coinbase futures prices");
  });
});
