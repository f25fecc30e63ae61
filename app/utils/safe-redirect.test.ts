// Open redirects after login and registration (issue 10): only same-origin paths pass.
import { describe, expect, test } from "vitest";
import { safeRedirect } from "./auth.server.ts";

describe("safeRedirect", () => {
  test.each([
    "/positions",
    "/history?symbol=BTC-PERP",
    "/trade-history#top",
    "/logs?type=auth&level=error",
  ])("keeps the same-origin path %s", (to) => {
    expect(safeRedirect(to)).toBe(to);
  });

  test.each([
    ["empty", ""],
    ["absolute URL", "https://evil.example/dashboard"],
    ["protocol-relative", "//evil.example"],
    ["tab trick", "/\t/evil.example"],
    ["newline trick", "/\n/evil.example"],
    ["CR trick", "/\r/evil.example"],
    ["backslash", "/\\evil.example"],
    ["backslash after slash", "/\\/evil.example"],
    ["encoded slash", "/%2Fevil.example"],
    ["encoded backslash", "/%5Cevil.example"],
    ["encoded tab", "/%09/evil.example"],
    ["javascript", "javascript:alert(1)"],
    ["data URL", "data:text/html,<script>alert(1)</script>"],
    ["relative without slash", "evil.example"],
    ["NUL", "/\u0000/evil.example"],
    ["DEL", "/\u007f/evil"],
    ["bad percent encoding", "/%E0%A4%A"],
    ["login loop", "/login"],
    ["register", "/register?invite=x"],
    ["logout", "/logout"],
    ["overlong", `/${"a".repeat(3000)}`],
    ["triple slash", "///evil.example"],
  ])("refuses %s", (_what, to) => {
    expect(safeRedirect(to)).toBe("/dashboard");
  });

  test("a non-string value (a file in a form) falls back", () => {
    expect(safeRedirect(new File(["x"], "x.txt"))).toBe("/dashboard");
    expect(safeRedirect(null, "/positions")).toBe("/positions");
  });
});
