import createCache from "@emotion/cache";
import { createContext } from "react";

/** On the client, new styles go right after the server's <meta name="emotion-insertion-point">. */
export function createEmotionCache() {
  let insertionPoint: HTMLElement | undefined;
  if (typeof document !== "undefined") {
    insertionPoint = document.querySelector<HTMLMetaElement>('meta[name="emotion-insertion-point"]') ?? undefined;
  }
  return createCache({ key: "css", insertionPoint });
}

export interface ClientStyleContextData {
  reset: () => void;
}

export const ClientStyleContext = createContext<ClientStyleContextData>({ reset: () => {} });
