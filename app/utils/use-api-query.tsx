// A small query cache for screens that poll the JSON API (docs/spec/figures.md#defaults-and-limits query defaults:
// 3 retries with back-off from 500 ms capped at 5 s, only while online, no refetch on
// focus). Server-rendered data seeds each query, so screens work before hydration and
// without JavaScript; live messages invalidate queries by key prefix.
import { createContext, type ReactNode, useCallback, useContext, useEffect, useRef, useState } from "react";
import { getJson } from "./api-client.ts";

type Listener = () => void;

class QueryRegistry {
  private listeners = new Map<string, Set<Listener>>();

  subscribe(key: string, listener: Listener) {
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set!.delete(listener);
    };
  }

  /** Refetches every mounted query whose key starts with one of the prefixes. */
  invalidate(...prefixes: string[]) {
    for (const [key, set] of this.listeners) {
      if (prefixes.some((p) => key.startsWith(p))) for (const listener of set) listener();
    }
  }
}

const RegistryContext = createContext<QueryRegistry | null>(null);

export function QueryProvider({ children }: { children: ReactNode }) {
  const [registry] = useState(() => new QueryRegistry());
  return <RegistryContext.Provider value={registry}>{children}</RegistryContext.Provider>;
}

export function useInvalidate() {
  const registry = useContext(RegistryContext);
  return useCallback((...prefixes: string[]) => registry?.invalidate(...prefixes), [registry]);
}

export interface QueryState<T> {
  data: T | undefined;
  error: Error | null;
  isLoading: boolean;
  refetch: () => Promise<void>;
}

const RETRIES = 3;
const backoff = (attempt: number) => Math.min(500 * 2 ** attempt, 5000);

export function useApiQuery<T>(
  url: string,
  options: {
    initialData?: T;
    refetchIntervalMs?: number;
    enabled?: boolean;
    /** Delay before retry N (0-based); default 500 ms doubling, capped at 5 s (docs/spec/figures.md#defaults-and-limits). */
    retryDelayMs?: (attempt: number) => number;
  } = {},
): QueryState<T> {
  const registry = useContext(RegistryContext);
  const [data, setData] = useState<T | undefined>(options.initialData);
  const [error, setError] = useState<Error | null>(null);
  const [isLoading, setLoading] = useState(options.initialData === undefined && options.enabled !== false);
  const generation = useRef(0);
  const retryDelayRef = useRef(options.retryDelayMs);
  retryDelayRef.current = options.retryDelayMs;
  const enabled = options.enabled !== false;

  const inFlight = useRef(false);

  const refetch = useCallback(async () => {
    const mine = ++generation.current;
    inFlight.current = true;
    for (let attempt = 0; ; attempt++) {
      try {
        const value = await getJson<T>(url);
        if (mine !== generation.current) return;
        setData(value);
        setError(null);
        break;
      } catch (err) {
        if (mine !== generation.current) return;
        const status = (err as { status?: number }).status ?? 0;
        const retryable = attempt < RETRIES && navigator.onLine && (status === 0 || status >= 500);
        if (!retryable) {
          setError(err as Error);
          break;
        }
        await new Promise((r) => setTimeout(r, (retryDelayRef.current ?? backoff)(attempt)));
      }
    }
    if (mine === generation.current) {
      inFlight.current = false;
      setLoading(false);
    }
  }, [url]);

  useEffect(() => {
    if (!enabled) return;
    if (options.initialData === undefined) void refetch();
    const unsubscribe = registry?.subscribe(url, () => void refetch());
    const timer = options.refetchIntervalMs
      ? setInterval(() => {
          // A poll never interrupts a fetch still retrying (its error would never surface).
          if (navigator.onLine && !inFlight.current) void refetch();
        }, options.refetchIntervalMs)
      : null;
    return () => {
      unsubscribe?.();
      if (timer) clearInterval(timer);
      generation.current++;
      inFlight.current = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [url, enabled, options.refetchIntervalMs, registry, refetch]);

  return { data, error, isLoading, refetch };
}
