// The Content-Security-Policy nonce of the page being rendered: entry.server makes one per
// document, sends it in the header, and root.tsx gives it to Remix's inline scripts. On the
// client it is empty (browsers hide the attribute; React does not compare it on hydration).
import { createContext, useContext } from "react";

export const NonceContext = createContext("");
export const useNonce = () => useContext(NonceContext);

/** The policy for documents: scripts only from this origin or with the page's nonce. */
export function documentPolicy(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    // MUI's emotion injects <style> tags at run time; inline styles stay allowed.
    "style-src 'self' 'unsafe-inline'",
    // The 2FA QR code is a data: image.
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
