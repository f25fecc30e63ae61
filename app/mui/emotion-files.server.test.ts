// The page's emotion CSS as a file named by its hash (decision 043): one file per set of styles,
// the name remembered per set of style ids, a missing file written again, inline when unwritable.
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { type EmotionChunks, emotionFiles } from "./emotion-files.server.ts";

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const chunks = (...styles: [string, string[], string][]): EmotionChunks => ({
  styles: styles.map(([key, ids, css]) => ({ key, ids, css })),
});
const page = () =>
  chunks(["css-global", ["g1"], "body{margin:0}"], ["css", ["a1", "b2"], ".css-a1{color:red}.css-b2{padding:0}"]);
const nameOf = (css: string) => `${createHash("sha256").update(css).digest("hex").slice(0, 16)}.css`;
const inline = () => "<style>inline</style>";

describe("emotionFiles", () => {
  test("links one file named by the hash of the page's CSS, holding that CSS", () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "emotion-files-"));
    const link = emotionFiles(path.join(dir, "emotion"));
    const css = "body{margin:0}.css-a1{color:red}.css-b2{padding:0}";
    expect(link(page(), inline)).toBe(`<link rel="stylesheet" href="/build/emotion/${nameOf(css)}"/>`);
    expect(readFileSync(path.join(dir, "emotion", nameOf(css)), "utf8")).toBe(css);
    // The same styles again: the same file, nothing more written.
    expect(link(page(), inline)).toBe(`<link rel="stylesheet" href="/build/emotion/${nameOf(css)}"/>`);
    expect(readdirSync(path.join(dir, "emotion"))).toEqual([nameOf(css)]);
  });

  test("another set of styles is another file; a file removed (a rebuild) is written again", () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "emotion-files-"));
    const folder = path.join(dir, "emotion");
    const link = emotionFiles(folder);
    link(page(), inline);
    const other = chunks(["css", ["a1"], ".css-a1{color:red}"]);
    expect(link(other, inline)).toContain(nameOf(".css-a1{color:red}"));
    expect(readdirSync(folder).sort()).toEqual(
      [nameOf("body{margin:0}.css-a1{color:red}.css-b2{padding:0}"), nameOf(".css-a1{color:red}")].sort(),
    );
    rmSync(folder, { recursive: true });
    link(other, inline);
    expect(readFileSync(path.join(folder, nameOf(".css-a1{color:red}")), "utf8")).toBe(".css-a1{color:red}");
  });

  test("no CSS, or a folder that cannot be written: the styles go inline", () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "emotion-files-"));
    const link = emotionFiles(path.join(dir, "emotion"));
    expect(link(chunks(["css", [], ""]), inline)).toBe("<style>inline</style>");
    // A file where the folder should be: not writable even as root.
    writeFileSync(path.join(dir, "taken"), "");
    const blocked = emotionFiles(path.join(dir, "taken", "emotion"));
    expect(blocked(page(), inline)).toBe("<style>inline</style>");
    expect(blocked(page(), inline)).toBe("<style>inline</style>");
  });
});
