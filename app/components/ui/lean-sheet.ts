// One global stylesheet for the lean components (components/ui/lean.tsx and the screens that
// use it): plain elements with fixed class names instead of an MUI styled component, and an
// emotion serialization, per element on every server render (docs/benchmarks.md, "Pages
// (T5)"). A module declares its classes once, at import, with MUI's own `sx` vocabulary
// (theme spacing, palette paths, typography variants, breakpoint objects):
//
//   const S = leanSheet("shell", { bar: { position: "fixed", px: 2, display: { md: "none" } } });
//   <header className={S.bar}>
//
// The class names are known on both sides; only the server turns the recipes into CSS
// (./lean-css.server.ts), serves it at /lean.css and links it from every document. Rules come
// out in declaration order, so a later class wins over an earlier one of equal specificity.
import type { SxProps, Theme } from "@mui/material/styles";

export type LeanRecipe = Exclude<SxProps<Theme>, ReadonlyArray<unknown> | ((theme: Theme) => unknown)>;

interface Entry {
  /** ".pd-block-key" for a recipe; null for raw CSS. */
  selector: string | null;
  recipe: LeanRecipe | string;
}

const REGISTRY_KEY = Symbol.for("perpdesk.lean-sheet");
const registry: Map<string, Entry> = ((globalThis as Record<symbol, unknown>)[REGISTRY_KEY] as Map<string, Entry> | undefined) ?? new Map();
(globalThis as Record<symbol, unknown>)[REGISTRY_KEY] = registry;
let generation = 0;

/** Declares `pd-{block}-{key}` classes; returns their names. Declaring a block again replaces it (dev rebuilds). */
export function leanSheet<K extends string>(block: string, recipes: Record<K, LeanRecipe>): Record<K, string> {
  const names = {} as Record<K, string>;
  for (const key of Object.keys(recipes) as K[]) {
    const name = `pd-${block}-${key}`;
    registry.set(name, { selector: `.${name}`, recipe: recipes[key] });
    generation++;
    names[key] = name;
  }
  return names;
}

/** Hand-written rules (the table rows' pd-* classes) under a name, in the same sheet. */
export function leanRawCss(name: string, css: string) {
  registry.set(`raw:${name}`, { selector: null, recipe: css });
  generation++;
}

/** What the server compiles (in declaration order), and a number that changes with it. */
export function leanEntries(): { entries: Entry[]; generation: number } {
  return { entries: [...registry.values()], generation };
}
