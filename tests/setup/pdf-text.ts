// Reads the text a PDF shows, for tests: inflates each content stream and decodes the
// strings of its text operators (pdf-lib writes standard-font text as hex strings).
import { inflateSync } from "node:zlib";

export function pdfText(bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes);
  const latin = buffer.toString("latin1");
  const parts: string[] = [];
  const re = /stream\r?\n/g;
  let match: RegExpExecArray | null;
  while ((match = re.exec(latin))) {
    const start = match.index + match[0].length;
    const end = latin.indexOf("endstream", start);
    if (end < 0) break;
    const dictStart = latin.lastIndexOf("<<", match.index);
    const dict = latin.slice(dictStart, match.index);
    let raw = buffer.subarray(start, end);
    let content: string;
    try {
      content = dict.includes("/FlateDecode") ? inflateSync(raw).toString("latin1") : raw.toString("latin1");
    } catch {
      raw = buffer.subarray(start, end - 1); // a trailing EOL before endstream
      try {
        content = inflateSync(raw).toString("latin1");
      } catch {
        continue;
      }
    }
    for (const t of content.matchAll(/<([0-9A-Fa-f]*)>\s*Tj|\(((?:\\.|[^\\)])*)\)\s*Tj/g)) {
      parts.push(t[1] !== undefined ? Buffer.from(t[1], "hex").toString("latin1") : t[2]!.replace(/\\(.)/g, "$1"));
    }
    re.lastIndex = end + "endstream".length;
  }
  return parts.join("\n");
}
