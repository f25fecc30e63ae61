import { CacheProvider } from "@emotion/react";
import CssBaseline from "@mui/material/CssBaseline";
import { ThemeProvider } from "@mui/material/styles";
import { RemixBrowser } from "@remix-run/react";
import { type ReactNode, StrictMode, startTransition, useState } from "react";
import { hydrateRoot } from "react-dom/client";
import { ClientStyleContext, createEmotionCache } from "./mui/emotion.ts";
import { theme } from "./mui/theme.ts";

function ClientCacheProvider({ children }: { children: ReactNode }) {
  const [cache, setCache] = useState(createEmotionCache);
  return (
    <ClientStyleContext.Provider value={{ reset: () => setCache(createEmotionCache()) }}>
      <CacheProvider value={cache}>{children}</CacheProvider>
    </ClientStyleContext.Provider>
  );
}

startTransition(() => {
  hydrateRoot(
    document,
    <StrictMode>
      <ClientCacheProvider>
        <ThemeProvider theme={theme}>
          <CssBaseline />
          <RemixBrowser />
        </ThemeProvider>
      </ClientCacheProvider>
    </StrictMode>,
  );
});
