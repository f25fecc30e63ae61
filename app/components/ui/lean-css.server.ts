// Compiles the lean classes (./lean-sheet.ts) into one stylesheet, once per process: MUI's
// own sx engine resolves the recipes against the app's theme, and a small serializer writes
// the resulting style objects (nested &-selectors and @media blocks) as CSS.
import { createHash } from "node:crypto";
import { theme } from "#app/mui/theme.ts";
import { leanEntries } from "./lean-sheet.ts";

// CSS properties whose numbers take no unit (the ones a recipe may use).
const UNITLESS = new Set(["lineHeight", "fontWeight", "flex", "flexGrow", "flexShrink", "opacity", "zIndex", "order", "zoom"]);

const kebab = (key: string) => (key.startsWith("--") ? key : key.replace(/^(Webkit|Moz|ms)/, (m) => `-${m.toLowerCase()}`).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`));

function value(key: string, v: string | number): string {
  return typeof v === "number" && v !== 0 && !UNITLESS.has(key) ? `${v}px` : String(v);
}

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

/** A resolved style object as CSS rules for `selector`. */
export function styleToCss(selector: string, style: Record<string, unknown>): string {
  let own = "";
  let nested = "";
  for (const [key, v] of Object.entries(style)) {
    if (v === undefined || v === null || v === false) continue;
    if (typeof v === "object") {
      const inner = v as Record<string, unknown>;
      if (key.startsWith("@")) nested += `${key}{${styleToCss(selector, inner)}}`;
      else nested += styleToCss(nest(selector, key), inner);
    } else {
      own += `${kebab(key)}:${value(key, v as string | number)};`;
    }
  }
  return (own ? `${selector}{${own}}` : "") + nested;
}

let compiled: { css: string; version: string; generation: number } | null = null;

/** The whole sheet and a short content hash for its URL; recompiled when classes were added. */
export function leanStylesheet(): { css: string; version: string } {
  const { entries, generation } = leanEntries();
  if (compiled?.generation === generation) return compiled;
  const css = entries
    .map((e) => (e.selector === null ? (e.recipe as string) : styleToCss(e.selector, theme.unstable_sx(e.recipe as never) as Record<string, unknown>)))
    .join("\n");
  compiled = { css, version: createHash("sha256").update(css).digest("hex").slice(0, 12), generation };
  return compiled;
}

/** The <link> every document carries (entry.server.tsx). */
export function leanStylesheetLink(): string {
  return `<link rel="stylesheet" href="/lean.css?v=${leanStylesheet().version}"/>`;
}
