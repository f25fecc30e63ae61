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
 * ago"): render it in an element with `suppressHydrationWarning`, and it is corrected right
 * after hydration (the effect below), instead of a hydration error.
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
