// Server rendering: the whole document is rendered to one string (renderToString: the app
// streams nothing and defers nothing, and a string skips the stream's encode and decode,
// ~10 % of a page's render), then the critical emotion CSS is linked from <head> as a file named by its hash (decision 043). If Remix's single fetch (v3_singleFetch) is ever turned on, this must go
// back to renderToReadableStream + allReady: single fetch streams loader data through a
// Suspense boundary that renderToString never resolves, and pages would not hydrate
// (docs/decisions/014-page-rendering.md).
import { CacheProvider } from "@emotion/react";
import createEmotionServer from "@emotion/server/create-instance";
import CssBaseline from "@mui/material/CssBaseline";
import { ThemeProvider } from "@mui/material/styles";
import type { AppLoadContext, EntryContext } from "@remix-run/node";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { RemixServer } from "@remix-run/react";
import { renderToString } from "react-dom/server.browser";
import { getStatsLedger, statsCacheCounters } from "./services/statistics.server.ts";
import { createEmotionCache } from "./mui/emotion.ts";
import { emotionFiles } from "./mui/emotion-files.server.ts";
import { theme } from "./mui/theme.ts";
import { NonceContext, documentPolicy } from "./utils/nonce.ts";

const INSERTION_POINT = '<meta name="emotion-insertion-point" content="emotion-insertion-point"/>';

// One emotion cache for the process (decision 043): emotion compiles each distinct style (stylis)
// when it is first inserted into a cache, so a fresh cache per request compiled every MUI
// component's CSS on every page; a shared one compiles each once. The page's CSS is still only
// what its HTML uses (extractCriticalToChunks picks the classes it finds in the markup, plus the
// global styles). The styles are a fixed set (the components and their variants), so it stays small.
const emotionCache = createEmotionCache();
const emotion = { cache: emotionCache, ...createEmotionServer(emotionCache) };

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
) {
  const { cache, extractCriticalToChunks, constructStyleTagsFromChunks } = emotion;
  // A fresh nonce per document: only Remix's own inline scripts carry it (docs/security.md).
  const nonce = randomBytes(16).toString("base64");
  let html = renderToString(
    <NonceContext.Provider value={nonce}>
      <CacheProvider value={cache}>
        <ThemeProvider theme={theme}>
          <CssBaseline />
          <RemixServer context={remixContext} url={request.url} nonce={nonce} />
        </ThemeProvider>
      </CacheProvider>
    </NonceContext.Provider>,
  );
  html = html.replace(
    INSERTION_POINT,
    INSERTION_POINT + emotionStyles(extractCriticalToChunks(html), constructStyleTagsFromChunks),
  );
  if (!html.startsWith("<!DOCTYPE")) html = `<!DOCTYPE html>${html}`;
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  responseHeaders.set("Content-Security-Policy", documentPolicy(nonce));
  return new Response(html, { status: responseStatusCode, headers: responseHeaders });
}

// The page's emotion CSS is a linked file named by its hash (decision 043).
const emotionStyles = emotionFiles(path.resolve("public/build/emotion"));

/**
 * Called by server.ts once the web process listens: builds what the first pages would
 * otherwise build while a user waits (the statistics ledger, a full pass over every fill:
 * ~0.3 s at 10,000 trades). It lives here because the Remix build
 * holds its own copy of these modules' caches.
 */
export async function warmUp(context: Pick<AppLoadContext, "db">) {
  await getStatsLedger(context.db);
  return { statistics: statsCacheCounters(context.db) };
}
