// The page's emotion CSS as a linked file (decision 043): the CSS MUI's components need, as
// `public/build/emotion/<sha256 prefix>.css` (served under /build/ with the one-year immutable
// cache) instead of 20-50 KB of <style> in every document. Any web process writes the same bytes
// under the same name (written aside, then renamed). If the folder cannot be written, the CSS
// goes inline as before.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";

/** What @emotion/server's extractCriticalToChunks returns, the part read here. */
export interface EmotionChunks {
  styles: { key: string; ids: string[]; css: string }[];
}

/** Most sets of style ids whose file name is remembered (the screens show a few dozen). */
const MAX_NAMES = 1000;

/**
 * `link(chunks, inline)`: the `<link>` to the file holding the chunks' CSS, or `inline(chunks)`
 * (style tags) when there is no CSS or the folder cannot be written.
 *
 * An emotion style id is the hash of its serialized style, so the same ids are the same CSS: the
 * file's name is remembered per set of ids, and a page hashes its ids (a few hundred bytes)
 * instead of its CSS (20-50 KB, a sha256 on every page before).
 */
export function emotionFiles(dir: string, urlPrefix = "/build/emotion/") {
  const namesByIds = new Map<string, string>();
  let writable = true;
  const cssOf = (chunks: EmotionChunks) => chunks.styles.map((style) => style.css).join("");

  return function link<C extends EmotionChunks>(chunks: C, inline: (chunks: C) => string): string {
    if (!writable) return inline(chunks);
    const ids = chunks.styles.map((style) => `${style.key}:${style.ids.join(",")}`).join("|");
    let name = namesByIds.get(ids);
    if (name === undefined) {
      const css = cssOf(chunks);
      if (css.length === 0) return inline(chunks);
      name = `${createHash("sha256").update(css).digest("hex").slice(0, 16)}.css`;
      if (namesByIds.size >= MAX_NAMES) namesByIds.clear();
      namesByIds.set(ids, name);
    }
    const file = path.join(dir, name);
    // A stat per page (a rebuild may have emptied public/build): microseconds.
    if (!existsSync(file)) {
      try {
        mkdirSync(dir, { recursive: true });
        const aside = `${file}.${process.pid}.tmp`;
        writeFileSync(aside, cssOf(chunks));
        renameSync(aside, file);
      } catch {
        writable = false;
        return inline(chunks);
      }
    }
    return `<link rel="stylesheet" href="${urlPrefix}${name}"/>`;
  };
}
