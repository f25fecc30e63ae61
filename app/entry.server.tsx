// Server rendering: the whole document is rendered to a buffer (so single fetch, if turned
// on later, still hydrates: STACK-NOTES.md), then the critical emotion CSS is put in <head>.
import { CacheProvider } from "@emotion/react";
import createEmotionServer from "@emotion/server/create-instance";
import CssBaseline from "@mui/material/CssBaseline";
import { ThemeProvider } from "@mui/material/styles";
import type { EntryContext } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { renderToReadableStream } from "react-dom/server.browser";
import { leanStylesheetLink } from "./components/ui/lean-css.server.ts";
import { createEmotionCache } from "./mui/emotion.ts";
import { theme } from "./mui/theme.ts";

const ABORT_DELAY = 10_000;
const INSERTION_POINT = '<meta name="emotion-insertion-point" content="emotion-insertion-point"/>';

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
) {
  const cache = createEmotionCache();
  const { extractCriticalToChunks, constructStyleTagsFromChunks } = createEmotionServer(cache);
  let status = responseStatusCode;
  // Abort a render that hangs; the timer is cleared once the document is complete
  // (aborting a finished render makes React close its stream twice).
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ABORT_DELAY);
  const stream = await renderToReadableStream(
    <CacheProvider value={cache}>
      <ThemeProvider theme={theme}>
        <CssBaseline />
        <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} />
      </ThemeProvider>
    </CacheProvider>,
    {
      signal: controller.signal,
      onError(error: unknown) {
        status = 500;
        console.error(error);
      },
    },
  );
  let html: string;
  try {
    await stream.allReady;
    html = await new Response(stream).text();
  } finally {
    clearTimeout(timer);
  }
  const styles = constructStyleTagsFromChunks(extractCriticalToChunks(html));
  // The lean classes' stylesheet goes last: after React's <head> nodes (hydration tolerates
  // trailing ones) and after emotion's, which the client cache inserts before it.
  html = html.replace(INSERTION_POINT, INSERTION_POINT + styles + leanStylesheetLink());
  if (!html.startsWith("<!DOCTYPE")) html = "<!DOCTYPE html>" + html;
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  return new Response(html, { status, headers: responseHeaders });
}
