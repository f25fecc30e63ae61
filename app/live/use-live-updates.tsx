// The browser's live connection (docs/spec/screens.md#states, api.md, figures.md#defaults-and-limits): /ws on the same host (wss under
// https); reconnect after 1, 2, 4, 8, 16 s, five attempts, reset on a successful open;
// each message type refreshes its queries, throttled per type, after 100 ms; a
// reconnecting browser resumes from the last event id it saw.
import { createContext, type ReactNode, useContext, useEffect, useRef, useState } from "react";
import { useToast } from "#app/components/toaster.tsx";
import { useInvalidate } from "#app/utils/use-api-query.tsx";
import { SESSION_ENDED_CODE } from "#app/core/live-close-codes.ts";

export const RECONNECT_ATTEMPTS = 5;
export const reconnectDelayMs = (attempt: number) => 2 ** attempt * 1000; // attempt 0..4: 1, 2, 4, 8, 16 s

/** Per type: how often it may refresh (ms) and which queries (key prefixes) it refreshes. */
export const LIVE_REFRESH: Record<string, { throttleMs: number; keys: string[] }> = {
  dashboard_update: {
    throttleMs: 10_000,
    keys: [
      "/api/dashboard/stats",
      "/api/performance-stats",
      "/api/balance",
      "/api/positions",
      "/api/portfolio-summary",
      "/api/performance-charts",
    ],
  },
  new_signal: { throttleMs: 5_000, keys: ["/api/signals"] },
  trade_update: {
    throttleMs: 5_000,
    keys: [
      "/api/trades",
      "/api/positions",
      "/api/orders",
      "/api/drifts",
      "/api/dashboard/stats",
      "/api/signals",
      "/api/balance",
      "/api/performance-charts",
    ],
  },
  activity_log: { throttleMs: 15_000, keys: ["/api/logs"] },
  system_status: { throttleMs: 15_000, keys: ["/api/health", "/api/dashboard/stats"] },
};
const REFRESH_DELAY_MS = 100;

/**
 * Manual orders this page placed that were still queued or resting when the form answered
 * (issue 11): their outcome arrives as a live trade_update and is toasted here, 'Trade
 * Executed' for a fill, 'Trade Failed' with the reason for a late refusal.
 */
const watchedTrades = new Set<string>();
export function watchTrade(id: string): void {
  watchedTrades.add(id);
}

export interface LiveMessage {
  id?: number;
  type: string;
  data: Record<string, unknown>;
}

interface LiveState {
  connected: boolean;
  lastMessage: LiveMessage | null;
  send: (message: unknown) => void;
}

const LiveContext = createContext<LiveState>({ connected: false, lastMessage: null, send: () => {} });
export const useLive = () => useContext(LiveContext);

export function LiveProvider({ children }: { children: ReactNode }) {
  const invalidate = useInvalidate();
  const toast = useToast();
  const [connected, setConnected] = useState(false);
  const [lastMessage, setLastMessage] = useState<LiveMessage | null>(null);
  const socketRef = useRef<WebSocket | null>(null);
  const lastEventId = useRef<number | null>(null);
  const throttles = useRef(new Map<string, { last: number; timer: ReturnType<typeof setTimeout> | null }>());

  useEffect(() => {
    let attempts = 0;
    let closedByUs = false;
    let retryTimer: ReturnType<typeof setTimeout> | null = null;

    const refresh = (type: string) => {
      const rule = LIVE_REFRESH[type];
      if (!rule) return;
      const state = throttles.current.get(type) ?? { last: 0, timer: null };
      throttles.current.set(type, state);
      if (state.timer) return; // a refresh is already scheduled: it will include this one
      const wait = Math.max(REFRESH_DELAY_MS, state.last + rule.throttleMs - Date.now());
      state.timer = setTimeout(() => {
        state.timer = null;
        state.last = Date.now();
        invalidate(...rule.keys);
      }, wait);
    };

    const onMessage = (event: MessageEvent) => {
      let message: LiveMessage;
      try {
        message = JSON.parse(String(event.data)) as LiveMessage;
      } catch (error) {
        console.warn("WebSocket message is not JSON", error);
        return;
      }
      if (message.type === "hello") {
        if (lastEventId.current !== null)
          socketRef.current?.send(JSON.stringify({ type: "resume", lastEventId: lastEventId.current }));
        else lastEventId.current = Number(message.data.lastEventId ?? 0);
        return;
      }
      if (message.type === "resync") {
        // Too far behind for a replay: refetch everything this page shows.
        lastEventId.current = Number(message.data.lastEventId ?? 0);
        invalidate(...new Set(Object.values(LIVE_REFRESH).flatMap((rule) => rule.keys)));
        return;
      }
      if (typeof message.id === "number") {
        if (lastEventId.current !== null && message.id <= lastEventId.current) return; // already seen
        lastEventId.current = message.id;
      }
      setLastMessage(message);
      refresh(message.type);
      if (message.type === "new_signal") {
        const action = String(message.data.action ?? "").toUpperCase();
        toast({
          title: "New Signal Received",
          description: `${action} signal for ${String(message.data.symbol ?? "")}`,
        });
      } else if (
        message.type === "trade_update" &&
        typeof message.data.id === "string" &&
        watchedTrades.has(message.data.id)
      ) {
        const status = String(message.data.status ?? "");
        if (status === "failed" || status === "cancelled") {
          watchedTrades.delete(message.data.id);
          toast({
            title: "Trade Failed",
            description: String(message.data.message ?? "The order was cancelled"),
            variant: "destructive",
          });
        } else if (status === "executed") {
          watchedTrades.delete(message.data.id);
          const side = String(message.data.side ?? "").toUpperCase();
          toast({
            title: "Trade Executed",
            description: `${side} order for ${String(message.data.symbol ?? "")} has been placed successfully`,
          });
        }
      } else if (message.type === "activity_log" && message.data.level === "error") {
        toast({ title: "System Alert", description: String(message.data.message ?? ""), variant: "destructive" });
      }
    };

    const connect = () => {
      const scheme = window.location.protocol === "https:" ? "wss" : "ws";
      const socket = new WebSocket(`${scheme}://${window.location.host}/ws`);
      socketRef.current = socket;
      socket.onopen = () => {
        attempts = 0;
        setConnected(true);
      };
      socket.onmessage = onMessage;
      socket.onerror = () => console.warn("WebSocket error");
      socket.onclose = (event) => {
        setConnected(false);
        socketRef.current = null;
        if (closedByUs || event.code === SESSION_ENDED_CODE || attempts >= RECONNECT_ATTEMPTS) return;
        retryTimer = setTimeout(connect, reconnectDelayMs(attempts));
        attempts += 1;
      };
    };
    connect();
    return () => {
      closedByUs = true;
      if (retryTimer) clearTimeout(retryTimer);
      for (const state of throttles.current.values()) if (state.timer) clearTimeout(state.timer);
      socketRef.current?.close();
    };
  }, [invalidate, toast]);

  const send = (message: unknown) => {
    const socket = socketRef.current;
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      console.warn("WebSocket is not connected");
      return;
    }
    socket.send(JSON.stringify(message));
  };

  return <LiveContext.Provider value={{ connected, lastMessage, send }}>{children}</LiveContext.Provider>;
}
