import { describe, expect, test } from "vitest";
import { normalizeDecimal } from "../../app/core/decimal.ts";
import { fastNormalizeDecimal } from "./positions.ts";

describe("fastNormalizeDecimal", () => {
  test.each([
    "3400.000000000000000000",
    "3400",
    "0.500000000000000000",
    "0.000000000000000001",
    "0",
    "0.000000000000000000",
    "-0.000000000000000000",
    "-12.340000",
    "1.",
    "00.5",
    ".5",
    "123456789012345678.123456789012345678",
    "1e3",
  ])("%s prints as big.js prints it", (text) => {
    expect(fastNormalizeDecimal(text)).toBe(normalizeDecimal(text));
  });
  test("null, empty and numbers", () => {
    expect(fastNormalizeDecimal(null)).toBeNull();
    expect(fastNormalizeDecimal("")).toBeNull();
    expect(fastNormalizeDecimal(2.5)).toBe("2.5");
  });
});
