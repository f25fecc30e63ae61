// Identical reads asked for at about the same time share one execution ("single flight",
// docs/decisions/037-shared-reads-and-route-matching.md). A caller joins a read only while it
// has not started: the read starts one macrotask after the first caller asked, and every
// caller that asked before then gets its result. So the read always starts after each of its
// callers asked, and each sees everything committed before it asked, exactly as with a read
// of its own.
// Under load several pages reach the same read in one turn of the event loop (the dashboard
// at capacity: ~3 pages per read); alone, a page waits one macrotask.
//
// The result is one object for every caller: callers must not change it.

const flights = new WeakMap<object, Map<string, Promise<unknown>>>();

/** The next macrotask (after the I/O and timers already due): what callers arriving meanwhile share. */
export const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * `read()`'s result, shared with every caller that asks for the same `key` in the same
 * `scope` (a database) before it starts. The key must name everything the result depends on.
 */
export function sharedRead<T>(scope: object, key: string, read: () => Promise<T>): Promise<T> {
  let byKey = flights.get(scope);
  if (!byKey) flights.set(scope, (byKey = new Map()));
  const waiting = byKey.get(key);
  if (waiting) return waiting as Promise<T>;
  const table = byKey;
  const flight = nextMacrotask().then(() => {
    table.delete(key); // from here on, a new caller starts a read of its own
    return read();
  });
  table.set(key, flight);
  return flight;
}
