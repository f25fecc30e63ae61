// GET /lean.css: the lean components' one stylesheet (components/ui/lean-sheet.ts). Every
// document links it with ?v=<content hash>, so a browser keeps it until the styles change.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { leanStylesheet } from "#app/components/ui/lean-css.server.ts";

export function loader({ request }: LoaderFunctionArgs) {
  const { css, version } = leanStylesheet();
  const asked = new URL(request.url).searchParams.get("v");
  return new Response(css, {
    headers: {
      "Content-Type": "text/css; charset=utf-8",
      "Cache-Control": asked === version ? "public, max-age=31536000, immutable" : "no-cache",
      ETag: `"${version}"`,
    },
  });
}
