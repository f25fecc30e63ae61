// GET /lean.css: the lean components' one stylesheet (components/ui/lean-sheet.ts). Every
// document links it with ?v=<content hash>, so a browser keeps it until the styles change.
// Any other URL is "no-cache": the browser revalidates with its ETag and gets a 304.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { leanStylesheet } from "#app/components/ui/lean-css.server.ts";

export function loader({ request }: LoaderFunctionArgs) {
  const { css, version } = leanStylesheet();
  const asked = new URL(request.url).searchParams.get("v");
  const etag = `"${version}"`;
  const headers = {
    "Content-Type": "text/css; charset=utf-8",
    "Cache-Control": asked === version ? "public, max-age=31536000, immutable" : "no-cache",
    ETag: etag,
  };
  const known = request.headers.get("If-None-Match")?.split(",").map((t) => t.trim().replace(/^W\//, ""));
  if (known?.includes(etag) || known?.includes("*")) return new Response(null, { status: 304, headers });
  return new Response(css, { headers });
}
