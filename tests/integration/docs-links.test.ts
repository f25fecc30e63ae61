// The repository cites only what it holds (issue 24): no file cites the external documents the
// project started from (the product's own spec is docs/spec/), every relative markdown link in
// docs/ and README.md resolves to a file, and every decision carries its Status line
// (docs/decisions/TEMPLATE.md). Pure file reads: no database, no server.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SKIP_DIRS = new Set(["node_modules", "build", ".cache", "test-results", "data"]);
const TEXT = /\.(ts|tsx|js|mjs|cjs|md|json|css|html)$/;

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP_DIRS.has(name) || name.startsWith(".")) continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (TEXT.test(name)) out.push(full);
  }
  return out;
}

const rel = (file: string) => path.relative(ROOT, file);

// Built from parts so that this file does not cite them itself.
const EXTERNAL = ["SPEC", "DESIGN", "COINBASE", "PERF-RELIABILITY", "STACK-NOTES"].map((name) => `${name}.md`);
const CITATION = new RegExp(`\\b(${EXTERNAL.map((n) => n.replace(/[.-]/g, "\\$&")).join("|")})`);

describe("citations", () => {
  test("no file cites a document outside the repository (cite docs/spec/ or docs/decisions/ instead)", () => {
    const files = [
      ...["app", "exchange", "reports", "worker", "db", "scripts", "bench", "tests", "docs"].flatMap((dir) =>
        walk(path.join(ROOT, dir)),
      ),
      ...readdirSync(ROOT)
        .filter((name) => TEXT.test(name))
        .map((name) => path.join(ROOT, name)),
    ].filter((file) => !file.endsWith("package-lock.json"));
    const hits: string[] = [];
    for (const file of files) {
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (CITATION.test(line)) hits.push(`${rel(file)}:${i + 1}: ${line.trim().slice(0, 120)}`);
        });
    }
    expect(hits).toEqual([]);
  });

  test("every docs/spec/… or docs/decisions/… file a comment or document names exists", () => {
    const files = ["app", "exchange", "reports", "worker", "db", "scripts", "bench", "tests", "docs"]
      .flatMap((dir) => walk(path.join(ROOT, dir)))
      .concat(path.join(ROOT, "README.md"));
    const missing: string[] = [];
    for (const file of files) {
      for (const match of readFileSync(file, "utf8").matchAll(/docs\/(?:spec|decisions)\/[\w.-]+\.md/g)) {
        if (!existsSync(path.join(ROOT, match[0]))) missing.push(`${rel(file)}: ${match[0]}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe("markdown links", () => {
  test("every relative link in docs/ and README.md points to a file or folder that exists, and its #anchor to a heading", () => {
    const files = [
      ...walk(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")),
      path.join(ROOT, "README.md"),
      path.join(ROOT, "bench/README.md"),
    ];
    const broken: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, "utf8").replace(/```[\s\S]*?```/g, "");
      for (const match of text.matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = match[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) continue; // http:, mailto:
        const [filePart, anchor] = target.split("#", 2) as [string, string | undefined];
        const resolved = filePart ? path.resolve(path.dirname(file), decodeURIComponent(filePart)) : file;
        if (!existsSync(resolved)) {
          broken.push(`${rel(file)}: ${target} (no such file)`);
          continue;
        }
        if (anchor && resolved.endsWith(".md") && !anchorsOf(resolved).has(anchor.toLowerCase())) {
          broken.push(`${rel(file)}: ${target} (no heading #${anchor})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  for (const line of readFileSync(file, "utf8")
    .replace(/```[\s\S]*?```/g, "")
    .split("\n")) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    anchors.add(
      heading[1]!
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, "")
        .replace(/\s/g, "-"),
    );
  }
  return anchors;
}

describe("decisions", () => {
  test("every decision has a Status line: proposed, accepted or superseded by NNN, with its date", () => {
    const dir = path.join(ROOT, "docs/decisions");
    const missing = readdirSync(dir)
      .filter((name) => /^\d{3}-.*\.md$/.test(name))
      .filter(
        (name) =>
          !/^Status: (proposed|accepted|superseded by \d{3}) · \d{4}-\d{2}-\d{2}( · issue \d+.*)?$/m.test(
            readFileSync(path.join(dir, name), "utf8"),
          ),
      );
    expect(missing).toEqual([]);
  });
});
