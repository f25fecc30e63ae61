import { withEmotionCache } from "@emotion/react";
import Box from "@mui/material/Box";
import { unstable_useEnhancedEffect as useEnhancedEffect } from "@mui/material/utils";
import { type LoaderFunctionArgs, type MetaFunction, json } from "@remix-run/node";
import { cssBundleHref } from "@remix-run/css-bundle";
import "./styles/rows.css.ts";
import { Links, Meta, Outlet, Scripts, ScrollRestoration, useLoaderData } from "@remix-run/react";
import { type ReactNode, useContext } from "react";
import { GeneralErrorBoundary } from "./components/error-boundary.tsx";
import { ToastProvider } from "./components/toaster.tsx";
import { listedExtras, setCatalog } from "./core/products.ts";
import { ClientStyleContext } from "./mui/emotion.ts";
import { getUser } from "./services/sessions.server.ts";
import { useNonce } from "./utils/nonce.ts";
import { getToast } from "./utils/toast.server.ts";

export const PLATFORM_NAME = "PerpDesk";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const [user, { toast, headers }] = await Promise.all([getUser(request, context), getToast(request, context)]);
  // The products beyond the built-in four (decision 051), so the browser's forms and schemas
  // know every symbol the server does (nothing is sent while Coinbase's list was never read).
  const products = listedExtras();
  return json({ user, toast, ...(products.length ? { products } : {}) }, { headers: headers ?? undefined });
}

export const meta: MetaFunction = () => [{ title: `${PLATFORM_NAME} · Futures Trading Automation` }];

// The static stylesheet vanilla-extract builds from the *.css.ts files (app/styles/sheet.ts).
export const links = () => [
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
  ...(cssBundleHref ? [{ rel: "stylesheet", href: cssBundleHref }] : []),
];

const Document = withEmotionCache(({ children }: { children: ReactNode }, emotionCache) => {
  const clientStyleData = useContext(ClientStyleContext);
  const nonce = useNonce();
  // After hydration, hand the server's style tags to the client cache (MUI's Remix example).
  useEnhancedEffect(() => {
    emotionCache.sheet.container = document.head;
    const tags = emotionCache.sheet.tags;
    emotionCache.sheet.flush();
    for (const tag of tags)
      (emotionCache.sheet as unknown as { _insertTag: (t: HTMLStyleElement) => void })._insertTag(tag);
    clientStyleData.reset();
  }, []);
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <meta name="color-scheme" content="dark" />
        <Meta />
        <Links />
        {/* Last in <head>: the server puts the critical CSS after it, and React 18 tolerates
            extra trailing nodes in <head> during hydration, but not nodes in the middle. */}
        <meta name="emotion-insertion-point" content="emotion-insertion-point" />
      </head>
      <body>
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
});

export default function App() {
  const { toast, products } = useLoaderData<typeof loader>();
  // In the browser only: the server's catalog is the stored one already.
  if (typeof document !== "undefined") setCatalog(products ?? []);
  return (
    <Document>
      <ToastProvider serverToast={toast}>
        <Outlet />
      </ToastProvider>
    </Document>
  );
}

export function ErrorBoundary() {
  return (
    <Document>
      <Box sx={{ p: 4 }}>
        <GeneralErrorBoundary />
      </Box>
    </Document>
  );
}
