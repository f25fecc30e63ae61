// The lean stylesheet: sx recipes resolved against the theme and written as CSS.
import { describe, expect, test } from "vitest";
import { theme } from "#app/mui/theme.ts";
import { leanStylesheet, styleToCss } from "./lean-css.server.ts";
import { leanEntries, leanRawCss, leanSheet } from "./lean-sheet.ts";

describe("styleToCss", () => {
  test("writes declarations in kebab case, px for plain numbers, no unit for unitless ones", () => {
    expect(styleToCss(".a", { marginTop: 8, lineHeight: 1.5, fontWeight: 600, flexGrow: 1, zIndex: 3, opacity: 0, WebkitTapHighlightColor: "transparent" })).toBe(
      ".a{margin-top:8px;line-height:1.5;font-weight:600;flex-grow:1;z-index:3;opacity:0;-webkit-tap-highlight-color:transparent;}",
    );
  });

  test("nests &-selectors (each part of a list), descendants and @media blocks; skips empty values", () => {
    const css = styleToCss(".a", {
      color: "red",
      background: undefined,
      "&:hover": { color: "blue" },
      "& > b, & > i": { margin: 0 },
      span: { padding: 2 },
      "@media (min-width:900px)": { color: "green", "&:hover": { color: "white" } },
    });
    expect(css).toBe(
      ".a{color:red;}.a:hover{color:blue;}.a > b, .a > i{margin:0;}.a span{padding:2px;}@media (min-width:900px){.a{color:green;}.a:hover{color:white;}}",
    );
  });

  test("a descendant list and a rule nested under a list apply to every part, as emotion writes them", () => {
    expect(styleToCss(".a", { "th, td": { padding: 8 } })).toBe(".a th, .a td{padding:8px;}");
    expect(styleToCss(".a", { "& > b, & > i": { "&:hover": { color: "red" } } })).toBe(".a > b:hover, .a > i:hover{color:red;}");
    expect(styleToCss(".a", { "&:not(.b, .c) > p": { margin: 0 } })).toBe(".a:not(.b, .c) > p{margin:0;}");
  });
});

describe("leanSheet", () => {
  test("names classes pd-{block}-{key} and compiles MUI's sx vocabulary with the app's theme", () => {
    const S = leanSheet("test-sheet", { box: { p: 2, color: "text.secondary", typography: "caption", display: { xs: "none", md: "block" } } });
    expect(S.box).toBe("pd-test-sheet-box");
    const { css } = leanStylesheet();
    const rule = css.split("\n").find((line) => line.includes(".pd-test-sheet-box"))!;
    expect(rule).toContain(".pd-test-sheet-box{");
    expect(rule).toContain("padding:16px;");
    expect(rule).toContain(`color:${theme.palette.text.secondary};`);
    expect(rule).toContain(`font-size:${theme.typography.caption.fontSize};`);
    expect(rule).toContain("@media (min-width:0px){.pd-test-sheet-box{display:none;}}");
    expect(rule).toContain("@media (min-width:900px){.pd-test-sheet-box{display:block;}}");
  });

  test("keeps declaration order, includes raw rules, and changes its version when a class changes", () => {
    leanSheet("test-order", { first: { color: "red" }, second: { color: "blue" } });
    leanRawCss("test-raw", ".x{color:black}");
    const before = leanStylesheet();
    expect(before.css.indexOf(".pd-test-order-first")).toBeLessThan(before.css.indexOf(".pd-test-order-second"));
    expect(before.css).toContain(".x{color:black}");
    expect(before.version).toMatch(/^[0-9a-f]{12}$/);
    expect(leanStylesheet().version).toBe(before.version);
    leanSheet("test-order", { first: { color: "green" }, second: { color: "blue" } });
    const after = leanStylesheet();
    expect(after.version).not.toBe(before.version);
    expect(after.css).toContain(".pd-test-order-first{color:green;}");
    expect(leanEntries().entries.filter((e) => e.selector === ".pd-test-order-first")).toHaveLength(1);
  });
});
