// One MSW server per test file with the fake Coinbase's handlers. Any request no handler
// answers is an error: no test reaches the network.
import { setupServer } from "msw/node";
import { afterAll, beforeAll } from "vitest";
import { type FakeCoinbaseOptions, createCoinbaseFake } from "./coinbase.ts";

/** Installs the fake for the current file; `reset()` gives a fresh state (call in beforeEach). */
export function useCoinbaseFake(options: FakeCoinbaseOptions = {}) {
  let fake = createCoinbaseFake(options);
  const server = setupServer(...fake.handlers);
  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  afterAll(() => server.close());
  return {
    get fake() {
      return fake;
    },
    server,
    reset(next: FakeCoinbaseOptions = options) {
      fake = createCoinbaseFake(next);
      server.resetHandlers(...fake.handlers);
      return fake;
    },
  };
}
