// Open redirects after login and registration (issue 10): only same-origin paths pass.
// Issue 23: the decision is taken on the normalised path (dot segments, also encoded, removed
// as a browser removes them), which must start with exactly one "/".
import { describe, expect, test } from "vitest";
import { safeRedirect } from "./safe-redirect.ts";

describe("safeRedirect", () => {
  test.each([
    "/positions",
    "/history?symbol=BTC-PERP",
    "/trade-history#top",
    "/logs?type=auth&level=error",
    "/logs?search=a%2Fb%5Cc",
    "/a%2e/b",
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
    // Issue 23: dot segments that normalise to "//host".
    ["dot segment", "/.//evil.example"],
    ["dot-dot segment", "/x/..//evil.example"],
    ["encoded dot", "/%2e//evil.example"],
    ["encoded dot, upper case", "/%2E//evil.example"],
    ["encoded dot-dot", "/x/%2e%2e//evil.example"],
    ["mixed dot-dot", "/x/.%2e//evil.example"],
    ["dot segments above the root", "/../..//evil.example"],
    ["dot segment then backslash", "/./\\evil.example"],
    ["dot segment then tab", "/.\t//evil.example"],
    ["dot segment then newline", "/./\n/evil.example"],
    ["dot segment then encoded slash", "/./%2F/evil.example"],
    ["dot segment then encoded backslash", "/./%5C/evil.example"],
    ["encoded slash after a slash", "/%2f%2fevil.example"],
    ["absolute URL with our path", "http://localhost:5000/dashboard"],
    ["absolute https URL", "https://evil.example"],
    ["scheme-relative with credentials", "//user@evil.example/"],
    ["login through a dot segment", "/./login"],
    ["two-factor through dot-dot", "/x/../two-factor"],
  ])("refuses %s", (_what, to) => {
    expect(safeRedirect(to)).toBe("/dashboard");
  });

  test.each([
    ["/positions/./", "/positions/"],
    ["/x/../positions", "/positions"],
    ["/%2e/positions?x=1", "/positions?x=1"],
    ["/a/b/../../history#top", "/history#top"],
  ])("returns the normalised path: %s -> %s", (to, expected) => {
    expect(safeRedirect(to)).toBe(expected);
  });

  test("a non-string value (a file in a form) falls back", () => {
    expect(safeRedirect(new File(["x"], "x.txt"))).toBe("/dashboard");
    expect(safeRedirect(null, "/positions")).toBe("/positions");
  });
});
