// Build-time class sheets for the *.css.ts files: a block of classes written in MUI's own
// `sx` vocabulary (theme spacing, palette paths, typography variants, breakpoint objects),
// resolved by MUI's sx engine against the app's theme while the Remix compiler evaluates the
// .css.ts file, and emitted by vanilla-extract into the one static CSS bundle. Palette paths
// become the theme's CSS variables (./theme.css.ts). Nothing runs per request or per process.
//
//   // app-shell.css.ts
//   export const S = sheet("shell", { bar: { position: "fixed", px: 2, display: { md: "none" } } });
//   // app-shell.tsx
//   import { S } from "./app-shell.css.ts";  <header className={S.bar}>
//
// A nested key (`&:hover`, `& > label`, `@media …`) becomes its own rule after the class's,
// as emotion writes it.
import { globalStyle, style } from "@vanilla-extract/css";
import type { SxProps, Theme } from "@mui/material/styles";
import { theme } from "../mui/theme.ts";
import { vars } from "./theme.css.ts";

export type Recipe = Exclude<SxProps<Theme>, ReadonlyArray<unknown> | ((theme: Theme) => unknown)>;
type Declarations = Record<string, string>;
type Rule = { selector: string; media: string | null; declarations: Declarations };

// The theme the recipes resolve against: the real one, its palette's colours as variables.
const cssVarTheme = { ...theme, palette: deepMerge(theme.palette, vars.palette) } as Theme;

function deepMerge<T extends object>(base: T, over: object): T {
  const out = { ...base } as Record<string, unknown>;
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] =
      value && typeof value === "object" && current && typeof current === "object"
        ? deepMerge(current as object, value)
        : value;
  }
  return out as T;
}

// CSS properties whose numbers take no unit (the ones a recipe may use).
const UNITLESS = new Set([
  "lineHeight",
  "fontWeight",
  "flex",
  "flexGrow",
  "flexShrink",
  "opacity",
  "zIndex",
  "order",
  "zoom",
]);
const cssValue = (key: string, v: string | number) =>
  typeof v === "number" && v !== 0 && !UNITLESS.has(key) ? `${v}px` : String(v);

/** A selector list's parts (commas inside parentheses, as in `:not(a, b)`, do not split). */
function parts(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) {
      out.push(list.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(list.slice(start).trim());
  return out;
}

/** A nested key under `parent`, as emotion does it: each part of each list, `&` or a descendant. */
function nest(parent: string, key: string): string {
  return parts(parent)
    .flatMap((p) => parts(key).map((k) => (k.includes("&") ? k.replaceAll("&", p) : `${p} ${k}`)))
    .join(", ");
}

/** A resolved style object as flat rules, in emotion's order: own declarations, then nested ones. */
function flatten(selector: string, media: string | null, styles: Record<string, unknown>, out: Rule[]) {
  const declarations: Declarations = {};
  const nested: [string, Record<string, unknown>][] = [];
  for (const [key, v] of Object.entries(styles)) {
    if (v === undefined || v === null || v === false) continue;
    if (typeof v === "object") nested.push([key, v as Record<string, unknown>]);
    else declarations[key] = cssValue(key, v as string | number);
  }
  if (Object.keys(declarations).length > 0) out.push({ selector, media, declarations });
  for (const [key, inner] of nested) {
    if (key.startsWith("@media")) flatten(selector, key.slice("@media".length).trim(), inner, out);
    else flatten(nest(selector, key), media, inner, out);
  }
}

/** vanilla-extract's form of declarations: custom properties go under `vars`. */
function veStyle(declarations: Declarations) {
  const own: Record<string, string> = {};
  const custom: Record<string, string> = {};
  for (const [key, v] of Object.entries(declarations)) (key.startsWith("--") ? custom : own)[key] = v;
  return Object.keys(custom).length > 0 ? { ...own, vars: custom } : own;
}

/** Visually hidden, still read by screen readers (a caption, a link's name, a table's head row on a phone). */
export const VISUALLY_HIDDEN = {
  position: "absolute",
  width: "1px",
  height: "1px",
  m: "-1px",
  p: 0,
  overflow: "hidden",
  clip: "rect(0 0 0 0)",
  whiteSpace: "nowrap",
  border: 0,
} as const;

const SELF = ".__self__";

/** One class per recipe, named `{block}_{key}__{hash}`; the rules resolved at build time. */
export function sheet<K extends string>(block: string, recipes: Record<K, Recipe>): Record<K, string> {
  const names = {} as Record<K, string>;
  for (const key of Object.keys(recipes) as K[]) {
    const rules: Rule[] = [];
    flatten(SELF, null, cssVarTheme.unstable_sx(recipes[key] as never) as Record<string, unknown>, rules);
    const [first, ...rest] = rules[0]?.selector === SELF && rules[0].media === null ? rules : [undefined, ...rules];
    const name = style(first ? (veStyle(first.declarations) as never) : {}, `${block}-${key}`);
    for (const rule of rest) {
      if (!rule) continue;
      const declarations = veStyle(rule.declarations);
      globalStyle(
        rule.selector.replaceAll(SELF, `.${name}`),
        (rule.media ? { "@media": { [rule.media]: declarations } } : declarations) as never,
      );
    }
    names[key] = name;
  }
  return names;
}
