// The app's MUI theme as CSS variables, declared once on :root at build time. Every colour a
// static stylesheet (*.css.ts) takes from the palette is `var(--palette-…)`, so the palette
// has one source (app/mui/theme.ts) and the CSS follows it without a rebuild of each rule.
import { createGlobalTheme } from "@vanilla-extract/css";
import { theme } from "../mui/theme.ts";

type Tree = { [key: string]: string | Tree };
/** The palette's shape with only its colours: what `vars.palette` offers, each a `var(--…)`. */
type Colours<T> = {
  [K in keyof T as T[K] extends string
    ? K
    : T[K] extends (...args: never[]) => unknown
      ? never
      : T[K] extends object
        ? K
        : never]: T[K] extends string ? string : Colours<T[K]>;
};

/** The palette's string leaves (colours), nested as in the theme; numbers and functions are not colours. */
function colours(node: object): Tree {
  const out: Tree = {};
  for (const [key, value] of Object.entries(node)) {
    if (typeof value === "string") out[key] = value;
    else if (value && typeof value === "object") {
      const inner = colours(value);
      if (Object.keys(inner).length > 0) out[key] = inner;
    }
  }
  return out;
}

export const vars = createGlobalTheme(":root", { palette: colours(theme.palette) } as never) as unknown as {
  palette: Colours<typeof theme.palette>;
};
