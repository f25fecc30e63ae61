// Where the change being made comes from: the web process runs each request inside
// `withRequestOrigin` (server.ts), so code deep below a route (the audit trail's writer) can
// name the client's address without every service passing it along. Outside a request
// (the worker, Telegram commands, scripts) there is none.
import { AsyncLocalStorage } from "node:async_hooks";

export interface RequestOrigin {
  /** The client's address as server.ts decided it (TRUST_PROXY honours X-Forwarded-For). */
  ip: string | null;
}

// One store per process: server.ts imports this module from source while the Remix build
// bundles its own copy, so the instance lives on globalThis under a registered symbol.
const KEY = Symbol.for("perpdesk.request-origin");
const holder = globalThis as { [KEY]?: AsyncLocalStorage<RequestOrigin> };
const storage = (holder[KEY] ??= new AsyncLocalStorage<RequestOrigin>());

export function withRequestOrigin<T>(origin: RequestOrigin, run: () => T): T {
  return storage.run(origin, run);
}

export function currentRequestOrigin(): RequestOrigin | null {
  return storage.getStore() ?? null;
}
