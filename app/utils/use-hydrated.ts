import { useEffect, useState } from "react";

/** False during server rendering and the first client render; true after hydration. */
export function useHydrated() {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

/**
 * Re-renders every `ms` milliseconds (relative times). The server's and the browser's clocks
 * differ by the time hydration takes, so a label can change in between ("Just now" → "1 min
 * ago"): render it in an element with `suppressHydrationWarning` and a `key` that changes with
 * `useHydrated()`. React keeps the server's text while hydrating and only patches the DOM when
 * its own previous render differs, so without the new key a label the browser computed equal
 * during hydration and after would keep the server's stale text.
 */
export function useNow(ms = 30_000) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}
