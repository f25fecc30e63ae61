// Where a form or a login may send the browser next: same-origin paths only (docs/security.md, "Redirects").

/**
 * Only same-origin paths are followed after login, the second login step, registration and
 * the Positions forms' `back` field (docs/security.md, "Redirects"). The decision is taken on
 * the NORMALISED result, the one returned: the input is resolved against the app's origin
 * as a browser would (dot segments, also percent-encoded ones, are removed: "/.//evil.example",
 * "/x/..//evil.example" and "/%2e//evil.example" all become "//evil.example"), and passes only
 * when it stays on our origin and its path starts with exactly one "/" (not "//", not "/\\",
 * not their encoded forms). Also refused: input that is not a "/" path, control characters
 * anywhere (a browser drops tab, CR and LF, so "/\t/evil.example" would become
 * "//evil.example"), backslashes (read as "/"), and the auth pages themselves.
 */
export function safeRedirect(to: FormDataEntryValue | string | null | undefined, fallback = "/dashboard"): string {
  if (!to || typeof to !== "string" || to.length > 2048 || !to.startsWith("/")) return fallback;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  const unsafeCharacters = /[\u0000-\u001f\u007f\\]/;
  if (unsafeCharacters.test(to)) return fallback;
  const base = "http://same.origin.invalid";
  const normalise = (value: string): URL | null => {
    try {
      const url = new URL(value, base);
      return url.origin === base ? url : null;
    } catch {
      return null;
    }
  };
  const url = normalise(to);
  if (!url) return fallback;
  const path = url.pathname + url.search + url.hash;
  if (!path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) return fallback;
  // The path as a server or proxy that decodes it would read it: no "//" or "/\\" hidden in
  // "%2F" / "%5C", no encoded control characters.
  let decoded: string;
  try {
    decoded = decodeURIComponent(url.pathname);
  } catch {
    return fallback;
  }
  if (unsafeCharacters.test(decoded) || decoded.startsWith("//")) return fallback;
  // What the browser resolves the Location to must be this very path (no second normalisation).
  const again = normalise(path);
  if (!again || again.pathname + again.search + again.hash !== path) return fallback;
  if (/^\/(login|register|logout|two-factor)(\/|$|\?|#)/i.test(path)) return fallback;
  return path;
}
